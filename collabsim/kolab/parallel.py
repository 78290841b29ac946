"""Spread independent pieces of work (cross-validation folds) over processes.

:func:`fork_map` runs ``fn(state, item)`` for every item, in forked worker processes when
more than one job is asked for, and returns the results in the order of ``items`` whatever
order they finish in, so results do not depend on the number of jobs. Forked workers
inherit ``state`` without pickling it; only items and results cross between processes.
Each worker (and the serial path) limits BLAS to one thread: the problems are small, and
BLAS threads on a shared machine slow them down.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from threadpoolctl import threadpool_limits

T = TypeVar("T")
R = TypeVar("R")

_WORK: tuple[Callable[[Any, Any], Any], Any] | None = None


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _run(indexed: tuple[int, Any]) -> tuple[int, Any]:
    assert _WORK is not None
    fn, state = _WORK
    with threadpool_limits(limits=1):
        return indexed[0], fn(state, indexed[1])


def fork_map(
    fn: Callable[[Any, T], R],
    state: Any,
    items: Sequence[T],
    *,
    jobs: int = 1,
    on_done: Callable[[], None] | None = None,
) -> list[R]:
    """``[fn(state, item) for item in items]``, over ``jobs`` forked processes.

    Args:
        fn: A module-level function (it runs in the workers).
        state: Shared read-only input, inherited by the forked workers.
        items: One piece of work each.
        jobs: Worker processes; 1 (or a single item, or no ``fork`` on this platform)
            runs everything in this process.
        on_done: Called once per finished item (e.g. a progress bar update).
    """
    global _WORK
    results: list[Any] = [None] * len(items)
    serial = (
        jobs <= 1 or len(items) <= 1 or "fork" not in multiprocessing.get_all_start_methods()
    )
    if serial:
        with threadpool_limits(limits=1):
            for pos, item in enumerate(items):
                results[pos] = fn(state, item)
                if on_done is not None:
                    on_done()
        return results
    _WORK = (fn, state)
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(jobs, len(items))) as pool:
            for pos, value in pool.imap_unordered(_run, list(enumerate(items))):
                results[pos] = value
                if on_done is not None:
                    on_done()
    finally:
        _WORK = None
    return results


__all__ = ["default_jobs", "fork_map"]
