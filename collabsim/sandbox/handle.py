"""Parent-side handle of one sandbox worker: messages, CPU accounting and limits, kill.

Everything here runs in the trusted parent, so it holds even when the worker's own Python
layer (audit hook, timers) has been subverted: the CPU limit is set from outside with
``prlimit`` before each cell, the CPU clock is read from ``/proc/<pid>/stat`` while a cell
runs, and between cells the worker is stopped (SIGSTOP), so a thread left running by a cell
cannot burn CPU unwatched (raising a lowered hard limit needs CAP_SYS_RESOURCE, which even
root may lack in a container).
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import select
import signal
import socket
import stat
import time
from collections.abc import Callable
from typing import Any

from collabsim.sandbox import wire

DEATH_REPORT_WAIT = 2.0
WATCH_INTERVAL = 0.1
"""Seconds between checks (CPU, disk) of a cell that is still running."""
_TICKS = os.sysconf("SC_CLK_TCK")
_CAP_SYS_RESOURCE = 24
_can_raise_hard: bool | None = None


class WorkerHandle:
    """Parent-side handle of one worker process.

    Args:
        pid: The worker's pid.
        pidfd: A pidfd of the worker (``None`` on kernels without pidfds).
        sock: The parent's end of the worker's socket.
        on_close: Called once by the first :meth:`close` (the zygote client counts its
            open workers).
        key: The key sealing the zygote's report of this worker's end (``exit_status``);
            a report it did not seal was written by a cell and counts as garbage.
    """

    def __init__(
        self,
        pid: int,
        pidfd: int | None,
        sock: socket.socket,
        on_close: Callable[[], None] | None = None,
        key: bytes | None = None,
    ) -> None:
        self.pid = pid
        self._key = key
        self._on_close = on_close
        self.pidfd = pidfd
        self.sock = sock
        self.buffer = wire.FrameBuffer()
        self.dead = False
        self.eof = False
        sock.setblocking(False)
        try:  # kept open: one pread per cell instead of open/read/close
            self._stat_fd: int | None = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._stat_fd = None

    # -- CPU ------------------------------------------------------------------------------
    def cpu_seconds(self) -> float | None:
        """CPU time (all threads, user + system) the worker has used, ``None`` if gone."""
        if self._stat_fd is None:
            return None
        try:
            stat = os.pread(self._stat_fd, 1024, 0)
        except OSError:
            return None
        fields = stat.rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS

    def unlinked_bytes(self) -> int:
        """Disk space held by files the worker keeps open after removing them.

        An open file that was unlinked (or created unnamed: ``O_TMPFILE``, ``memfd``) no
        longer shows up in the working directory, yet its blocks stay allocated until the
        worker closes it; counted through ``/proc/<pid>/fd`` (each file once).
        """
        if self.dead:
            return 0
        folder = f"/proc/{self.pid}/fd"
        try:
            names = os.listdir(folder)
        except OSError:
            return 0
        seen: set[tuple[int, int]] = set()
        total = 0
        for name in names:
            try:
                info = os.stat(f"{folder}/{name}")  # follows the fd to the open file
            except OSError:
                continue
            key = (info.st_dev, info.st_ino)
            if info.st_nlink == 0 and stat.S_ISREG(info.st_mode) and key not in seen:
                seen.add(key)
                total += info.st_blocks * 512
        return total

    def limit_cpu(self, used: float, seconds: float) -> None:
        """Let the worker use ``seconds`` more CPU from ``used`` on (kernel-enforced).

        The soft limit (SIGXCPU, which terminates) sits a second above the budget, and when
        this process may raise limits again (root) the hard limit (SIGKILL, which no handler
        stops) one more second above it, so CPU burnt between cells counts too. The worker
        itself cannot move either (seccomp).
        """
        soft = math.ceil(used + seconds) + 1
        with contextlib.suppress(OSError, ValueError):
            if _may_raise_limits():
                resource.prlimit(self.pid, resource.RLIMIT_CPU, (soft, soft + 1))
                return
            _, hard = resource.prlimit(self.pid, resource.RLIMIT_CPU)
            if hard != resource.RLIM_INFINITY:
                soft = min(soft, hard)
            resource.prlimit(self.pid, resource.RLIMIT_CPU, (soft, hard))

    def pause(self) -> None:
        """Stop the worker between cells (SIGSTOP): threads a cell left behind get no CPU."""
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused worker run again (SIGCONT)."""
        self._signal(signal.SIGCONT)

    def _signal(self, signum: int) -> None:
        with contextlib.suppress(OSError):
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signum)
            elif not self.dead:  # pragma: no cover - kernels without pidfd
                os.kill(self.pid, signum)

    # -- messages -------------------------------------------------------------------------
    def send(self, msg: dict[str, Any], deadline: float) -> bool:
        """Send ``msg``; returns False if the worker is gone or not reading."""
        data = memoryview(wire.encode(msg))
        while data:
            try:
                sent = self.sock.send(data)
                data = data[sent:]
            except BlockingIOError:
                timeout = deadline - time.monotonic()
                if timeout <= 0:
                    return False
                wait_for(self.sock.fileno(), select.POLLOUT, timeout)
            except OSError:
                return False
        return True

    def receive(
        self, deadline: float, watch: Callable[[], dict[str, Any] | None] | None = None
    ) -> dict[str, Any] | None:
        """Return the next message, ``{"op": "eof"}`` or ``None`` on timeout.

        When the worker dies, waits a little for the zygote's ``exit_status`` report. A
        reply is a message without ``op``; ``exit_status`` comes unsealed (its fields at
        the top level); anything else, or a report the zygote did not seal, comes as
        ``{"op": "garbage"}``.

        Args:
            deadline: ``time.monotonic()`` value to give up at.
            watch: Called every :data:`WATCH_INTERVAL` seconds while nothing arrives; a
                returned message ends the wait and is returned.
        """
        poller = select.poll()
        poller.register(self.sock, select.POLLIN)
        if self.pidfd is not None and not self.dead:
            poller.register(self.pidfd, select.POLLIN)
        died_at: float | None = None
        while True:
            msg = self._buffered()
            if msg is not None:
                return msg
            now = time.monotonic()
            limit = deadline if died_at is None else died_at + DEATH_REPORT_WAIT
            if now >= limit:
                return None if died_at is None else {"op": "eof"}
            watching = watch if died_at is None else None  # no watching once it died
            wait = limit - now if watching is None else min(limit - now, WATCH_INTERVAL)
            events = poller.poll(max(1, int(wait * 1000)))
            if not events and watching is not None:
                verdict = watching()
                if verdict is not None:
                    return verdict
            died = self._take_events(poller, events)
            if died is not None:
                died_at = died

    def _buffered(self) -> dict[str, Any] | None:
        """The next message already received, ``{"op": "eof"}`` after the end, else None."""
        try:
            msg = self.buffer.pop()
        except wire.WireError:
            return {"op": "eof"}
        if msg is not None:
            return self._checked(msg)
        if self.eof:
            return {"op": "eof"}
        return None

    def _checked(self, msg: Any) -> dict[str, Any]:
        """A reply as it is, a sealed report opened, anything else garbage."""
        if not isinstance(msg, dict):
            return {"op": "garbage"}
        op = msg.get("op")
        if op is None:
            return msg
        report = wire.unseal(msg, self._key) if op == "exit_status" else None
        return report if report is not None else {"op": "garbage"}

    def _take_events(self, poller: select.poll, events: list[tuple[int, int]]) -> float | None:
        """Read what the socket has; note the worker's death (its pidfd became readable).

        Returns:
            The time the death was seen (the pidfd is then no longer polled), else None.
        """
        died_at = None
        for fd, _event in events:
            if fd == self.pidfd:
                self.dead = True
                died_at = time.monotonic()
                poller.unregister(self.pidfd)
                continue
            self._read_socket()
        return died_at

    def _read_socket(self) -> None:
        """Feed what the socket holds into the buffer; an empty read or an error is the end."""
        try:
            data = self.sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self.buffer.feed(data)
        else:
            self.eof = True

    # -- end ------------------------------------------------------------------------------
    def kill(self, want_report: bool = False) -> dict[str, Any] | None:
        """SIGKILL the worker and wait until it has exited.

        Args:
            want_report: Also wait (briefly) for the zygote's exit report and return it.
        """
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            elif not self.dead:  # pragma: no cover - kernels without pidfd
                os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        deadline = time.monotonic() + DEATH_REPORT_WAIT
        if self.pidfd is not None and not want_report:
            if not self.dead:
                wait_for(self.pidfd, select.POLLIN, DEATH_REPORT_WAIT)
                self.dead = True
            return None
        report = None
        while not self.eof and time.monotonic() < deadline:
            msg = self.receive(deadline)
            if msg is None:
                break
            if msg.get("op") == "exit_status":
                report = msg
        return report

    def close(self) -> None:
        """Close the socket and the kept file descriptors."""
        on_close, self._on_close = self._on_close, None
        self.sock.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        if self._stat_fd is not None:
            os.close(self._stat_fd)
            self._stat_fd = None
        if on_close is not None:
            on_close()


def _may_raise_limits() -> bool:
    """Whether this process holds CAP_SYS_RESOURCE (may raise a hard limit it lowered)."""
    global _can_raise_hard
    if _can_raise_hard is None:
        _can_raise_hard = False
        with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("CapEff:"):
                    _can_raise_hard = bool(int(line.split()[1], 16) >> _CAP_SYS_RESOURCE & 1)
    return _can_raise_hard


def wait_for(fd: int, events: int, timeout: float) -> bool:
    """Wait until ``fd`` is ready (poll, so fds above 1024 work); returns readiness."""
    poller = select.poll()
    poller.register(fd, events)
    return bool(poller.poll(max(0, int(timeout * 1000))))


__all__ = ["DEATH_REPORT_WAIT", "WATCH_INTERVAL", "WorkerHandle", "wait_for"]
