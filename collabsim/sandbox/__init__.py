"""Out-of-process Python sandbox for participants' ``EXECUTE_CODE`` cells (Linux only).

Public API: :class:`Sandbox`, :class:`SandboxLimits`, :class:`ExecResult` (statuses in
:data:`EXEC_STATUSES`), plus :class:`SandboxError`, :func:`set_preload_modules`,
:func:`set_preload_files`, :func:`add_preload_files`, :func:`shutdown_zygote` and
:func:`zygote_pid` for infrastructure control.

Design (see the module docstrings for details):

* One fork server ("zygote") per parent process, started lazily with a clean environment and
  numpy/pandas imported; each :class:`Sandbox` gets a worker forked from it (a few ms) that
  keeps a notebook-like namespace across cells.
* Limits: wall clock per cell (soft interrupt in the worker, hard kill by the parent after a
  grace period), CPU per cell (timer in the worker; RLIMIT_CPU moved by the parent before each
  cell and CPU watched by the parent; workers are stopped between cells), address space
  (RLIMIT_AS: ``memory_mb`` on top of the pre-loaded interpreter), file size, disk use of the
  session (``disk_mb``: the working directory plus files the worker removed but keeps open,
  and ``max_files`` entries; checked by the parent after and during each cell, by a scan
  that stops at the limit), output size.
* Isolation: scrubbed environment, private working directory, an audit-hook policy with
  readable errors, and kernel layers (own uid/gid without groups when started as root;
  seccomp-BPF: no fork/exec, no sockets, no ``connect``/``sendmsg``/addressed ``sendto``
  (no unix socket reached by its path), no changing rlimits, no System V IPC or POSIX
  message queues; Landlock: file system confined
  to the working directory plus read-only system/Python directories and the worker's own
  ``/proc`` entry, no TCP, no signals to other processes; all capabilities dropped). Replies
  carry a per-request nonce; a set-up failure reaches the parent only in the zygote's
  report of the worker's end, sealed with a key no worker holds; every message is bounded
  in size and nesting before it is decoded (:mod:`collabsim.sandbox.wire`); stale working directories of killed runs are swept at start-up.
  Workers die with their zygote (PR_SET_PDEATHSIG) and the zygote with its parent (control
  socket EOF).
* Score-deciding cells: :meth:`Sandbox.execute_isolated` runs a cell (a collaborator's
  recomputation) in a new worker and working directory, so nothing that ran in the
  session's worker can answer or change it; in a :class:`SandboxPool` such cells run in
  pooled *checkers* that never run ordinary cells.
* Reuse: :meth:`Sandbox.reset` / :class:`SandboxPool` let one worker serve the sessions of
  one owner in turn (a job, a gym env), each starting clean (files, namespace, process
  state restored; a worker whose state cannot be put back is replaced; see
  :mod:`collabsim.sandbox.baseline`).
* Failures are results, never exceptions: a cell that kills its worker is reported (status
  ``timeout``/``cpu_limit``/``memory_limit``/``disk_limit``/``crashed``) and the next cell
  gets a fresh worker (its namespace is lost, which the error says).
"""

from collabsim.sandbox.forkserver import (
    SandboxError,
    add_preload_files,
    set_preload_files,
    set_preload_modules,
    shutdown_zygote,
    zygote_pid,
)
from collabsim.sandbox.limits import EXEC_STATUSES, ExecResult, ExecStatus, SandboxLimits
from collabsim.sandbox.pool import PooledSandbox, SandboxPool
from collabsim.sandbox.sandbox import Sandbox

__all__ = [
    "EXEC_STATUSES",
    "ExecResult",
    "ExecStatus",
    "PooledSandbox",
    "Sandbox",
    "SandboxError",
    "SandboxLimits",
    "SandboxPool",
    "add_preload_files",
    "set_preload_files",
    "set_preload_modules",
    "shutdown_zygote",
    "zygote_pid",
]
