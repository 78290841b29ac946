"""The sandbox worker: runs in a process forked from the zygote and executes cells.

Set-up order matters: process group and parent-death signal, fds (done by the zygote), then
environment, working directory, rlimits, Landlock, capability drop (with the switch to the
worker's own uid in the middle of it, when started as root), seccomp, and finally the
audit hook (everything after it is user code or guarded internal work). The worker always
leaves through ``os._exit``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import ctypes
import gc
import io
import linecache
import os
import resource
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn

from collabsim.sandbox import wire
from collabsim.sandbox.baseline import Baseline, NotReusable
from collabsim.sandbox.hidden import carve
from collabsim.sandbox.kernel import drop_capabilities, install_landlock, install_seccomp
from collabsim.sandbox.policy import AuditPolicy, PolicyViolation
from collabsim.sandbox.privileges import become_unprivileged, worker_ids

_PR_SET_PDEATHSIG = 1
_TRACEBACK_LINES = 12
_ERROR_CHARS = 2000
_THIS_FILE = os.path.realpath(__file__)


class CellTimeout(BaseException):
    """Raised in the cell when its wall-clock budget is spent."""


class CpuLimitExceeded(BaseException):
    """Raised in the cell when its CPU-time budget is spent."""


def clean_env(workdir: str) -> dict[str, str]:
    """Return the complete environment of a worker (nothing from the parent)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "JOBLIB_MULTIPROCESSING": "0",  # no process pools (they would be refused anyway)
    }


class CappedOutput(io.TextIOBase):
    """A text stream keeping the first and last ``limit // 2`` characters written."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.head_limit = max(1, limit // 2)
        self.tail_limit = max(1, limit - self.head_limit)
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.total = 0

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "strict"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, s: str) -> int:  # type: ignore[override]
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        n = len(s)
        self.total += n
        used = 0
        room = self.head_limit - self.head_len
        if room > 0:
            part = s[:room]
            self.head.append(part)
            self.head_len += len(part)
            used = len(part)
        rest = n - used
        if rest > 0:  # never copy the (possibly gigantic) middle of ``s``
            take = min(rest, self.tail_limit)
            self.tail = (self.tail + s[n - take :])[-self.tail_limit :]
        return n

    def getvalue(self) -> tuple[str, bool]:
        """Return ``(text, truncated)``."""
        head = "".join(self.head)
        omitted = self.total - len(head) - len(self.tail)
        if omitted <= 0:
            return head + self.tail, False
        note = f"\n... [output truncated: {omitted} characters omitted] ...\n"
        return head + note + self.tail, True


class Worker:
    """Cell executor holding the persistent namespace.

    Args:
        sock: Connected socket to the parent.
        workdir: Working directory (already populated by the parent).
        limits: ``SandboxLimits.to_json()`` dict.
        setup_fd: Write end of the zygote's set-up pipe (closed before any cell runs).
    """

    def __init__(
        self, sock: socket.socket, workdir: str, limits: dict[str, Any], setup_fd: int = -1
    ) -> None:
        self.sock = sock
        self.setup_fd = setup_fd
        self.workdir = workdir
        self.limits = limits
        self.cell = 0
        self.policy: AuditPolicy | None = None
        self.namespace: dict[str, Any] = {}
        self.layers: dict[str, int] = {}
        self.baseline: Baseline | None = None

    # -- set-up ---------------------------------------------------------------------------
    def setup(self, read_roots: tuple[str, ...], unprivileged: bool = False) -> None:
        """Confine the process; the audit hook is installed last.

        Args:
            read_roots: Directories of the Python installation (read-only access).
            unprivileged: Switch to the worker's own uid/gid (the zygote runs as root and has
                made the Python installation reachable for other users).
        """
        zygote = os.getppid()
        os.environ.clear()
        os.environ.update(clean_env(self.workdir))
        os.chdir(self.workdir)
        sys.dont_write_bytecode = True
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        signal.signal(signal.SIGALRM, _raise_timeout)
        signal.signal(signal.SIGPROF, _raise_cpu)
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)  # RLIMIT_CPU backstop terminates
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _set_limit(resource.RLIMIT_CORE, 0)
        _set_limit(resource.RLIMIT_FSIZE, int(self.limits["file_mb"]) * 1024 * 1024)
        _set_limit(resource.RLIMIT_NOFILE, 256)
        _set_limit(resource.RLIMIT_AS, _address_space() + int(self.limits["memory_mb"]) * 2**20)
        policy = AuditPolicy(self.workdir, read_roots)
        uid, gid = worker_ids(os.getpid()) if unprivileged else (os.getuid(), os.getgid())
        if unprivileged:
            os.chown(self.workdir, uid, gid)
            os.chmod(self.workdir, 0o700)
        rules = carve(_landlock_roots(policy), policy.hidden)
        self.layers["landlock"] = install_landlock(self.workdir, rules.full, rules.list_only)

        def switch_user() -> None:
            if not unprivileged:
                return
            become_unprivileged(uid, gid)
            set_parent_death_signal()  # a uid change clears it
            if os.getppid() != zygote:
                os._exit(1)

        self.layers["capabilities_dropped"] = int(drop_capabilities(switch_user))
        self.layers["uid"] = os.getuid()
        self.layers["seccomp"] = int(install_seccomp())
        sys.path[:] = [p for p in sys.path if p and policy.may_read(os.path.realpath(p))]
        import random

        import numpy as np

        random.seed(0)
        np.random.seed(0)

        self.namespace = _fresh_namespace()
        self.policy = policy
        policy.guard_dir_fd()
        self.close_setup_pipe()  # from here on code that runs may be a cell's
        self.baseline = Baseline.take(self.workdir)
        sys.addaudithook(policy.hook)

    def close_setup_pipe(self) -> None:
        """Close the set-up pipe: the zygote then knows set-up went through."""
        if self.setup_fd >= 0:
            os.close(self.setup_fd)
            self.setup_fd = -1

    def report_setup_failure(self, exc: BaseException) -> NoReturn:
        """Tell the zygote why set-up failed (it reports it to the parent, sealed) and exit.

        The pipe, never the socket: a cell can write to the socket, so the parent believes
        a set-up failure (which marks the session ``infra_error``) only from the zygote.
        """
        try:
            if self.setup_fd >= 0:
                os.write(self.setup_fd, f"{type(exc).__name__}: {exc}"[:2000].encode())
        finally:
            os._exit(71)

    # -- loop -----------------------------------------------------------------------------
    def serve(self) -> NoReturn:
        """Answer ``exec`` and ``reset`` requests until EOF or anything else."""
        while True:
            try:
                msg, _ = wire.recv_msg(self.sock)
            except (wire.WireError, OSError):
                os._exit(0)
            op = msg.get("op") if isinstance(msg, dict) else None
            if op == "exec":
                cell = msg.get("cell")
                self.cell = cell - 1 if isinstance(cell, int) else self.cell
                reply = self.run_cell(str(msg.get("code", "")))
            elif op == "reset":
                reply = self.reset()
            else:
                os._exit(0)
            reply["nonce"] = msg.get("nonce")  # the parent drops replies of other requests
            # with the policy on: a cell may have replaced what runs here (it is its reply)
            wire.send_msg(self.sock, reply)

    def reset(self) -> dict[str, Any]:
        """Start a new session in this process (see :mod:`collabsim.sandbox.baseline`).

        Returns:
            A reply with status ``ok``, or ``error`` when the worker cannot be reused.
        """
        assert self.baseline is not None
        # Runs like a cell, with the audit hook on (never in internal mode): finalizers a
        # cell defined, and library functions a cell may have replaced, are user code.
        assert self.policy is not None
        self.namespace = {}
        gc.collect()
        dropped: list[Any] = []
        try:
            try:
                if self.policy.hooks_added:
                    raise NotReusable(
                        f"{self.policy.hooks_added} audit hook(s) added (they cannot be removed)")
                self.baseline.restore(dropped)
            finally:
                dropped.clear()
                gc.collect()
            self.baseline.check_files()
        except BaseException as exc:  # noqa: BLE001 - any failure means: use a fresh worker
            return {"output": "", "truncated": False, "status": "error",
                    "error": f"worker not reusable: {type(exc).__name__}: {exc}"}
        self.namespace = _fresh_namespace()
        self.cell = 0
        return {"output": "", "truncated": False, "status": "ok", "error": None}

    def run_cell(self, code: str) -> dict[str, Any]:
        """Execute one cell; never raises."""
        assert self.policy is not None
        self.cell += 1
        filename = f"<cell {self.cell}>"
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        capture = CappedOutput(int(self.limits["output_chars"]))
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = capture
        self.policy.violations.clear()
        exc: BaseException | None = None
        try:
            try:
                body, last = _compile_cell(code, filename)
                self._arm()
                try:
                    exec(body, self.namespace)
                    if last is not None:
                        value = eval(last, self.namespace)
                        if value is not None:
                            print(repr(value))
                finally:
                    self._disarm()
            finally:
                sys.stdout, sys.stderr = saved
        except BaseException as caught:  # noqa: BLE001 - user code may raise anything
            exc = caught
            self._disarm()
            sys.stdout, sys.stderr = saved
        output, truncated = capture.getvalue()
        # The cell's exception is the cell's code (its __str__, __notes__, a loader's
        # get_source ...): it is formatted with the policy on, like the cell itself.
        try:
            status, error = self._classify(exc)
        except BaseException:  # noqa: BLE001 - e.g. an exception whose __str__ raises
            status, error = self._unprintable(exc)
        exc = None
        return {"output": output, "truncated": truncated, "status": status, "error": error}

    # -- limits ---------------------------------------------------------------------------
    def _arm(self) -> None:
        # RLIMIT_CPU is moved by the parent before each cell (seccomp forbids it here)
        cpu = float(self.limits["cpu_seconds"])
        signal.setitimer(signal.ITIMER_PROF, cpu)
        signal.setitimer(signal.ITIMER_REAL, float(self.limits["wall_seconds"]))

    def _disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)

    # -- errors ---------------------------------------------------------------------------
    def _classify(self, exc: BaseException | None) -> tuple[str, str | None]:
        """Map the cell's exception (if any) to a status and a short error text.

        Swallowed policy violations do not fail a cell (libraries probe, e.g. for helper
        programs, and carry on); they decide the status only when the cell fails.
        """
        assert self.policy is not None
        if exc is None:
            return "ok", None
        interrupted = self._interruption(exc)
        if interrupted is not None:
            return interrupted
        blanked = _prime_source_lines(exc.__traceback__, self.policy.may_read)
        try:
            text = _format_exception(exc)
        finally:
            for name in blanked:
                linecache.cache.pop(name, None)
        if _in_chain(exc, MemoryError):
            return "memory_limit", (
                f"{text}\nMemoryError: the sandbox allows about "
                f"{self.limits['memory_mb']} MB of memory per session"
            )
        return self._failure(exc, text)

    def _unprintable(self, exc: BaseException | None) -> tuple[str, str]:
        """Status and error of a cell whose exception could not even be formatted."""
        assert self.policy is not None
        name = type.__dict__["__name__"].__get__(type(exc))  # no metaclass property runs
        text = f"{name}: <exception could not be printed>"
        violations = list(dict.fromkeys(self.policy.violations))
        if not violations:
            return "error", text
        return "blocked", "\n".join([text, *(f"PermissionError: {v}" for v in violations)])

    def _interruption(self, exc: BaseException) -> tuple[str, str] | None:
        """Status and error of a cell the wall-clock or CPU limit interrupted (else None)."""
        if isinstance(exc, CellTimeout):
            return "timeout", (
                f"TimeoutError: the cell exceeded the wall-clock limit of "
                f"{self.limits['wall_seconds']:g} s and was interrupted"
            )
        if isinstance(exc, CpuLimitExceeded):
            return "cpu_limit", (
                f"CpuLimitExceeded: the cell used more than {self.limits['cpu_seconds']:g} s "
                "of CPU time and was interrupted"
            )
        return None

    def _failure(self, exc: BaseException, text: str) -> tuple[str, str]:
        """Status and error of a failed cell: ``blocked`` when the policy refused something.

        The error is the refusals alone when the cell failed on one, else the traceback
        ``text`` followed by them.
        """
        assert self.policy is not None
        violations = list(dict.fromkeys(self.policy.violations))
        if _in_chain(exc, PolicyViolation) and violations:
            return "blocked", "\n".join(f"PermissionError: {v}" for v in violations)
        if violations:
            detail = "\n".join(f"PermissionError: {v}" for v in violations)
            return "blocked", f"{text}\n{detail}"
        return "error", text


def _fresh_namespace() -> dict[str, Any]:
    """The globals a session's first cell starts with."""
    import numpy as np
    import pandas as pd

    return {"__name__": "__main__", "__builtins__": builtins, "pd": pd, "np": np}


def _raise_timeout(signum: int, frame: Any) -> None:
    raise CellTimeout()


def _raise_cpu(signum: int, frame: Any) -> None:
    raise CpuLimitExceeded()


def _compile_cell(code: str, filename: str) -> tuple[Any, Any]:
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        expr = ast.Expression(tree.body.pop().value)
        last = compile(expr, filename, "eval")
    return compile(tree, filename, "exec"), last


def _in_chain(exc: BaseException | None, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kind):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _prime_source_lines(tb: Any, may_read: Callable[[str], bool]) -> list[str]:
    """Put the source of the traceback's files into ``linecache`` before it is formatted.

    Only files the policy lets the cell read are loaded (without the frames' globals, so
    no loader of the cell's runs here); the others get blank entries, so that formatting
    neither shows their lines nor counts a refusal against the cell.

    Returns:
        The names given blank entries (to drop after formatting).
    """
    blanked: list[str] = []
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
        if name in linecache.cache:
            continue
        if may_read(os.path.realpath(name)):
            linecache.updatecache(name)
        else:
            linecache.cache[name] = (0, None, [], name)
            blanked.append(name)
    return blanked


def _format_exception(exc: BaseException) -> str:
    """Return the last lines of the traceback, without the worker's own frames."""
    if isinstance(exc, (PolicyViolation, SyntaxError)):
        lines = traceback.format_exception_only(type(exc), exc)
    else:
        frames = [
            frame
            for frame in traceback.extract_tb(exc.__traceback__)
            if os.path.realpath(frame.filename) != _THIS_FILE
        ]
        lines = ["Traceback (most recent call last):\n"]
        lines += traceback.StackSummary.from_list(frames).format()
        lines += traceback.format_exception_only(type(exc), exc)
    text_lines = "".join(lines).rstrip("\n").splitlines()
    if len(text_lines) > _TRACEBACK_LINES:
        text_lines = [
            "Traceback (most recent call last, shortened):",
            *text_lines[-_TRACEBACK_LINES:],
        ]
    text = "\n".join(text_lines)
    return text if len(text) <= _ERROR_CHARS else "..." + text[-_ERROR_CHARS:]


def _address_space() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _set_limit(which: int, value: int) -> None:
    try:
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        soft, hard = resource.getrlimit(which)
        capped = value if hard == resource.RLIM_INFINITY else min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (capped, hard))


def _landlock_roots(policy: AuditPolicy) -> tuple[str, ...]:
    """Read-only Landlock roots: ``/proc`` narrowed to this process and a few global files.

    ``/proc/<other pid>`` (command lines, maps) stays readable to any uid by file mode, so the
    kernel layer rather than the audit hook must keep other processes out of sight.
    """
    proc = (f"/proc/{os.getpid()}", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat")
    roots: list[str] = []
    for root in policy.read_roots[1:]:
        roots.extend(proc if root == "/proc" else (root,))
    return tuple(roots)


def set_parent_death_signal() -> None:
    """Ask the kernel to SIGKILL this process when its parent (the zygote) dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - non-Linux
        pass


def run_worker(
    sock: socket.socket,
    workdir: str,
    limits: dict[str, Any],
    read_roots: tuple[str, ...],
    unprivileged: bool = False,
    setup_fd: int = -1,
) -> NoReturn:
    """Entry point in the freshly forked child: set up, then serve forever.

    Args:
        setup_fd: Write end of the zygote's set-up pipe (see :mod:`collabsim.sandbox.zygote`).
    """
    worker = Worker(sock, workdir, limits, setup_fd)
    try:
        worker.setup(read_roots, unprivileged)
    except BaseException as exc:  # noqa: BLE001 - report any set-up failure to the zygote
        worker.report_setup_failure(exc)
    worker.serve()


__all__ = ["CappedOutput", "Worker", "clean_env", "run_worker", "set_parent_death_signal"]
