"""The one entry point for model calls: :class:`LLMClient` over litellm's async API.

Every part of collabsim that calls a model (LLM participants, judges, predictors) goes
through :meth:`LLMClient.complete`. A call

1. checks the session :class:`~collabsim.llm.budget.Budget` (raising
   :class:`~collabsim.llm.budget.BudgetExceeded` instead of overspending),
2. looks the request up in the disk cache (key: model, messages, sampling parameters with
   any tools, the session's scope and the request's occurrence in the session; see
   :func:`collabsim.llm.cache.cache_key`),
3. on a miss, waits for a slot (``max_concurrency``, ``requests_per_minute``), calls
   ``litellm.acompletion`` with a per-request timeout (litellm's own and an
   ``asyncio.wait_for`` around it), retrying transient errors with seeded exponential
   backoff and jitter (:mod:`collabsim.llm.retry`),
4. prices the reply with :func:`collabsim.llm.pricing.price` (the client's ``prices``, then
   litellm's cost data; unknown model -> 0, ``cost_known=False``; the offline
   ``collabsim/...`` models are free and known),
5. stores it in the cache, accounts tokens and cost under the call's ``tag`` and appends a
   redacted record to the call log.

One process usually holds one *root* client (cache, limits) and derives a *session view*
per session with :meth:`LLMClient.for_session`: the view shares the cache, the limiter and
the root's usage totals but has its own budget, usage, call log, cache scope and request
seed. Within a view the n-th identical request is keyed with n (calls of one session are
sequential, so n follows the session's own order and a rerun replays it at any concurrency);
the root client keys every identical request alike (scope "", n = 0).

Native tool calling (``tools=``) is used where :func:`supports_tools` says the model has it;
:func:`context_window` is a model's prompt budget.

API keys are never passed in: litellm reads them from the environment.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

from collabsim.llm.backend import get_litellm
from collabsim.llm.budget import Budget
from collabsim.llm.cache import CacheEntry, DiskCache, cache_key, is_secret_param, jsonable
from collabsim.llm.calllog import CallLog
from collabsim.llm.custom_provider import register_custom_model
from collabsim.llm.limits import CallLimiter
from collabsim.llm.pricing import OFFLINE_MODEL_PREFIX as OFFLINE_MODEL_PREFIX  # re-exported
from collabsim.llm.pricing import Prices, price
from collabsim.llm.redact import redact
from collabsim.llm.retry import (
    backoff_delay,
    is_retryable,
    missing_credentials,
    retry_generator,
)
from collabsim.llm.toolcalls import ToolCall, read_tool_calls
from collabsim.llm.usage import (
    UsageLedger,
    estimate_prompt_tokens,
    estimate_tokens,
    reported_tokens,
)

ToolCalling = Literal["auto", "on", "off"]
TOOL_CALLING_MODES: tuple[str, ...] = get_args(ToolCalling)


@dataclass(frozen=True)
class LLMSettings:
    """How to call one model.

    Attributes:
        model: litellm model name (``"gpt-4o-mini"``, ``"anthropic/claude-3-5-haiku-latest"``,
            ``"deepseek/deepseek-chat"``, ``"ollama/llama3.1"``, ``"collabsim/scripted"``).
        temperature: Sampling temperature.
        max_tokens: Maximum completion tokens.
        timeout_s: Per-request timeout in seconds (each try).
        max_retries: Retries after the first try for transient errors.
        extra: More keyword arguments for ``litellm.acompletion`` (``top_p``, ``api_base``,
            ``mock_response``, ``latency_ms`` for the offline latency model ...). Never put
            API keys here: they come from the environment.
        tool_calling: Native tool calling: ``"auto"`` (where litellm says the model supports
            function calling), ``"on"`` or ``"off"`` (:func:`supports_tools`).
        context_tokens: The model's prompt budget in tokens (None: litellm's model info, see
            :func:`context_window`).
    """

    model: str
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 60.0
    max_retries: int = 4
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)
    tool_calling: ToolCalling = "auto"
    context_tokens: int | None = None

    def __post_init__(self) -> None:
        """Validate numbers and modes and refuse credentials in ``extra``."""
        if not self.model:
            raise ValueError("LLMSettings.model must be a non-empty model name")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.tool_calling not in TOOL_CALLING_MODES:
            raise ValueError(
                f"tool_calling must be one of {', '.join(TOOL_CALLING_MODES)}, "
                f"got {self.tool_calling!r}"
            )
        if self.context_tokens is not None and (
            isinstance(self.context_tokens, bool)
            or not isinstance(self.context_tokens, int)
            or self.context_tokens < 1
        ):
            raise ValueError(f"context_tokens must be a positive integer, got {self.context_tokens!r}")
        secret = sorted(k for k in self.extra if is_secret_param(k))
        if secret:
            raise ValueError(
                f"LLMSettings.extra must not carry credentials ({', '.join(secret)}): "
                "set API keys as environment variables (e.g. OPENAI_API_KEY)"
            )

    def request_params(self) -> dict[str, Any]:
        """Sampling parameters sent with every call (``temperature``, ``max_tokens``, extra)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra}


@dataclass(frozen=True)
class LLMReply:
    """One model reply with its accounting.

    Attributes:
        text: Reply text ("" for an empty reply).
        model: Model that answered (as requested).
        prompt_tokens: Prompt tokens (provider's count, else an estimate).
        completion_tokens: Completion tokens (provider's count, else an estimate).
        cost_usd: Price of the reply (0 when unknown).
        cost_known: False when litellm has no price for the model.
        cached: True when served from the disk cache.
        latency_s: Wall seconds spent in this call (including retries).
        finish_reason: Why the model stopped (``"stop"``, ``"length"`` when cut at
            ``max_tokens``, ``"tool_calls"``; the offline models give ``"stop"``; None when
            the provider did not say).
        tool_calls: Native tool calls of the reply (only when tools were sent).
    """

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_known: bool
    cached: bool
    latency_s: float
    finish_reason: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


class LLMCallError(RuntimeError):
    """A model call failed: a non-retryable error, or retries exhausted.

    Attributes:
        model: The model called.
        tag: The call's tag.
        attempts: Tries made.
        retryable: Whether the last error was transient.
    """

    def __init__(
        self,
        model: str,
        tag: str,
        attempts: int,
        cause: BaseException,
        *,
        missing_keys: Sequence[str] = (),
    ) -> None:
        """Wrap ``cause`` (its message redacted); name the missing credentials, if any."""
        self.model = model
        self.tag = tag
        self.attempts = attempts
        self.missing_keys = tuple(missing_keys)
        self.retryable = is_retryable(cause) and not self.missing_keys
        message = redact(f"{type(cause).__name__}: {cause}")
        if self.missing_keys:
            message = f"{', '.join(self.missing_keys)} not set in the environment ({message})"
        super().__init__(f"model call to {model!r} failed after {attempts} tries: {message}")


_SYNC_LOOP: asyncio.AbstractEventLoop | None = None
_SYNC_LOCK = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """The process-wide event loop (in a daemon thread) that serves ``complete_sync``."""
    global _SYNC_LOOP
    with _SYNC_LOCK:
        if _SYNC_LOOP is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="collabsim-llm-sync", daemon=True
            )
            thread.start()
            _SYNC_LOOP = loop
    return _SYNC_LOOP


def supports_tools(settings: LLMSettings) -> bool:
    """Whether calls with ``settings`` send native tools (else the text grammar is used).

    ``tool_calling="on"`` / ``"off"`` decide; ``"auto"`` asks
    ``litellm.supports_function_calling`` (False for a model litellm does not know and for
    the offline ``collabsim/...`` models, which answer in the text grammar).
    """
    if settings.tool_calling != "auto":
        return settings.tool_calling == "on"
    return _calls_functions(settings.model)


@functools.lru_cache(maxsize=256)
def _calls_functions(model: str) -> bool:
    if model.startswith(OFFLINE_MODEL_PREFIX):
        return False
    try:
        return bool(get_litellm().supports_function_calling(model=model))
    except Exception:  # noqa: BLE001 - litellm raises several types for unmapped models
        return False


def context_window(settings: LLMSettings) -> int | None:
    """The prompt budget of a model in tokens.

    Returns:
        ``settings.context_tokens`` when set, else litellm's model info ``max_input_tokens``,
        else None (unknown: no budget).
    """
    if settings.context_tokens is not None:
        return settings.context_tokens
    litellm = get_litellm()
    register_custom_model(litellm, settings.model)
    try:
        info = litellm.get_model_info(model=settings.model)
    except Exception:  # noqa: BLE001 - unmapped models raise
        return None
    value = info.get("max_input_tokens") if isinstance(info, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def sends_seed(settings: LLMSettings) -> bool:
    """Whether a session's seed is sent as the ``seed`` request parameter to this model.

    True when litellm lists ``seed`` among the model's supported OpenAI parameters; never for
    the offline ``collabsim/...`` models (their policy seed travels in the prompt).
    """
    return _takes_seed(settings.model)


@functools.lru_cache(maxsize=256)
def _takes_seed(model: str) -> bool:
    if model.startswith(OFFLINE_MODEL_PREFIX):
        return False
    try:
        supported = get_litellm().get_supported_openai_params(model=model)
    except Exception:  # noqa: BLE001 - unknown providers raise
        return False
    return "seed" in (supported or ())


def _prompt_estimate(msgs: list[dict[str, str]], params: Mapping[str, Any]) -> int:
    """Estimated prompt tokens of a request: the messages and the tool schemas sent."""
    tools = params.get("tools")
    extra = estimate_tokens(json.dumps(jsonable(tools), sort_keys=True)) if tools else 0
    return estimate_prompt_tokens(msgs) + extra


def _normalise(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    out = []
    for message in messages:
        if "role" not in message or "content" not in message:
            raise ValueError(f"a chat message needs 'role' and 'content': {message!r}")
        out.append({"role": str(message["role"]), "content": str(message["content"] or "")})
    return out


@dataclass(frozen=True)
class _Reply:
    """What the client reads of a litellm response."""

    text: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    tool_calls: tuple[ToolCall, ...]


def _read_response(response: Any) -> _Reply:
    """Text, model, usable token counts, finish reason and tool calls of a litellm reply."""
    text, finish, calls = "", None, ()
    choices = getattr(response, "choices", None) or []
    if choices:
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None) if message is not None else None
        text = content if isinstance(content, str) else ""
        calls = read_tool_calls(getattr(message, "tool_calls", None) if message else None)
        reason = getattr(choices[0], "finish_reason", None)
        finish = str(reason) if reason else None
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None) if usage is not None else None
    completion = getattr(usage, "completion_tokens", None) if usage is not None else None
    return _Reply(
        text=text,
        model=str(getattr(response, "model", "") or ""),
        prompt_tokens=reported_tokens(prompt),
        completion_tokens=reported_tokens(completion),
        finish_reason=finish,
        tool_calls=calls,
    )


class LLMClient:
    """Cached, budgeted, rate-limited, retrying access to any litellm model.

    Args:
        cache_dir: Directory of the disk cache (None = no cache).
        budget: Spending limit of this client (use one session view per session).
        max_concurrency: Provider calls in flight at once (shared with session views).
        requests_per_minute: Provider call starts per minute (None = unlimited).
        call_log_path: JSONL file for per-call records (None = no call log).
        seed: Seed of the retry-jitter generators.
        retry_base_s: Backoff delay scale of the first retry.
        retry_cap_s: Maximum backoff delay.
        sleep: Coroutine function used to wait between retries (tests pass a fake).
        prices: Model -> (USD per 1M prompt tokens, USD per 1M completion tokens), used
            before litellm's cost data for every reply and budget reservation.
    """

    def __init__(
        self,
        cache_dir: Path | None = None,
        budget: Budget | None = None,
        *,
        max_concurrency: int = 8,
        requests_per_minute: float | None = None,
        call_log_path: Path | None = None,
        seed: int = 0,
        retry_base_s: float = 1.0,
        retry_cap_s: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        prices: Prices | None = None,
    ) -> None:
        self.cache = DiskCache(Path(cache_dir)) if cache_dir is not None else None
        self.budget = budget or Budget()
        self.limiter = CallLimiter(max_concurrency, requests_per_minute)
        self.call_log = CallLog(Path(call_log_path)) if call_log_path is not None else None
        self.seed = seed
        self.retry_base_s = retry_base_s
        self.retry_cap_s = retry_cap_s
        self._sleep = sleep or asyncio.sleep
        self.prices: dict[str, tuple[float, float]] = dict(prices or {})
        self._usage = UsageLedger()
        self._parents: tuple[UsageLedger, ...] = ()
        self._reserved_tokens = 0
        self._reserved_usd = 0.0
        self.scope = ""
        self.request_seed: int | None = None
        # None: the root client does not count occurrences (its callers, judges and
        # predictors, may run identical requests concurrently in any order).
        self._occurrences: dict[str, int] | None = None

    def for_session(
        self,
        *,
        budget: Budget | None = None,
        call_log_path: Path | None = None,
        scope: str = "",
        seed: int | None = None,
    ) -> LLMClient:
        """Derive a session view: shared cache, limits and root totals; own budget, usage, log.

        Args:
            budget: The session's budget (None = unlimited).
            call_log_path: The session's call log (see
                :func:`collabsim.llm.calllog.call_log_path_for`).
            scope: The session's identity (its plan key: task, team, structure, seed,
                settings); enters every cache key of the view, so two sessions never share a
                reply, while a rerun of the same session replays its own.
            seed: The session's seed, sent as the ``seed`` request parameter to models that
                take one (:func:`sends_seed`; a ``seed`` in the settings' extra wins).

        Returns:
            A new client whose usage also counts towards this client's usage.
        """
        view = LLMClient.__new__(LLMClient)
        view.cache = self.cache
        view.budget = budget or Budget()
        view.limiter = self.limiter
        view.call_log = CallLog(Path(call_log_path)) if call_log_path is not None else None
        view.seed = self.seed
        view.retry_base_s = self.retry_base_s
        view.retry_cap_s = self.retry_cap_s
        view._sleep = self._sleep
        view.prices = self.prices
        view._usage = UsageLedger()
        view._parents = (self._usage, *self._parents)
        view._reserved_tokens = 0
        view._reserved_usd = 0.0
        view.scope = scope
        view.request_seed = seed
        view._occurrences = {}
        return view

    @property
    def usage(self) -> UsageLedger:
        """Per-tag token, cost and call accounting of this client (and its session views)."""
        return self._usage

    def _record(self, tag: str, **kwargs: Any) -> None:
        for ledger in (self._usage, *self._parents):
            ledger.record_reply(tag, **kwargs)

    def _record_failure(self, tag: str, model: str, retries: int) -> None:
        for ledger in (self._usage, *self._parents):
            ledger.record_failure(tag, model=model, retries=retries)

    def _reserve(
        self, messages: list[dict[str, str]], settings: LLMSettings, params: Mapping[str, Any]
    ) -> tuple[int, float]:
        """Check the budget for a worst-case call and reserve it; return the reservation."""
        if self.budget.unlimited:
            return 0, 0.0
        next_tokens = _prompt_estimate(messages, params) + settings.max_tokens
        next_usd, _ = price(settings.model, next_tokens - settings.max_tokens, settings.max_tokens,
                            self.prices)
        total = self._usage.total
        self.budget.check(
            total.total_tokens + self._reserved_tokens,
            total.cost_usd + self._reserved_usd,
            next_tokens,
            next_usd,
        )
        self._reserved_tokens += next_tokens
        self._reserved_usd += next_usd
        return next_tokens, next_usd

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        settings: LLMSettings,
        *,
        tag: str = "",
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> LLMReply:
        """Return the model's reply to ``messages``.

        Args:
            messages: Chat messages (``{"role": ..., "content": ...}``).
            settings: Model and sampling settings.
            tag: Accounting tag (participant name, ``"judge"``, ...).
            tools: OpenAI-style tool schemas; sent (with ``tool_choice="auto"``) only when
                :func:`supports_tools` holds for ``settings``, otherwise ignored.

        Returns:
            The reply (from the cache when an identical call was made before).

        Raises:
            BudgetExceeded: The call could exceed the budget; it was not made.
            LLMCallError: Non-retryable error, or all retries failed.
        """
        msgs = _normalise(messages)
        params = self._request_params(settings, tools)
        # The key is needed for the cache and the call log (and seeds retry jitter).
        key = (
            self._key(settings.model, msgs, params)
            if self.cache is not None or self.call_log is not None
            else ""
        )
        reserved_tokens, reserved_usd = self._reserve(msgs, settings, params)
        started = time.perf_counter()
        try:
            if self.cache is not None:
                entry = self.cache.get(key)
                if entry is not None:
                    return self._finish(tag, key, msgs, params, entry, True, started, 0)
            entry, retries = await self._call_provider(key, msgs, settings, params, tag, started)
            if self.cache is not None:
                self.cache.put(entry)
            return self._finish(tag, key, msgs, params, entry, False, started, retries)
        finally:
            self._reserved_tokens -= reserved_tokens
            self._reserved_usd -= reserved_usd

    def _request_params(
        self, settings: LLMSettings, tools: Sequence[Mapping[str, Any]] | None
    ) -> dict[str, Any]:
        params = settings.request_params()
        if tools and supports_tools(settings):
            params["tools"] = [dict(tool) for tool in tools]
            params["tool_choice"] = "auto"
        if self.request_seed is not None and "seed" not in params and sends_seed(settings):
            params["seed"] = self.request_seed
        return params

    def _key(self, model: str, msgs: list[dict[str, str]], params: dict[str, Any]) -> str:
        """The cache key of a request made now (counts it among the view's occurrences)."""
        if self._occurrences is None:
            return cache_key(model, msgs, params)
        request = cache_key(model, msgs, params)
        occurrence = self._occurrences.get(request, 0)
        self._occurrences[request] = occurrence + 1
        return cache_key(model, msgs, params, scope=self.scope, occurrence=occurrence)

    def _finish(
        self,
        tag: str,
        key: str,
        msgs: list[dict[str, str]],
        params: dict[str, Any],
        entry: CacheEntry,
        cached: bool,
        started: float,
        retries: int,
    ) -> LLMReply:
        latency = time.perf_counter() - started
        if not entry.cost_known and self.prices:
            # A reply cached before its model had a price (llm.prices) is priced now.
            cost, known = price(entry.model, entry.prompt_tokens, entry.completion_tokens,
                                self.prices)
            entry = replace(entry, cost_usd=cost, cost_known=known)
        self._record(
            tag,
            model=entry.model,
            prompt_tokens=entry.prompt_tokens,
            completion_tokens=entry.completion_tokens,
            cost_usd=entry.cost_usd,
            cost_known=entry.cost_known,
            cached=cached,
            retries=retries,
        )
        if self.call_log is not None:
            self.call_log.write(
                tag=tag,
                model=entry.model,
                messages=msgs,
                params=params,
                reply=entry.text,
                prompt_tokens=entry.prompt_tokens,
                completion_tokens=entry.completion_tokens,
                cost_usd=entry.cost_usd,
                cost_known=entry.cost_known,
                cached=cached,
                latency_s=latency,
                retries=retries,
                cache_key=key,
                finish_reason=entry.finish_reason,
                tool_calls=entry.tool_calls,
            )
        return LLMReply(
            text=entry.text,
            model=entry.model,
            prompt_tokens=entry.prompt_tokens,
            completion_tokens=entry.completion_tokens,
            cost_usd=entry.cost_usd,
            cost_known=entry.cost_known,
            cached=cached,
            latency_s=latency,
            finish_reason=entry.finish_reason,
            tool_calls=entry.tool_calls,
        )

    async def _call_provider(
        self,
        key: str,
        msgs: list[dict[str, str]],
        settings: LLMSettings,
        params: dict[str, Any],
        tag: str,
        started: float,
    ) -> tuple[CacheEntry, int]:
        """Call litellm with retries; return the priced entry and the number of retries."""
        litellm = get_litellm()
        register_custom_model(litellm, settings.model)
        rng = None
        attempt = 0
        while True:
            try:
                async with self.limiter.slot():
                    response = await asyncio.wait_for(
                        litellm.acompletion(
                            model=settings.model,
                            messages=msgs,
                            timeout=settings.timeout_s,
                            max_retries=0,
                            **params,
                        ),
                        timeout=settings.timeout_s,
                    )
                break
            except Exception as exc:  # noqa: BLE001 - classified below
                # A missing key fails every try: never retried (litellm may call it a 5xx).
                missing = missing_credentials(exc, settings.model, params)
                if attempt >= settings.max_retries or not is_retryable(exc) or missing:
                    self._record_failure(tag, settings.model, attempt)
                    self._log_failure(tag, key, msgs, params, settings, exc, started, attempt)
                    raise LLMCallError(
                        settings.model, tag, attempt + 1, exc, missing_keys=missing
                    ) from exc
                if rng is None:
                    rng = retry_generator(
                        self.seed, key or cache_key(settings.model, msgs, params)
                    )
                delay = backoff_delay(
                    attempt, rng, base_s=self.retry_base_s, cap_s=self.retry_cap_s, exc=exc
                )
                attempt += 1
                await self._sleep(delay)
        reply = _read_response(response)
        # A count the provider did not send, or sent unusable, is estimated: budgets add them.
        prompt_tokens = reply.prompt_tokens
        if prompt_tokens is None:
            prompt_tokens = _prompt_estimate(msgs, params)
        completion_tokens = reply.completion_tokens
        if completion_tokens is None:
            completion_tokens = estimate_tokens(
                reply.text + "".join(c.name + c.arguments for c in reply.tool_calls)
            )
        cost, known = price(settings.model, prompt_tokens, completion_tokens,
                            self.prices)
        entry = CacheEntry(
            key=key,
            model=settings.model,
            response_model=reply.model or settings.model,
            text=reply.text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost,
            cost_known=known,
            finish_reason=reply.finish_reason,
            tool_calls=reply.tool_calls,
        )
        return entry, attempt

    def _log_failure(
        self,
        tag: str,
        key: str,
        msgs: list[dict[str, str]],
        params: dict[str, Any],
        settings: LLMSettings,
        exc: BaseException,
        started: float,
        retries: int,
    ) -> None:
        if self.call_log is None:
            return
        self.call_log.write(
            tag=tag,
            model=settings.model,
            messages=msgs,
            params=params,
            reply=None,
            prompt_tokens=0,
            completion_tokens=0,
            cost_usd=0.0,
            cost_known=True,
            cached=False,
            latency_s=time.perf_counter() - started,
            retries=retries,
            cache_key=key,
            error=f"{type(exc).__name__}: {exc}",
        )

    def complete_sync(
        self,
        messages: Sequence[Mapping[str, Any]],
        settings: LLMSettings,
        *,
        tag: str = "",
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> LLMReply:
        """Blocking :meth:`complete` (for scripts; not callable from a running event loop).

        Calls run on one background event loop shared by all clients of the process, so
        litellm's connection pools stay bound to a loop that lives as long as the process.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            future = asyncio.run_coroutine_threadsafe(
                self.complete(messages, settings, tag=tag, tools=tools), _background_loop()
            )
            return future.result()
        raise RuntimeError("complete_sync() called inside an event loop: await complete()")

    def close(self) -> None:
        """Close the call log (the client stays usable)."""
        if self.call_log is not None:
            self.call_log.close()
