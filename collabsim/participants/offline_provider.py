"""An offline litellm provider that answers with the scripted policies.

Registered (on import) as the local litellm provider ``collabsim``
(:mod:`collabsim.llm.custom_provider`); models:

* ``collabsim/scripted`` - answers at once;
* ``collabsim/scripted-latency`` - sleeps ``latency_ms`` (request parameter, default 100)
  before answering; ``collabsim/scripted-latency-<ms>`` fixes the latency in the name.

The provider reads the prompt the LLM participant rendered, decodes its state block
(:mod:`collabsim.participants.state_block`: the participant's observation plus the policy
seed and parameters), rebuilds the scripted policy and answers with its action text. So the
whole LLM path - prompt rendering, the litellm call, parsing, caching, accounting - runs
without a network, and a scripted-provider session takes the same actions as a
``policy=scripted`` one.

A repair prompt (after an unparseable reply) is answered the same way: it carries the state
block too. The scripted policies decide from the observation alone
(:mod:`collabsim.participants.scripted_bridge`), so a reply served from the LLM disk cache
(a resumed or partly cached run) changes nothing the provider answers later. Policy kinds in the block: ``scripted`` (rebuild
:class:`~collabsim.participants.scripted.ScriptedAgent` / ``ScriptedCollaborator``) and
``fixed`` (answer ``policy["reply"]``; for tests).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

from collabsim.core.observation import Observation
from collabsim.llm.custom_provider import BadProviderRequest, register_custom_provider
from collabsim.participants.state_block import StateBlockError, decode_state

PROVIDER = "collabsim"
SCRIPTED_MODEL = "collabsim/scripted"
LATENCY_MODEL = "collabsim/scripted-latency"
DEFAULT_LATENCY_MS = 100.0
_LATENCY_NAME = re.compile(r"^scripted-latency(?:-(\d+(?:\.\d+)?))?$")


class OfflineProviderError(ValueError):
    """The offline provider cannot answer a request (unknown model, no state block)."""


def latency_seconds(model: str, request: Mapping[str, Any]) -> float:
    """Artificial latency of an offline model name (without the provider prefix), seconds."""
    if model == "scripted":
        return 0.0
    match = _LATENCY_NAME.match(model)
    if match is None:
        raise OfflineProviderError(
            f"unknown offline model {PROVIDER}/{model}: use {SCRIPTED_MODEL} or {LATENCY_MODEL}"
        )
    if match.group(1) is not None:
        return float(match.group(1)) / 1000.0
    return float(request.get("latency_ms", DEFAULT_LATENCY_MS)) / 1000.0


async def answer(observation: Observation, policy: Mapping[str, Any]) -> str:
    """The action text the policy described by ``policy`` takes on ``observation``.

    Args:
        observation: The decoded observation.
        policy: ``{"kind": "scripted", "seed": int, "params": {...}}`` or
            ``{"kind": "fixed", "reply": str}``.

    Returns:
        The reply text.
    """
    kind = policy.get("kind", "scripted")
    if kind == "fixed":
        return str(policy.get("reply", ""))
    if kind == "scripted":
        from collabsim.participants.scripted_bridge import scripted_answer

        return scripted_answer(observation, policy)
    raise OfflineProviderError(f"unknown offline policy kind {kind!r}")


async def answer_request(
    model: str, messages: list[dict[str, Any]], params: Mapping[str, Any]
) -> str:
    """Answer one litellm call of a ``collabsim/...`` model (``model`` without the prefix).

    Raises:
        BadProviderRequest: Unknown model name or no valid state block in the prompt.
    """
    try:
        delay = latency_seconds(model, params)
        observation, policy = decode_state(messages)
    except (OfflineProviderError, StateBlockError) as exc:
        raise BadProviderRequest(str(exc)) from exc
    if delay > 0:
        await asyncio.sleep(delay)
    return await answer(observation, policy)


register_custom_provider(PROVIDER, answer_request, models=(SCRIPTED_MODEL, LATENCY_MODEL))
