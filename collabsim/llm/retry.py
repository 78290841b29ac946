"""Which model-call errors are retried, and how long to wait between tries.

Retried (transient): rate limits, timeouts (litellm's and our own ``asyncio`` timeout),
connection errors, 5xx (internal server error, service unavailable, bad gateway).
Not retried: authentication, permission, bad request (including context-window overflow),
not found, and anything that is not a provider error.

Backoff is exponential with jitter: try ``k`` (0-based) waits
``min(cap, base * 2**k) * u`` with ``u`` uniform in ``[0.5, 1.0)`` drawn from a
:class:`numpy.random.Generator` seeded from the client seed and the call's cache key, so
delays are reproducible and independent of how concurrent calls interleave. A provider's
``Retry-After`` header, when present, is honoured as a lower bound (capped).
"""

from __future__ import annotations

import asyncio
import hashlib

import numpy as np

from collabsim.llm.backend import get_litellm

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


def retry_generator(seed: int, key: str) -> np.random.Generator:
    """A generator for one call's backoff jitter, seeded from (seed, call key)."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def retry_after_seconds(exc: BaseException) -> float | None:
    """The ``Retry-After`` seconds a provider sent with ``exc``, if any."""
    headers = getattr(exc, "headers", None) or {}
    response = getattr(exc, "response", None)
    if not headers and response is not None:
        headers = getattr(response, "headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
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
