"""An offline litellm provider that answers with the scripted policies.

Registered as litellm custom provider ``collabsim``; models:

* ``collabsim/scripted`` - answers at once;
* ``collabsim/scripted-latency`` - sleeps ``latency_ms`` (request parameter, default 100)
  before answering; ``collabsim/scripted-latency-<ms>`` fixes the latency in the name.

The provider reads the prompt the LLM participant rendered, decodes its state block
(:mod:`collabsim.llm.state_block`: the participant's observation plus the policy seed and
parameters), rebuilds the scripted policy and answers with its action text. So the whole LLM
path - prompt rendering, the litellm call, parsing, caching, accounting - runs without a
network, and a scripted-provider session takes the same actions as a ``policy=scripted`` one.

A repair prompt (after an unparseable reply) is answered the same way: it carries the state
block too. Policy kinds in the block: ``scripted`` (rebuild
:class:`~collabsim.participants.scripted.ScriptedAgent` / ``ScriptedCollaborator``) and
``fixed`` (answer ``policy["reply"]``; for tests). Token usage is estimated from text length.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping
from typing import Any

from collabsim.llm.state_block import StateBlockError, decode_state
from collabsim.llm.usage import estimate_prompt_tokens, estimate_tokens
from collabsim.participants.protocol import Observation

PROVIDER = "collabsim"
SCRIPTED_MODEL = "collabsim/scripted"
LATENCY_MODEL = "collabsim/scripted-latency"
DEFAULT_LATENCY_MS = 100.0
_LATENCY_NAME = re.compile(r"^scripted-latency(?:-(\d+(?:\.\d+)?))?$")


class OfflineProviderError(ValueError):
    """The offline provider cannot answer a request (unknown model, no state block)."""


def latency_seconds(model: str, params: Mapping[str, Any]) -> float:
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
    return float(params.get("latency_ms", DEFAULT_LATENCY_MS)) / 1000.0


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
        from collabsim.llm.scripted_bridge import scripted_policy_for

        participant = scripted_policy_for(observation, policy)
        return await participant.act(observation)
    raise OfflineProviderError(f"unknown offline policy kind {kind!r}")


def _fill(model_response: Any, model: str, messages: list[dict[str, Any]], text: str) -> Any:
    from collabsim.llm.backend import get_litellm

    litellm = get_litellm()
    model_response.choices[0].message.content = text
    model_response.choices[0].finish_reason = "stop"
    prompt_tokens = estimate_prompt_tokens(
        [{"content": str(m.get("content") or "")} for m in messages]
    )
    completion_tokens = estimate_tokens(text)
    model_response.usage = litellm.Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    model_response.model = f"{PROVIDER}/{model}"
    # The offline models are free: state the price on the reply, as a provider that knows its
    # cost does. litellm then uses it ("response_cost" already in _hidden_params) instead of
    # running its cost calculator twice per call (before returning and in the success
    # handler); LLMClient prices the call itself either way (see client.price).
    hidden = getattr(model_response, "_hidden_params", None)
    if isinstance(hidden, dict):
        hidden["response_cost"] = 0.0
    return model_response


def _bad_request(model: str, exc: Exception) -> Exception:
    """A non-retryable litellm error for a request the offline provider cannot answer."""
    from collabsim.llm.backend import get_litellm

    return get_litellm().BadRequestError(
        message=str(exc), model=f"{PROVIDER}/{model}", llm_provider=PROVIDER
    )


def _request(model: str, messages: list, kwargs: dict[str, Any]) -> tuple[float, Any, Any]:
    """Latency, observation and policy of one call (a malformed call is a bad request)."""
    optional = kwargs.get("optional_params") or {}
    try:
        return latency_seconds(model, optional), *decode_state(messages)
    except (OfflineProviderError, StateBlockError) as exc:
        raise _bad_request(model, exc) from exc


def _make_handler(base: type) -> Any:
    class ScriptedProvider(base):  # type: ignore[misc, valid-type]
        """litellm CustomLLM answering ``collabsim/*`` models with the scripted policies."""

        async def acompletion(  # noqa: D102
            self, model: str, messages: list, *args: Any, **kwargs: Any
        ) -> Any:
            delay, observation, policy = _request(model, messages, kwargs)
            if delay > 0:
                await asyncio.sleep(delay)
            text = await answer(observation, policy)
            return _fill(kwargs["model_response"], model, messages, text)

        def completion(  # noqa: D102
            self, model: str, messages: list, *args: Any, **kwargs: Any
        ) -> Any:
            delay, observation, policy = _request(model, messages, kwargs)
            if delay > 0:
                time.sleep(delay)
            text = asyncio.run(answer(observation, policy))
            return _fill(kwargs["model_response"], model, messages, text)

    return ScriptedProvider()


_MODEL_INFO: dict[str, Any] = {
    "input_cost_per_token": 0.0,
    "output_cost_per_token": 0.0,
    "litellm_provider": PROVIDER,
    "mode": "chat",
    "max_tokens": 1_000_000,
    "max_input_tokens": 1_000_000,
    "max_output_tokens": 1_000_000,
}
_registered_models: set[str] = set()


def register_offline_model(litellm: Any, model: str) -> None:
    """Give an offline model a zero price in litellm's cost map (idempotent).

    litellm prices every reply itself; for a model it does not know that search is slow
    (fallback lookups on each call). Registering the model makes it a direct hit.

    Args:
        litellm: The imported litellm module.
        model: A ``collabsim/...`` model name.
    """
    if model in _registered_models or not model.startswith(PROVIDER + "/"):
        return
    logger = logging.getLogger("LiteLLM")
    level = logger.level
    logger.setLevel(logging.ERROR)  # register_model warns about the missing cache prices
    try:
        litellm.register_model({model: dict(_MODEL_INFO)})
    finally:
        logger.setLevel(level)
    _registered_models.add(model)


def register_offline_provider(litellm: Any) -> None:
    """Add the ``collabsim`` provider to ``litellm.custom_provider_map`` (idempotent).

    Args:
        litellm: The imported litellm module.
    """
    for model in (SCRIPTED_MODEL, LATENCY_MODEL):
        register_offline_model(litellm, model)
    if any(item.get("provider") == PROVIDER for item in litellm.custom_provider_map):
        return
    handler = _make_handler(litellm.CustomLLM)
    litellm.custom_provider_map = [
        *litellm.custom_provider_map,
        {"provider": PROVIDER, "custom_handler": handler},
    ]
