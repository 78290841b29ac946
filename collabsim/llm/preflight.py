"""Pre-flight check of the provider keys a run's models need, before any call is made.

A missing key otherwise shows up only at the first model call of every session, each
session failing on its own. :func:`missing_credentials` asks litellm which environment
variables a model's provider reads (``litellm.validate_environment``: no network, no call)
and lists the models whose key is not set. Two kinds of model need none:

* the offline ``collabsim/...`` models (they run in this process);
* models with an explicit ``api_base`` in their extra settings (a local or self-hosted
  server: vLLM, Ollama, a proxy), which decides itself whether it wants a key;
* models answered by litellm's ``mock_response`` (no provider is called).

Only credentials are required: variables named like one (``*KEY*``, ``*TOKEN*``,
``*SECRET*``); those that say where a server is (``OLLAMA_API_BASE``) or which region to use
have defaults and are not checked. :func:`required_keys` is the one rule: the client asks it
too when a call fails, so that a missing key is never retried.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from collabsim.llm.backend import get_litellm
from collabsim.llm.pricing import OFFLINE_MODEL_PREFIX

ModelSpec = str | tuple[str, Mapping[str, Any]]
"""A model name, or ``(model name, extra settings)`` (``LLMSettings.extra``)."""

_CREDENTIAL_NAME = re.compile(r"(KEY|TOKEN|SECRET)", re.IGNORECASE)
_NO_PROVIDER_PARAMS = ("api_base", "base_url", "mock_response")


def required_keys(model: str, extra: Mapping[str, Any] | None = None) -> list[str]:
    """The environment variables holding credentials that ``model`` needs and that are unset.

    Args:
        model: A litellm model name (``"openai/gpt-4o-mini"``, ``"collabsim/scripted"``).
        extra: The model's extra request settings; an ``api_base`` (or ``base_url``, or a
            ``mock_response``) there means the model needs no key from the environment.

    Returns:
        The unset variables, in litellm's order; empty when nothing is missing.
    """
    if model.startswith(OFFLINE_MODEL_PREFIX):
        return []
    if extra and any(extra.get(name) for name in _NO_PROVIDER_PARAMS):
        return []
    try:
        report = get_litellm().validate_environment(model=model)
    except Exception:  # noqa: BLE001 - an unknown provider: the first call names the problem
        return []
    missing = (report.get("missing_keys") or []) if isinstance(report, Mapping) else []
    return [str(k) for k in missing if _CREDENTIAL_NAME.search(str(k))]


def missing_credentials(models: Iterable[ModelSpec]) -> list[str]:
    """One line per model whose provider key is missing from the environment.

    Args:
        models: Model names, or ``(model name, extra settings)`` pairs (see
            :func:`required_keys`); a model listed twice is reported once.

    Returns:
        Lines such as ``"openai/x needs OPENAI_API_KEY, which is not set in the
        environment"``; empty when every model can be called.
    """
    lines: list[str] = []
    seen: set[str] = set()
    for spec in models:
        model, extra = (spec, None) if isinstance(spec, str) else spec
        keys = required_keys(model, extra)
        if not keys or model in seen:
            continue
        seen.add(model)
        names = " and ".join(keys)
        verb = "is" if len(keys) == 1 else "are"
        lines.append(f"{model} needs {names}, which {verb} not set in the environment")
    return lines
