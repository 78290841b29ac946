"""Concurrency and request-rate limits for model calls, and bounded gathering of sessions.

* :class:`CallLimiter` bounds the number of provider calls in flight (``max_concurrency``)
  and, optionally, their start rate (``requests_per_minute``, evenly spaced starts). Its
  asyncio primitives are created per event loop, so one limiter serves successive
  ``asyncio.run`` calls (e.g. :meth:`LLMClient.complete_sync`).
* :func:`gather_bounded` runs many coroutines (typically whole sessions) with at most
  ``max_concurrency`` in flight, returning results in input order.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar

T = TypeVar("T")


class _LoopState:
    """The asyncio primitives of one limiter on one event loop."""

    def __init__(self, max_concurrency: int) -> None:
        self.semaphore = asyncio.Semaphore(max_concurrency)
        self.rate_lock = asyncio.Lock()
        self.next_start = 0.0


class CallLimiter:
    """Bounds calls in flight and their start rate.

    Args:
        max_concurrency: Maximum calls in flight at once (>= 1).
        requests_per_minute: Maximum call starts per minute (None = no rate limit).
    """

    def __init__(self, max_concurrency: int = 8, requests_per_minute: float | None = None) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError(f"requests_per_minute must be > 0, got {requests_per_minute}")
        self.max_concurrency = max_concurrency
        self.requests_per_minute = requests_per_minute
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._states.get(loop)
        if state is None:
            state = _LoopState(self.max_concurrency)
            self._states[loop] = state
        return state

    async def _wait_for_rate(self, state: _LoopState) -> None:
        if self.requests_per_minute is None:
            return
        interval = 60.0 / self.requests_per_minute
        loop = asyncio.get_running_loop()
        async with state.rate_lock:
            now = loop.time()
            start = max(now, state.next_start)
            state.next_start = start + interval
        if start > now:
            await asyncio.sleep(start - now)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one call slot (waits for capacity and for the rate limit)."""
        state = self._state()
        async with state.semaphore:
            await self._wait_for_rate(state)
            yield


async def gather_bounded(
    factories: Sequence[Callable[[], Awaitable[T]]],
    max_concurrency: int,
) -> list[T]:
    """Run coroutine factories with at most ``max_concurrency`` in flight.

    Args:
        factories: Zero-argument callables, each returning an awaitable (e.g.
            ``lambda: run_session(...)``); a coroutine is only created when a slot is free.
        max_concurrency: Maximum awaitables in flight (>= 1).

    Returns:
        Results in the order of ``factories``. The first exception propagates after the
        others finished (callers that want a sweep to survive failures catch inside the
        factory).
    """
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    semaphore = asyncio.Semaphore(max_concurrency)

    async def run_one(factory: Callable[[], Awaitable[T]]) -> T:
        async with semaphore:
            return await factory()

    results = await asyncio.gather(*(run_one(f) for f in factories), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return list(results)  # type: ignore[arg-type]
