"""Local litellm providers: answer a model name's calls with a Python function.

The LLM client knows no domain. A package that wants to serve calls without a network (the
offline ``collabsim/...`` models of :mod:`collabsim.participants.offline_provider`) registers
an *answer* function for a provider prefix; :func:`collabsim.llm.backend.get_litellm` adds
every registered provider to ``litellm.custom_provider_map`` and the client gives each model
of such a provider a zero price before calling it. Token usage of the replies is estimated
from text length.

An answer function gets ``(model, messages, optional_params)`` (``model`` without the prefix)
and returns the reply text; raising :class:`BadProviderRequest` makes the call a
non-retryable bad request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from collabsim.llm.usage import estimate_prompt_tokens, estimate_tokens

Answer = Callable[[str, list[dict[str, Any]], Mapping[str, Any]], Awaitable[str]]


class BadProviderRequest(ValueError):
    """A local provider cannot answer a request (unknown model, malformed prompt)."""


@dataclass(frozen=True)
class CustomProvider:
    """One local provider.

    Attributes:
        prefix: litellm provider name (models are ``<prefix>/<model>``).
        answer: Async function computing the reply text.
        models: Model names (with prefix) priced at zero as soon as litellm is loaded.
    """

    prefix: str
    answer: Answer
    models: tuple[str, ...] = ()


_lock = threading.Lock()
_providers: dict[str, CustomProvider] = {}
_installed: set[str] = set()
_priced_models: set[str] = set()
_litellm: Any = None

_MODEL_INFO: dict[str, Any] = {
    "input_cost_per_token": 0.0,
    "output_cost_per_token": 0.0,
    "mode": "chat",
    "max_tokens": 1_000_000,
    "max_input_tokens": 1_000_000,
    "max_output_tokens": 1_000_000,
}


def register_custom_provider(prefix: str, answer: Answer, models: Sequence[str] = ()) -> None:
    """Serve ``<prefix>/...`` models with ``answer`` (idempotent per prefix).

    Args:
        prefix: Provider name, e.g. ``"collabsim"``.
        answer: ``async (model, messages, optional_params) -> text``.
        models: Model names to price at zero up front.
    """
    with _lock:
        _providers[prefix] = CustomProvider(prefix, answer, tuple(models))
        litellm = _litellm
    if litellm is not None:
        install_custom_providers(litellm)


def provider_of(model: str) -> CustomProvider | None:
    """The registered provider serving ``model`` (``"<prefix>/..."``), if any."""
    prefix, sep, _ = model.partition("/")
    return _providers.get(prefix) if sep else None


def register_custom_model(litellm: Any, model: str) -> None:
    """Give a model of a registered provider a zero price in litellm's cost map (idempotent).

    litellm prices every reply itself; for a model it does not know that search is slow
    (fallback lookups on each call). Registering the model makes it a direct hit.
    """
    provider = provider_of(model)
    if model in _priced_models or provider is None:
        return
    logger = logging.getLogger("LiteLLM")
    level = logger.level
    logger.setLevel(logging.ERROR)  # register_model warns about the missing cache prices
    try:
        litellm.register_model({model: {**_MODEL_INFO, "litellm_provider": provider.prefix}})
    finally:
        logger.setLevel(level)
    _priced_models.add(model)


def install_custom_providers(litellm: Any) -> None:
    """Add every registered provider to ``litellm.custom_provider_map`` (idempotent)."""
    global _litellm
    with _lock:
        _litellm = litellm
        todo = [p for p in _providers.values() if p.prefix not in _installed]
        _installed.update(p.prefix for p in todo)
    for provider in todo:
        for model in provider.models:
            register_custom_model(litellm, model)
        if any(item.get("provider") == provider.prefix for item in litellm.custom_provider_map):
            continue
        handler = _make_handler(litellm, provider.prefix)
        litellm.custom_provider_map = [
            *litellm.custom_provider_map,
            {"provider": provider.prefix, "custom_handler": handler},
        ]


def _fill(
    litellm: Any, model_response: Any, full_model: str, messages: list[Any], text: str
) -> Any:
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
    model_response.model = full_model
    # Local models are free: state the price on the reply, as a provider that knows its
    # cost does. litellm then uses it ("response_cost" already in _hidden_params) instead of
    # running its cost calculator twice per call (before returning and in the success
    # handler); LLMClient prices the call itself either way (see client.price).
    hidden = getattr(model_response, "_hidden_params", None)
    if isinstance(hidden, dict):
        hidden["response_cost"] = 0.0
    return model_response


def _make_handler(litellm: Any, prefix: str) -> Any:
    def bad_request(model: str, exc: Exception) -> Exception:
        return litellm.BadRequestError(
            message=str(exc), model=f"{prefix}/{model}", llm_provider=prefix
        )

    async def reply(model: str, messages: list[Any], kwargs: dict[str, Any]) -> Any:
        optional = kwargs.get("optional_params") or {}
        try:
            text = await _providers[prefix].answer(model, messages, optional)
        except BadProviderRequest as exc:
            raise bad_request(model, exc) from exc
        return _fill(litellm, kwargs["model_response"], f"{prefix}/{model}", messages, text)

    class LocalProvider(litellm.CustomLLM):  # type: ignore[misc, name-defined]
        """litellm CustomLLM answering ``<prefix>/*`` models with a registered function."""

        async def acompletion(  # noqa: D102
            self, model: str, messages: list, *args: Any, **kwargs: Any
        ) -> Any:
            return await reply(model, messages, kwargs)

        def completion(  # noqa: D102
            self, model: str, messages: list, *args: Any, **kwargs: Any
        ) -> Any:
            return asyncio.run(reply(model, messages, kwargs))

    return LocalProvider()
