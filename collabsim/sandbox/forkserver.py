"""The sandbox's fork server ("zygote") as seen from the parent: one per process.

:class:`Sandbox <collabsim.sandbox.sandbox.Sandbox>` asks :func:`spawn_worker` for a worker;
the zygote (:mod:`collabsim.sandbox.zygote`) is started lazily with the modules and data files
chosen by :func:`set_preload_modules`, :func:`set_preload_files` and
:func:`add_preload_files`. A zygote replaced because those changed stays alive until the last
of its workers is closed (workers die with their zygote), so replacing it never kills a
running session. Data files added to a running zygote are parsed by it in place.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from collabsim.sandbox import wire
from collabsim.sandbox.handle import WorkerHandle
from collabsim.sandbox.limits import SandboxLimits
from collabsim.sandbox.worker import clean_env

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_ZYGOTE_START_TIMEOUT = 120.0
_SPAWN_TIMEOUT = 30.0


class SandboxError(RuntimeError):
    """The sandbox infrastructure (not user code) failed, e.g. the zygote cannot start."""


class _ZygoteClient:
    """Owns the zygote process and its control socket (one per parent process)."""

    def __init__(self, preload: tuple[str, ...], files: tuple[str, ...] = ()) -> None:
        parent_sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        code = (
            f"import sys; sys.path.insert(0, {str(_PACKAGE_ROOT)!r}); "
            "from collabsim.sandbox.zygote import main; "
            f"main({child_sock.fileno()}, {tuple(preload)!r}, {tuple(files)!r})"
        )
        self.preload = tuple(preload)
        self.files = tuple(files)
        env = clean_env("/nonexistent")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-s", "-B", "-c", code],
                env=env,
                cwd="/",
                pass_fds=(child_sock.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            child_sock.close()
        self.sock = parent_sock
        self.owner = os.getpid()
        self.lock = threading.Lock()
        parent_sock.settimeout(_ZYGOTE_START_TIMEOUT)
        try:
            hello, _ = wire.recv_msg(parent_sock)
        except (OSError, wire.WireError) as exc:
            self.close()
            raise SandboxError(f"sandbox zygote did not start: {exc}") from exc
        if not hello.get("ok"):
            self.close()
            raise SandboxError(str(hello.get("error", "sandbox zygote did not start")))
        parent_sock.settimeout(_SPAWN_TIMEOUT)
        self.pid = int(hello["pid"])
        self.unprivileged = bool(hello.get("unprivileged"))
        # Workers handed out and not yet closed; a replaced zygote lives on until they are.
        self.workers = 0
        self.retired = False
        self.count_lock = threading.Lock()

    def alive(self) -> bool:
        return self.proc.poll() is None and self.sock.fileno() >= 0

    def retire(self) -> bool:
        """Mark this zygote replaced; True when no worker of it is open (close it now)."""
        with self.count_lock:
            self.retired = True
            return self.workers == 0

    def _worker_closed(self) -> None:
        if os.getpid() != self.owner:  # a forked child's copy of a handle
            return
        with self.count_lock:
            self.workers -= 1
            last = self.retired and self.workers == 0
        if last:
            _drop_retired(self)

    def preload_files(self, files: Sequence[str]) -> None:
        """Have the running zygote parse ``files`` too (workers forked later get them).

        The files travel as open descriptors: the zygote's own view of the file system
        hides directories that other users cannot enter (see
        :func:`collabsim.sandbox.privileges.expose_read_roots`).
        """
        for start in range(0, len(files), _FDS_PER_MESSAGE):
            fds: list[int] = []
            try:
                for path in files[start:start + _FDS_PER_MESSAGE]:
                    with contextlib.suppress(OSError):  # unreadable: the cell reports it
                        fds.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
                if not fds:
                    continue
                with self.lock:
                    wire.send_msg(self.sock, {"op": "preload"}, fds=tuple(fds))
                    self.sock.settimeout(_ZYGOTE_START_TIMEOUT)
                    try:
                        reply, _ = wire.recv_msg(self.sock)
                    finally:
                        self.sock.settimeout(_SPAWN_TIMEOUT)
            finally:
                for fd in fds:
                    os.close(fd)
            if not reply.get("ok"):
                raise SandboxError(str(reply.get("error", "zygote could not preload files")))

    def spawn(self, workdir: Path, limits: SandboxLimits) -> WorkerHandle:
        """Fork a worker for ``workdir``."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self.lock:
                request = {"op": "spawn", "workdir": str(workdir), "limits": limits.to_json()}
                wire.send_msg(self.sock, request, fds=(theirs.fileno(),))
                reply, fds = wire.recv_msg(self.sock, with_fds=True)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        if not reply.get("ok"):
            for fd in fds:
                os.close(fd)
            ours.close()
            raise SandboxError(str(reply.get("error", "worker spawn failed")))
        with self.count_lock:
            self.workers += 1
        return WorkerHandle(int(reply["pid"]), fds[0] if fds else None, ours,
                            on_close=self._worker_closed, key=bytes.fromhex(reply["key"]))

    def close(self) -> None:
        """Ask the zygote to kill its workers and exit, then close the control socket."""
        try:
            if os.getpid() == self.owner:
                with contextlib.suppress(OSError, wire.WireError):
                    wire.send_msg(self.sock, {"op": "shutdown"})
            self.sock.close()
        finally:
            if os.getpid() == self.owner:
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()


_client: _ZygoteClient | None = None
_client_lock = threading.Lock()
_preload: tuple[str, ...] = ()
_preload_files: tuple[str, ...] = ()
# Replaced zygotes whose workers still run (each is closed with its last worker).
_retired: list[_ZygoteClient] = []
_retired_lock = threading.Lock()
_FDS_PER_MESSAGE = 4  # what the zygote's recv_msg accepts with one message


def _zygote() -> _ZygoteClient:
    global _client
    with _client_lock:
        if (_client is None or not _client.alive() or _client.preload != _preload
                or _client.files != _preload_files):
            if _client is not None:
                _retire(_client)
            _client = _ZygoteClient(_preload, _preload_files)
        return _client


def _retire(client: _ZygoteClient) -> None:
    """Replace ``client``'s zygote without killing its running workers."""
    if not client.alive() or client.retire():
        client.close()
        return
    with _retired_lock:
        _retired.append(client)


def _drop_retired(client: _ZygoteClient) -> None:
    with _retired_lock:
        if client not in _retired:
            return
        _retired.remove(client)
    client.close()


def set_preload_modules(modules: Sequence[str]) -> None:
    """Choose extra modules the zygote imports once so that cells importing them start fast.

    numpy and pandas are always pre-loaded. Importing ``scipy.stats`` costs about 2 s of CPU,
    so pre-loading it pays off when many sessions use it. Takes effect for sandboxes created
    afterwards (a running zygote with other modules is replaced; existing workers keep running,
    served by the replaced zygote until the last of them is closed).

    Args:
        modules: Importable module names, e.g. ``["scipy.stats", "sklearn.linear_model"]``.
    """
    global _preload
    with _client_lock:
        _preload = tuple(str(m) for m in modules)


def set_preload_files(paths: Sequence[str | os.PathLike[str]]) -> None:
    """Data files the zygote parses once (:func:`collabsim.domain.tables.preload_tables`).

    A cell's ``read_table`` of a file with the same bytes then copies the parsed table
    instead of parsing it again. Takes effect like :func:`set_preload_modules` (a running
    zygote with other files is replaced; existing workers keep running). To add files
    without replacing the zygote use :func:`add_preload_files`.
    """
    global _preload_files
    with _client_lock:
        _preload_files = tuple(sorted({str(p) for p in paths}))


def add_preload_files(paths: Sequence[str | os.PathLike[str]]) -> None:
    """Add data files to those the zygote parses once (see :func:`set_preload_files`).

    A running zygote parses the new files in place (no restart, its workers untouched);
    workers forked afterwards copy their tables. Outputs of cells are the same with and
    without pre-loading; only the time to a session's first table changes. A gym env
    calls this with its task list's files when it is made.

    Raises:
        SandboxError: The running zygote failed to take the files.
    """
    global _preload_files
    with _client_lock:
        new = sorted({str(p) for p in paths} - set(_preload_files))
        if not new:
            return
        _preload_files = tuple(sorted({*_preload_files, *new}))
        client = _client
        if client is None or not client.alive() or client.preload != _preload:
            return  # the next zygote starts with them
        try:
            client.preload_files(new)
        except (OSError, wire.WireError) as exc:
            raise SandboxError(f"sandbox zygote could not preload files: {exc}") from exc
        client.files = _preload_files


def zygote_pid() -> int | None:
    """Return the pid of this process's zygote, or ``None`` when none is running."""
    client = _client
    return client.pid if client is not None and client.alive() else None


def shutdown_zygote() -> None:
    """Stop this process's zygote (and with it every worker); a later Sandbox restarts it.

    Replaced zygotes still serving workers (see :func:`set_preload_modules`) stop too.
    """
    global _client
    with _client_lock:
        client, _client = _client, None
    with _retired_lock:
        retired = list(_retired)
        _retired.clear()
    for old in [*retired, client]:
        if old is not None:
            old.close()


def _after_fork_in_child() -> None:
    global _client, _client_lock, _retired_lock
    _client_lock = threading.Lock()
    _retired_lock = threading.Lock()
    client, _client = _client, None
    retired = list(_retired)
    _retired.clear()
    for old in [*retired, client]:
        if old is not None:
            old.sock.close()  # the child's copy only; the parent keeps its zygotes


os.register_at_fork(after_in_child=_after_fork_in_child)


def spawn_worker(workdir: Path, limits: SandboxLimits) -> WorkerHandle:
    """Fork a worker for ``workdir`` from this process's zygote (started when needed).

    Raises:
        SandboxError: The zygote could not start or refused the worker.
    """
    try:
        return _zygote().spawn(workdir, limits)
    except (OSError, wire.WireError):
        shutdown_zygote()  # the zygote died; start a new one once
        return _zygote().spawn(workdir, limits)


__all__ = [
    "SandboxError",
    "add_preload_files",
    "set_preload_files",
    "set_preload_modules",
    "shutdown_zygote",
    "spawn_worker",
    "zygote_pid",
]
