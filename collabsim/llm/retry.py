"""Which model-call errors are retried, and how long to wait between tries.

Retried (transient): rate limits, timeouts (litellm's and our own ``asyncio`` timeout),
connection errors, 5xx (internal server error, service unavailable, bad gateway).
Not retried: authentication, permission, bad request (including context-window overflow),
not found, and anything that is not a provider error. Nor is any error of a model whose
credentials are missing from the environment (:func:`missing_credentials`): litellm raises
an ``InternalServerError`` for a missing ``OPENAI_API_KEY``, which would otherwise be retried.

Backoff is exponential with jitter: try ``k`` (0-based) waits
``min(cap, base * 2**k) * u`` with ``u`` uniform in ``[0.5, 1.0)`` drawn from a
:class:`numpy.random.Generator` seeded from the client seed and the call's cache key, so
delays are reproducible and independent of how concurrent calls interleave. A provider's
``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` header, wherever litellm put
it (:func:`retry_after_seconds`), is honoured as a lower bound (capped).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import numpy as np

from collabsim.llm.backend import get_litellm
from collabsim.llm.preflight import required_keys

_RETRYABLE_NAMES: tuple[str, ...] = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "ServiceUnavailableError",
    "InternalServerError",
    "BadGatewayError",
)
_FATAL_NAMES: tuple[str, ...] = (
    "AuthenticationError",
    "PermissionDeniedError",
    "BadRequestError",
    "NotFoundError",
    "UnprocessableEntityError",
)


_KEY_SUSPECT_NAMES: tuple[str, ...] = (
    "AuthenticationError",
    "InternalServerError",
    "APIConnectionError",
)


def is_retryable(exc: BaseException) -> bool:
    """True for transient errors worth retrying (see module docstring)."""
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return True
    litellm = get_litellm()
    fatal = tuple(getattr(litellm, n) for n in _FATAL_NAMES if hasattr(litellm, n))
    if isinstance(exc, fatal):
        return False
    retryable = tuple(getattr(litellm, n) for n in _RETRYABLE_NAMES if hasattr(litellm, n))
    return isinstance(exc, retryable)


def missing_credentials(exc: BaseException, model: str,
                        params: Mapping[str, Any] | None = None) -> list[str]:
    """The credential variables ``model`` needs and the environment lacks, when ``exc`` may
    be due to them (:func:`collabsim.llm.preflight.required_keys`, the pre-flight's rule).

    Only errors raised without a provider's verdict on the request count (litellm's
    ``InternalServerError`` and ``APIConnectionError``, raised for a missing
    ``OPENAI_API_KEY`` before any request) and ``AuthenticationError``: a rate limit or a
    timeout means the request was made.

    Args:
        exc: The call's error.
        model: The model called.
        params: The call's request parameters (an ``api_base`` there: no key is required).
    """
    litellm = get_litellm()
    suspects = tuple(getattr(litellm, n) for n in _KEY_SUSPECT_NAMES if hasattr(litellm, n))
    if not isinstance(exc, suspects):
        return []
    return required_keys(model, params)


def retry_generator(seed: int, key: str) -> np.random.Generator:
    """A generator for one call's backoff jitter, seeded from (seed, call key)."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _header(headers: Any, name: str) -> Any:
    """Case-insensitive header lookup in a dict, :class:`httpx.Headers` or similar."""
    if headers is None:
        return None
    try:
        items = headers.items()
    except AttributeError:
        return None
    for key, value in items:
        if str(key).lower() == name:
            return value
    return None


def _seconds(value: Any, *, scale: float = 1.0, dates: bool = False) -> float | None:
    try:
        return max(0.0, float(value) * scale)
    except (TypeError, ValueError):
        pass
    if not dates:
        return None
    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def retry_after_seconds(exc: BaseException) -> float | None:
    """The wait a provider asked for with ``exc``, in seconds, if any.

    Headers are looked for where litellm leaves them: ``exc.headers``,
    ``exc.response.headers`` and ``exc.litellm_response_headers`` (the only place for
    ``deepseek/`` and ``hosted_vllm/`` models, whose ``response`` carries no headers).
    ``retry-after-ms`` (milliseconds) wins over ``retry-after`` (seconds or an HTTP date).
    """
    try:
        response = getattr(exc, "response", None)
    except Exception:  # noqa: BLE001 - some exception types compute .response lazily
        response = None
    sources = (
        getattr(exc, "headers", None),
        getattr(response, "headers", None) if response is not None else None,
        getattr(exc, "litellm_response_headers", None),
    )
    for headers in sources:
        millis = _seconds(_header(headers, "retry-after-ms"), scale=0.001)
        if millis is not None:
            return millis
        seconds = _seconds(_header(headers, "retry-after"), dates=True)
        if seconds is not None:
            return seconds
    return None


def backoff_delay(
    attempt: int,
    rng: np.random.Generator,
    *,
    base_s: float,
    cap_s: float,
    exc: BaseException | None = None,
) -> float:
    """Seconds to wait before retry ``attempt + 1``.

    Args:
        attempt: 0-based index of the failed try.
        rng: The call's jitter generator (:func:`retry_generator`).
        base_s: Delay scale of the first retry.
        cap_s: Maximum delay.
        exc: The error, whose ``Retry-After`` (if any) is a lower bound.

    Returns:
        The delay in seconds.
    """
    delay = min(cap_s, base_s * (2.0**attempt)) * float(rng.uniform(0.5, 1.0))
    hinted = retry_after_seconds(exc) if exc is not None else None
    if hinted is not None:
        delay = max(delay, min(cap_s, hinted))
    return delay
