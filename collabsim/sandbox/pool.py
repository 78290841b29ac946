"""Sandboxes reused from one session to the next of the same owner (a job, a gym env).

A fresh sandbox worker per session costs a fork, the confinement set-up, the first use of
the interpreter's pages and the exit: about half of a scripted session's sandbox CPU. A
:class:`SandboxPool` keeps the sandboxes of finished sessions and hands them, reset
(:meth:`Sandbox.reset <collabsim.sandbox.Sandbox.reset>`), to the next sessions: each
starts with only its task's files, an empty namespace and the process state restored (see
:mod:`collabsim.sandbox.baseline`), or with a fresh worker when that is not possible. Every
kernel and policy layer of the worker stays as it is. A worker serves at most
``max_uses`` sessions, so slow growth (memory fragmentation) cannot build up.

Use the pool as the session's executor factory; a session's ``close`` hands its sandbox
back, :meth:`SandboxPool.close` ends them all. Sessions of different owners must not share
a pool.

Cells whose result decides a score (:meth:`PooledSandbox.execute_isolated`, a
collaborator's recomputation) never run in a worker that ran a session's ordinary cells:
the pool keeps a second set of sandboxes, *checkers*, used for those cells only (one cell
at a time, reset in between like the others). The agent's code never runs in a checker, so
it cannot answer a collaborator's cell; a fresh worker per such cell, as a sandbox outside
a pool gives, would cost a fork and a cold start each.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collabsim.sandbox.limits import ExecResult, SandboxLimits
from collabsim.sandbox.sandbox import Sandbox

MAX_USES = 64
"""Sessions one pooled worker serves before it is replaced."""
_CELLS, _CHECKS = "cells", "checks"
"""The two roles of pooled sandboxes: sessions' ordinary cells, and score-deciding cells."""


class PooledSandbox:
    """One session's use of a pooled sandbox (``execute`` / ``close`` like a Sandbox)."""

    def __init__(self, pool: SandboxPool, sandbox: Sandbox) -> None:
        self._pool = pool
        self._sandbox: Sandbox | None = sandbox

    @property
    def closed(self) -> bool:
        """Whether the session has handed the sandbox back."""
        return self._sandbox is None

    @property
    def sandbox(self) -> Sandbox | None:
        """The sandbox in use (None once handed back)."""
        return self._sandbox

    def execute(self, code: str) -> ExecResult:
        """Run one cell (see :meth:`Sandbox.execute`)."""
        sandbox = self._sandbox
        if sandbox is None:
            raise RuntimeError("Sandbox is closed")
        return sandbox.execute(code)

    def execute_isolated(self, code: str) -> ExecResult:
        """Run one cell in a pooled checker, a worker that never ran ordinary cells (see
        :meth:`Sandbox.execute_isolated`)."""
        sandbox = self._sandbox
        if sandbox is None:
            raise RuntimeError("Sandbox is closed")
        checker = self._pool._take(_CHECKS, sandbox.task_files, sandbox.limits)
        try:
            return sandbox.execute_isolated(code, clean=checker)
        finally:
            self._pool._give_back(checker, _CHECKS)

    def close(self) -> None:
        """Hand the sandbox back to the pool (idempotent)."""
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            self._pool._give_back(sandbox, _CELLS)


class SandboxPool:
    """Executor factory reusing sandboxes across the sessions of one owner.

    Args:
        max_idle: Sandboxes kept between sessions (the sessions in flight at once).
        max_uses: Sessions one worker serves before it is replaced.
    """

    def __init__(self, max_idle: int = 4, max_uses: int = MAX_USES) -> None:
        self.max_idle = max(0, int(max_idle))
        self.max_uses = max(1, int(max_uses))
        self._idle: list[Sandbox] = []
        self._checkers: list[Sandbox] = []  # idle sandboxes of isolated cells only
        self._uses: dict[int, int] = {}
        # The worker half of a reset runs as the sandbox is handed back, in a thread, so it
        # overlaps the owner's own work until the next session takes the sandbox.
        self._restoring: dict[int, threading.Thread] = {}
        self._lock = threading.Lock()
        self._closed = False

    def __call__(self, files: Sequence[Path], limits: Any) -> PooledSandbox:
        """A sandbox holding ``files`` for a new session (a reset one when available)."""
        limits = limits if limits is not None else SandboxLimits()
        return PooledSandbox(self, self._take(_CELLS, files, limits))

    def _take(self, role: str, files: Sequence[Path], limits: SandboxLimits) -> Sandbox:
        with self._lock:
            idle = self._idle_of(role)
            found = next((i for i, box in enumerate(idle) if box.limits == limits), None)
            sandbox = idle.pop(found) if found is not None else None
        if sandbox is not None:
            try:
                self._wait_restored(sandbox)
                sandbox.reset_files(list(files))
            except BaseException:
                self._discard(sandbox)
                raise
        else:
            sandbox = Sandbox(list(files), limits)
        with self._lock:
            self._uses[id(sandbox)] = self._uses.get(id(sandbox), 0) + 1
        return sandbox

    def _give_back(self, sandbox: Sandbox, role: str) -> None:
        with self._lock:
            idle = self._idle_of(role)
            keep = (not self._closed and not sandbox.closed and len(idle) < self.max_idle
                    and self._uses.get(id(sandbox), 0) < self.max_uses)
            if keep:
                # Started before it is listed, so whoever takes the sandbox can join it.
                restoring = threading.Thread(target=self._restore, args=(sandbox,),
                                             name="sandbox-restore", daemon=True)
                restoring.start()
                self._restoring[id(sandbox)] = restoring
                idle.append(sandbox)
                return
        self._discard(sandbox)

    def _idle_of(self, role: str) -> list[Sandbox]:
        return self._checkers if role == _CHECKS else self._idle

    @staticmethod
    def _restore(sandbox: Sandbox) -> None:
        # A failure here surfaces when the sandbox is next used (a closed sandbox raises,
        # an unrestorable worker is replaced by a fresh one).
        with contextlib.suppress(Exception):
            sandbox.restore_worker()

    def _wait_restored(self, sandbox: Sandbox) -> None:
        with self._lock:
            restoring = self._restoring.pop(id(sandbox), None)
        if restoring is not None:
            restoring.join()

    def _discard(self, sandbox: Sandbox) -> None:
        self._wait_restored(sandbox)
        with self._lock:
            self._uses.pop(id(sandbox), None)
        sandbox.close()

    def close(self) -> None:
        """Close every idle sandbox; sandboxes still in use close when handed back."""
        with self._lock:
            self._closed = True
            idle = [*self._idle, *self._checkers]
            self._idle.clear()
            self._checkers.clear()
        for sandbox in idle:
            self._discard(sandbox)

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["MAX_USES", "PooledSandbox", "SandboxPool"]
