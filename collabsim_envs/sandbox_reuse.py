"""One sandbox worker for all episodes of an environment (a speed option, on by default).

A session normally gets a fresh sandbox worker: forking it, confining it and its first
cell's first use of the interpreter cost tens of milliseconds, which in a gym environment
is paid by every episode and dominates the wall time of cheap steps. All episodes of one
environment belong to one learner, so :class:`ReusingSandboxFactory` keeps one
:class:`~collabsim.sandbox.Sandbox` and, when the next episode's session asks for its
executor, resets it (:meth:`~collabsim.sandbox.Sandbox.reset`): the working directory
holds only the new task's files, the namespace and cell count start empty, and the
process state cells can change is restored (or the worker is replaced when it cannot
be). The session's ``close`` only hands the sandbox back; :meth:`ReusingSandboxFactory.close`
(called by the environment's ``close``) ends it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collabsim.sandbox import Sandbox, SandboxLimits


class _Lease:
    """The current session's use of the shared sandbox (a ``CodeExecutor``)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox: Sandbox | None = sandbox

    def execute(self, code: str) -> Any:
        if self._sandbox is None:
            raise RuntimeError("the session's sandbox lease has ended")
        return self._sandbox.execute(code)

    @property
    def closed(self) -> bool:
        """Whether the session has handed the sandbox back."""
        return self._sandbox is None

    def close(self) -> None:
        self._sandbox = None


class ReusingSandboxFactory:
    """An executor factory handing the same sandbox, reset, to each session in turn."""

    def __init__(self) -> None:
        self._sandbox: Sandbox | None = None
        self._limits: Any = None
        self._lease: _Lease | None = None

    def __call__(self, files: Sequence[Path], limits: Any) -> _Lease:
        if self._lease is not None:
            self._lease.close()  # one session at a time: an older lease ends here
        box = self._sandbox
        if box is not None and not box.closed and limits == self._limits:
            box.reset(list(files))
        else:
            self.close()
            box = Sandbox(list(files), limits if limits is not None else SandboxLimits())
            self._sandbox, self._limits = box, limits
        self._lease = _Lease(box)
        return self._lease

    def close(self) -> None:
        """End the sandbox (idempotent); a later session gets a new one."""
        if self._lease is not None:
            self._lease.close()
            self._lease = None
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
