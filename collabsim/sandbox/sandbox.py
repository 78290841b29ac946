"""Parent side of the code sandbox: :class:`Sandbox`.

Linux only (fork server, pidfds, ``prctl``, seccomp). One zygote per parent process is started
lazily with a clean environment (:mod:`collabsim.sandbox.forkserver`); each :class:`Sandbox`
gets its own worker forked from it, so creating a sandbox costs a fork (a few ms) instead of
a Python + pandas start-up.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collabsim.sandbox.forkserver import shutdown_zygote, spawn_worker
from collabsim.sandbox.handle import WorkerHandle
from collabsim.sandbox.limits import EXEC_STATUSES, ExecResult, ExecStatus, SandboxLimits
from collabsim.sandbox.workdirs import disk_usage, make_workdir, remove_tree, sweep_once

_DEFAULT_LIMITS = SandboxLimits()
MAX_CODE_CHARS = 1_000_000
"""Longest cell :meth:`Sandbox.execute` accepts (longer ones give an ``error`` result)."""
_RESTART_NOTE = (
    "The Python process was restarted: variables and imports from earlier cells are lost."
)
_FORGED = (
    "The sandbox worker sent a reply or report that does not belong to this cell (written "
    f"to its socket by a cell?); the process was killed. {_RESTART_NOTE}"
)


# -- Sandbox -------------------------------------------------------------------------------
_live: weakref.WeakSet[Sandbox] = weakref.WeakSet()


class Sandbox:
    """A private Python worker with a persistent namespace for one session.

    Args:
        files: Task files, copied read-only into a private working directory under their base
            names (directories are copied recursively).
        limits: Per-cell resource limits.

    Raises:
        FileNotFoundError: A file does not exist.
        ValueError: Two files share a base name.
        SandboxError: The worker could not be started.

    Example:
        >>> with Sandbox([Path("data.csv")]) as sb:
        ...     sb.execute("df = pd.read_csv('data.csv')")
        ...     print(sb.execute("print(len(df))").output)
    """

    def __init__(self, files: Sequence[Path], limits: SandboxLimits = _DEFAULT_LIMITS) -> None:
        self.limits = limits
        self._owner = os.getpid()
        self._lock = threading.RLock()
        self._closed = False
        self._cells = 0
        self._worker: WorkerHandle | None = None
        self._files = tuple(Path(f) for f in files)
        sweep_once()  # workdirs left by killed runs
        self._workdir = make_workdir()
        try:
            self._populate(self._files)
            self._disk_base = disk_usage(self._workdir)
            self._worker = self._spawn()
        except BaseException:
            self._closed = True
            remove_tree(self._workdir)
            raise
        _live.add(self)

    # -- public ---------------------------------------------------------------------------
    @property
    def workdir(self) -> Path:
        """The private working directory (the code's cwd)."""
        return self._workdir

    @property
    def task_files(self) -> tuple[Path, ...]:
        """The task files the working directory started with (or was last reset to)."""
        return self._files

    @property
    def pid(self) -> int | None:
        """Pid of the current worker process (``None`` between a crash and the next cell)."""
        worker = self._worker
        return worker.pid if worker is not None else None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def execute(self, code: str) -> ExecResult:
        """Run one cell in the persistent namespace; never raises on user code.

        Args:
            code: Python source. A trailing expression's value is printed (notebook style).

        Returns:
            The cell's :class:`ExecResult`.

        Raises:
            RuntimeError: The sandbox is closed (or used from a forked child process).
        """
        return self._request("exec", code)

    def execute_isolated(self, code: str, clean: Sandbox | None = None) -> ExecResult:
        """Run one cell where nothing that ran in this sandbox before can reach it.

        For cells whose result decides a score (a collaborator's recomputation): the cell
        gets a new worker forked from the fork server, in a new working directory holding
        only the task files, and both are removed afterwards. Code that ran in this
        sandbox's worker (e.g. a cell that replaced the worker's reply function, or one that
        rewrote a task file) cannot answer or change it. The cell counts in the session's
        numbering (``<cell N>`` in tracebacks) but neither sees nor changes the session's
        namespace or working directory.

        Args:
            code: Python source, as for :meth:`execute`.
            clean: Run the cell in this sandbox instead of a new one (a
                :class:`~collabsim.sandbox.SandboxPool` passes a reset sandbox that only
                ever ran such cells, holding this sandbox's task files); left open.

        Returns:
            The cell's :class:`ExecResult` (a worker that cannot start: status ``crashed``).

        Raises:
            RuntimeError: The sandbox is closed (or used from a forked child process).
        """
        with self._lock:
            self._check_usable()
            start = time.monotonic()
            own = clean is None
            if clean is None:
                try:
                    clean = Sandbox(self._files, self.limits)
                except Exception as exc:  # noqa: BLE001 - reported as a result, never raised
                    self._cells += 1
                    return self._result(
                        "", f"sandbox worker could not start: {exc}", "crashed", False, start
                    )
            try:
                clean._cells = self._cells
                result = clean.execute(code)
                self._cells = clean._cells
            finally:
                if own:
                    clean.close()
            return result

    def reset(self, files: Sequence[Path]) -> None:
        """Make the sandbox fresh for a new session of the same owner, keeping its worker.

        The working directory is emptied and gets ``files``; the worker's namespace, cell
        count and process state go back to how a new worker starts (see
        :mod:`collabsim.sandbox.baseline` for what is restored). When the worker cannot be
        restored (e.g. a cell left a thread running) it is replaced by a fresh one. Saves
        the fork, the set-up and the first-use costs of a new worker (tens of ms), so a gym
        environment reuses its sandbox across episodes; sessions of different owners must
        use different sandboxes.

        Raises:
            FileNotFoundError: A file does not exist.
            ValueError: Two files share a base name.
            RuntimeError: The sandbox is closed.
        """
        self.restore_worker()
        self.reset_files(files)

    def restore_worker(self) -> None:
        """The worker half of :meth:`reset`: namespace and process state back to a new
        worker's (a worker that cannot be restored is replaced at the next cell).

        Raises:
            RuntimeError: The sandbox is closed.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("Sandbox is closed")
            if self._worker is not None:
                restored = self._request("reset", "")
                if restored.status != "ok":
                    self._discard_worker(kill=True)

    def reset_files(self, files: Sequence[Path]) -> None:
        """The working-directory half of :meth:`reset`: emptied, then given ``files``.

        Raises:
            FileNotFoundError: A file does not exist.
            ValueError: Two files share a base name.
            RuntimeError: The sandbox is closed.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("Sandbox is closed")
            self._clear_workdir()
            self._files = tuple(Path(f) for f in files)
            self._cells = 0
            self._populate(self._files)
            self._disk_base = disk_usage(self._workdir)

    def _check_usable(self) -> None:
        """Raise if the sandbox is closed or used from a forked child (caller holds the lock)."""
        if self._closed:
            raise RuntimeError("Sandbox is closed")
        if os.getpid() != self._owner:
            raise RuntimeError("a Sandbox cannot be used from a forked child process")

    def _request(self, op: str, code: str) -> ExecResult:
        """Send one request (``exec`` a cell, ``reset`` the worker) and turn its outcome into
        a result; a worker is started first when there is none. Never raises for the cell."""
        with self._lock:
            self._check_usable()
            start = time.monotonic()
            if len(code) > MAX_CODE_CHARS:
                error = f"ValueError: the cell is too long ({len(code)} > {MAX_CODE_CHARS} chars)"
                return self._result("", error, "error", False, start)
            if self._worker is None:
                failed = self._start_worker(start)
                if failed is not None:
                    return failed
            worker = self._worker
            msg, nonce, cpu_start = self._exchange(worker, op, code)
            return self._outcome(worker, msg, nonce, cpu_start, start)

    def _start_worker(self, start: float) -> ExecResult | None:
        """Spawn the worker; the ``crashed`` (infrastructure) result when it cannot start."""
        try:
            self._worker = self._spawn()
        except Exception as exc:  # noqa: BLE001 - reported as a result, never raised
            return self._result(
                "", f"sandbox worker could not start: {exc}", "crashed", False, start,
                infrastructure=True,
            )
        return None

    def _exchange(
        self, worker: WorkerHandle, op: str, code: str
    ) -> tuple[dict[str, Any] | None, str, float | None]:
        """Arm the limits, resume the worker, send the request and wait for what comes back.

        Returns:
            The message (None: the hard wall-clock deadline passed), the request's nonce and
            the worker's CPU time before the request (None when unknown).
        """
        # the deadline starts after a (re)spawn: a cold zygote start is not the cell's time
        hard_deadline = (
            time.monotonic() + self.limits.wall_seconds + _grace(self.limits.wall_seconds)
        )
        cpu_start = worker.cpu_seconds()
        if cpu_start is not None:
            worker.limit_cpu(cpu_start, self.limits.cpu_seconds)
        worker.resume()
        if op == "exec":
            self._cells += 1
        # a fresh random tag per request: a reply queued before the request (forged by an
        # earlier cell, or left over) cannot match it
        nonce = os.urandom(8).hex()
        request = {"op": op, "code": code, "cell": self._cells, "nonce": nonce}
        msg: dict[str, Any] | None
        if worker.send(request, hard_deadline):
            msg = worker.receive(hard_deadline, lambda: self._watch(worker, cpu_start))
        else:  # the worker is gone (or wedged): collect what is left, then restart it
            msg = worker.receive(min(hard_deadline, time.monotonic() + 0.5)) or {"op": "eof"}
        return msg, nonce, cpu_start

    def _outcome(
        self,
        worker: WorkerHandle,
        msg: dict[str, Any] | None,
        nonce: str,
        cpu_start: float | None,
        start: float,
    ) -> ExecResult:
        """The result of a request from what came back: a reply, a watchdog verdict, nothing
        by the hard deadline, or the worker's end."""
        if msg is None:  # hard wall-clock timeout: the worker ignored the soft interrupt
            self._discard_worker(kill=True)
            error = (
                f"TimeoutError: the cell exceeded the wall-clock limit of "
                f"{self.limits.wall_seconds:g} s and was killed. {_RESTART_NOTE}"
            )
            return self._result("", error, "timeout", False, start)
        if msg.get("op") is None:
            return self._reply(worker, msg, nonce, start)
        if msg.get("op") == "garbage":  # neither a reply nor the zygote's sealed report
            self._discard_worker(kill=True)
            return self._result("", _FORGED, "crashed", False, start)
        if msg.get("op") == "watch":
            self._discard_worker(kill=True)
            if msg["status"] == "disk_limit":
                return self._disk_limit(start, str(msg["over"]))
            return self._result("", self._cpu_error(), "cpu_limit", False, start)
        return self._ended(msg, cpu_start, start)

    def _reply(
        self, worker: WorkerHandle, msg: dict[str, Any], nonce: str, start: float
    ) -> ExecResult:
        """The result of the worker's reply (a reply without the request's nonce is forged:
        the worker is replaced)."""
        worker.pause()
        if msg.get("nonce") != nonce:
            self._discard_worker(kill=True)
            return self._result("", _FORGED, "crashed", False, start)
        over = self._over_disk_quota()
        if over is not None:
            return self._disk_limit(start, over)
        return self._from_worker(msg, start)

    def _ended(self, msg: dict[str, Any], cpu_start: float | None, start: float) -> ExecResult:
        """The result when the worker failed its set-up, died or closed the connection.

        Only the zygote's sealed report (never a message a cell could write) says that the
        set-up failed, the one outcome blamed on the sandbox rather than the cell.
        """
        report = self._discard_worker(kill=True, want_report=msg.get("op") != "exit_status")
        report = msg if msg.get("op") == "exit_status" else report
        if report is not None and report.get("setup_error") is not None:
            detail = f"sandbox worker set-up failed: {report['setup_error']}"
            return self._result("", detail, "crashed", False, start, infrastructure=True)
        over = self._over_disk_quota()
        if over is not None:
            return self._disk_limit(start, over)
        status, error = self._classify_death(report, cpu_start)
        return self._result("", error, status, False, start)

    def close(self) -> None:
        """Kill the worker and remove the working directory; safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            _live.discard(self)
            if os.getpid() != self._owner:  # inherited through fork: not ours to clean up
                if self._worker is not None:
                    self._worker.close()
                    self._worker = None
                return
            self._discard_worker(kill=True)
            remove_tree(self._workdir)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finaliser
            self.close()

    # -- internals ------------------------------------------------------------------------
    def _populate(self, files: Sequence[Path]) -> None:
        seen: set[str] = set()
        for item in files:
            src = Path(item)
            if not src.exists():
                raise FileNotFoundError(f"sandbox file not found: {src}")
            if src.name in seen:
                raise ValueError(f"two sandbox files share the base name {src.name!r}")
            seen.add(src.name)
            dst = self._workdir / src.name
            if src.is_dir():
                shutil.copytree(src, dst)
                _readable_by_all(dst)
            else:
                shutil.copyfile(src, dst)
                os.chmod(dst, 0o444)

    def _spawn(self) -> WorkerHandle:
        return spawn_worker(self._workdir, self.limits)

    def _discard_worker(self, kill: bool, want_report: bool = False) -> dict[str, Any] | None:
        worker, self._worker = self._worker, None
        if worker is None:
            return None
        report = worker.kill(want_report) if kill else None
        worker.close()
        return report

    def _from_worker(self, msg: dict[str, Any], start: float) -> ExecResult:
        status = msg.get("status")
        if status not in EXEC_STATUSES:
            status = "error"
        output = msg.get("output")
        output = output if isinstance(output, str) else ""
        error = msg.get("error")
        error = error if isinstance(error, str) or error is None else str(error)
        truncated = bool(msg.get("truncated"))
        cap = self.limits.output_chars + 200
        if len(output) > cap:  # a misbehaving worker cannot flood the caller
            output, truncated = output[:cap], True
        return self._result(output, error, status, truncated, start)

    def _watch(self, worker: WorkerHandle, cpu_start: float | None) -> dict[str, Any] | None:
        """Checks made from outside while a cell runs (they hold without the audit hook)."""
        if cpu_start is not None:
            used = worker.cpu_seconds()
            if used is not None and used - cpu_start > self.limits.cpu_seconds + 1.0:
                return {"op": "watch", "status": "cpu_limit"}
        over = self._over_disk_quota()
        if over is not None:
            return {"op": "watch", "status": "disk_limit", "over": over}
        return None

    def _over_disk_quota(self) -> str | None:
        """The limit the session's files went past (``disk_mb`` or ``max_files``), or None.

        The scan stops past ``max_files`` entries: its cost never grows with what a cell
        created beyond the limit.
        """
        most = self._disk_base.entries + self.limits.max_files
        usage = disk_usage(self._workdir, max_entries=most)
        if usage.entries > most:
            return "max_files"
        added = usage.bytes - self._disk_base.bytes
        worker = self._worker
        if worker is not None:  # files removed while still open hold their space too
            added += worker.unlinked_bytes()
        return "disk_mb" if added > self.limits.disk_mb * 1024 * 1024 else None

    def _disk_limit(self, start: float, over: str) -> ExecResult:
        """Kill the worker and restore the working directory to the task files."""
        self._discard_worker(kill=True)
        self._clear_workdir()
        self._populate(self._files)
        self._disk_base = disk_usage(self._workdir)
        limit = (
            f"the limit of {self.limits.max_files} files and folders"
            if over == "max_files"
            else f"the disk limit of {self.limits.disk_mb} MB"
        )
        error = (
            f"DiskQuotaExceeded: the session's files grew past {limit}; the process was "
            f"killed and the working directory was reset to the task files. {_RESTART_NOTE}"
        )
        return self._result("", error, "disk_limit", False, start)

    def _clear_workdir(self) -> None:
        for entry in list(self._workdir.iterdir()):
            remove_tree(entry)

    def _cpu_error(self) -> str:
        return (
            f"CpuLimitExceeded: the cell used more than {self.limits.cpu_seconds:g} s of "
            f"CPU time and the process was killed. {_RESTART_NOTE}"
        )

    def _classify_death(
        self, report: dict[str, Any] | None, cpu_start: float | None = None
    ) -> tuple[ExecStatus, str]:
        if report is None:
            return "crashed", f"The Python process died unexpectedly. {_RESTART_NOTE}"
        sig = report.get("signal")
        code = report.get("exitcode")
        cpu = float(report.get("cpu_seconds") or 0.0) - (cpu_start or 0.0)
        rss_mb = float(report.get("maxrss_kb") or 0) / 1024
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= self.limits.cpu_seconds):
            return "cpu_limit", self._cpu_error()
        if sig == signal.SIGKILL and rss_mb >= 0.5 * self.limits.memory_mb:
            return "memory_limit", (
                f"MemoryError: the process was killed after using about {rss_mb:.0f} MB "
                f"(limit {self.limits.memory_mb} MB). {_RESTART_NOTE}"
            )
        if sig is not None:
            try:
                name = signal.Signals(int(sig)).name
            except ValueError:
                name = f"signal {sig}"
            return "crashed", f"The Python process crashed ({name}). {_RESTART_NOTE}"
        return "crashed", f"The Python process exited with code {code}. {_RESTART_NOTE}"

    @staticmethod
    def _result(
        output: str,
        error: str | None,
        status: str,
        truncated: bool,
        start: float,
        *,
        infrastructure: bool = False,
    ) -> ExecResult:
        return ExecResult(
            output=output,
            error=error,
            status=status,  # type: ignore[arg-type]
            truncated=truncated,
            wall_seconds=time.monotonic() - start,
            infrastructure=infrastructure,
        )


def _readable_by_all(root: Path) -> None:
    """Let an unprivileged worker read a copied folder (the workdir itself stays 0700)."""
    os.chmod(root, 0o755)
    for folder, dirs, names in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
        for name in names:
            os.chmod(os.path.join(folder, name), 0o444)


def _grace(wall_seconds: float) -> float:
    return max(1.0, 0.1 * wall_seconds)


@atexit.register
def _close_all() -> None:
    for sandbox in list(_live):
        with contextlib.suppress(Exception):  # best effort at exit
            sandbox.close()
    shutdown_zygote()
