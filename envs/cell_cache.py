"""Memoised execution of the self-contained analysis cells (a training speed option).

The macro actions' analysis cells (:func:`~collabsim.participants.cells.inspect_cell`,
:func:`~collabsim.participants.cells.compute_cell`) load their data themselves and print a
result that depends only on the task's files and the code, so a learner that runs the same
cell in thousands of episodes can reuse its first output. :class:`CachingExecutorFactory`
wraps the real sandbox: a cell marked as self-contained whose (files, code) was run before
returns the recorded output without a sandbox; anything else (and every first run) goes to a
real sandbox, created only when needed. Outputs are the sandbox's own, so episodes are the
same as without the cache; only the wall time changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabsim.participants.cells import COMPUTE_MARK, INSPECT_MARK
from collabsim.session.config import CodeExecutor, default_executor_factory


@dataclass(frozen=True)
class CachedResult:
    """A recorded execution result."""

    output: str
    error: str | None
    status: str


class _CachingExecutor:
    def __init__(self, files: Sequence[Path], limits: Any, store: dict,
                 inner: Callable[[Sequence[Path], Any], CodeExecutor]) -> None:
        self._files, self._limits, self._store = list(files), limits, store
        self._inner = inner
        self._real: CodeExecutor | None = None
        self.closed = False

    def execute(self, code: str) -> Any:
        cacheable = code.startswith((COMPUTE_MARK, INSPECT_MARK))
        key = (tuple(str(f) for f in self._files), code)
        if cacheable and key in self._store:
            return self._store[key]
        if self._real is None:
            self._real = self._inner(self._files, self._limits)
        result = self._real.execute(code)
        if cacheable and result.status == "ok":
            self._store[key] = CachedResult(result.output, result.error, result.status)
        return result

    def close(self) -> None:
        if self._real is not None:
            self._real.close()
        self.closed = True


class CachingExecutorFactory:
    """An executor factory sharing one cache of self-contained cell outputs (see module).

    Args:
        inner: Creates the real executor when a cell is not in the cache (default: a new
            sandbox).
    """

    def __init__(
        self, inner: Callable[[Sequence[Path], Any], CodeExecutor] | None = None
    ) -> None:
        self.store: dict[tuple[tuple[str, ...], str], CachedResult] = {}
        self.inner = inner or default_executor_factory

    def __call__(self, files: Sequence[Path], limits: Any) -> CodeExecutor:
        return _CachingExecutor(files, limits, self.store, self.inner)
