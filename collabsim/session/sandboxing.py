"""Running a session's code cells: the executor is created lazily and its failures contained.

A broken sandbox never raises into the session: a failure to create or call the executor
becomes the cell's output (``[sandbox failure] ...``) with ``ok = False``. Such a failure (or
a result the executor marks ``infrastructure``, e.g. a worker that could not start) is a
failure of the infrastructure, not of the participant's code: :attr:`CellRunner.infra_failure`
records it, and the session then ends with status ``infra_error``
(:mod:`collabsim.session.orchestrator`), which is retried and never scored. :class:`CellRunner`
offers the same calls blocking (gym envs) and off the event loop (``run_session``).

A collaborator's cell decides a score (its recomputation is what it approves or objects
with), so it is a :class:`CellCall` with ``isolated`` set: an executor offering
``execute_isolated`` (the real sandbox) runs it in a new worker that no earlier cell touched,
where the agent's code can neither answer it nor change its files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabsim.session.config import CodeExecutor, ExecutionResult, ExecutorFactory

CodeRun = tuple[str, bool]
"""What running a cell gave: its output text and whether it succeeded."""


@dataclass(frozen=True)
class CellCall:
    """A cell to run for a session.

    Attributes:
        code: The cell's source.
        isolated: Run it where no earlier cell of the session ran (a collaborator's cell,
            whose result decides a score); executors without ``execute_isolated`` run it
            like any cell.
    """

    code: str
    isolated: bool = False


def code_run(result: ExecutionResult) -> CodeRun:
    """Output text (output, error or status marker) and success of one executed cell."""
    parts = [str(result.output or "")]
    if result.error:
        parts.append(str(result.error))
    if result.status != "ok" and not result.error:
        parts.append(f"[{result.status}]")
    return "\n".join(p for p in parts if p).strip("\n"), result.status == "ok"


def _failure(exc: Exception) -> str:
    return f"[sandbox failure] {type(exc).__name__}: {exc}"


def _entry(executor: CodeExecutor, cell: CellCall | str) -> tuple[Any, str]:
    """The executor's method for ``cell`` and its code."""
    if isinstance(cell, str):
        return executor.execute, cell
    isolated = getattr(executor, "execute_isolated", None) if cell.isolated else None
    return (isolated if callable(isolated) else executor.execute), cell.code


class CellRunner:
    """The session's code executor, created at the first cell.

    Args:
        factory: ``(files, limits) -> CodeExecutor``.
        files: The task's data files.
        limits: Sandbox limits passed to the factory.
    """

    def __init__(self, factory: ExecutorFactory, files: Sequence[Path], limits: Any) -> None:
        self.factory = factory
        self.files = list(files)
        self.limits = limits
        self.executor: CodeExecutor | None = None
        #: The first failure of the sandbox itself (not of the cell's code), if any.
        self.infra_failure: str | None = None

    def _infra(self, text: str) -> CodeRun:
        if self.infra_failure is None:
            self.infra_failure = text
        return text, False

    def _checked(self, result: ExecutionResult) -> CodeRun:
        ran = code_run(result)
        if getattr(result, "infrastructure", False):
            return self._infra(ran[0] or "[sandbox failure]")
        return ran

    def run(self, cell: CellCall | str) -> CodeRun:
        """Run one cell, blocking."""
        try:
            if self.executor is None:
                self.executor = self.factory(self.files, self.limits)
            run, code = _entry(self.executor, cell)
            result = run(code)
        except Exception as exc:  # noqa: BLE001 - a broken sandbox must not end the session
            return self._infra(_failure(exc))
        return self._checked(result)

    async def arun(self, cell: CellCall | str) -> CodeRun:
        """Run one cell in a worker thread."""
        try:
            if self.executor is None:
                self.executor = await asyncio.to_thread(self.factory, self.files, self.limits)
            run, code = _entry(self.executor, cell)
            result = await asyncio.to_thread(run, code)
        except Exception as exc:  # noqa: BLE001 - a broken sandbox must not end the session
            return self._infra(_failure(exc))
        return self._checked(result)

    def close(self) -> None:
        """Close the executor, if one was created."""
        if self.executor is not None:
            self.executor.close()

    async def aclose(self) -> None:
        """Close the executor in a worker thread."""
        if self.executor is not None:
            await asyncio.to_thread(self.executor.close)
