"""The fork server ("zygote"): a clean-environment interpreter with numpy/pandas imported.

Started once per parent process (see :mod:`collabsim.sandbox.forkserver`) as
``python -c "...zygote.main(fd)"``. Protocol on the control socket (length-prefixed JSON):

* parent -> zygote: ``{"op": "spawn", "workdir": str, "limits": {...}}`` with the worker's
  end of a socketpair attached (SCM_RIGHTS);
* zygote -> parent: ``{"ok": true, "pid": int, "key": hex}`` with a pidfd of the new worker
  attached, or ``{"ok": false, "error": str}``; the key, drawn after the fork, seals the
  zygote's report of that worker's end (the worker never holds it);
* parent -> zygote: ``{"op": "preload"}`` with up to 4 open data files attached: the zygote
  parses and bins them (as it does the files it was started with) and replies
  ``{"ok": true}``; workers forked afterwards copy those tables.

The zygote keeps a duplicate of each worker's socket and the read end of a set-up pipe: a
worker whose set-up fails writes why into the pipe and exits, one that succeeds closes it
before any cell runs (so no cell can write to it). When a worker dies the zygote reaps it and
sends ``exit_status`` (exit code / signal / CPU seconds / max RSS / the set-up failure, if
any), sealed with the worker's key (:func:`collabsim.sandbox.wire.seal`), on that socket
before closing it, so the parent learns why a worker died and a cell cannot forge it. When the control socket closes
(parent exited or shut the zygote down) the zygote kills its workers, removes their working
directories and exits; workers also carry PR_SET_PDEATHSIG so they never outlive the zygote.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import select
import signal
import socket
import sys
from dataclasses import dataclass
from typing import Any

from collabsim.sandbox.workdirs import WORKDIR_PREFIX, remove_tree

_SETUP_ERROR_BYTES = 4096
"""Longest set-up failure a worker reports through its set-up pipe."""


@dataclass
class _Child:
    """What the zygote keeps of one live worker."""

    sock: socket.socket
    workdir: str
    setup_fd: int  # read end of the set-up pipe
    key: bytes  # seals the report of the worker's end


def _warm_up(preload: tuple[str, ...] = (), files: tuple[str, ...] = ()) -> None:
    """Import and exercise the common analysis paths once, so forked workers start warm.

    Args:
        preload: Further modules to import (e.g. ``"scipy.stats"``); missing ones are skipped.
    """
    import importlib

    import numpy as np
    import pandas as pd

    # Analysis cells import their table helpers (time series) and the statistical runtime,
    # and a worker may not read collabsim's files in any install layout (the generator would
    # rebuild golds: collabsim.sandbox.hidden); scipy/statsmodels stay lazy: CELL_MODULES.
    import collabsim.domain.analysis_helpers  # noqa: F401
    import collabsim.domain.stats.runtime  # noqa: F401

    df = pd.read_csv(io.StringIO("year,a,b\n1,1.5,x\n2,2.5,y\n3,,x\n"))
    df.describe()
    df.groupby("b")["a"].mean()
    df["a"].diff().idxmax()
    df.sort_values("a").to_string()
    df.to_csv(io.StringIO())
    np.corrcoef(np.arange(5.0), np.arange(5.0) ** 2)
    with contextlib.suppress(Exception):  # a warm-up must never keep the zygote from starting
        _warm_up_table_paths(pd)
    for name in preload:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _preload_data(files)
    import ast  # noqa: F401 - used by every worker
    import linecache  # noqa: F401
    import traceback  # noqa: F401


def _preload_data(files: tuple[str, ...]) -> None:
    """Parse and bin data files once, so that forked workers copy their tables."""
    with contextlib.suppress(Exception):  # a file that cannot be read is read by the cell
        from collabsim.domain.analysis_helpers import preload_binned
        from collabsim.domain.tables import preload_tables

        preload_tables(files)
        preload_binned(files)


def _warm_up_table_paths(pd: Any) -> None:
    """Exercise what a typical analysis cell does to a CSV file, once, in the zygote.

    Many pandas paths initialise lazily (parser file handles, numeric coercion, index
    building, dtype casts, reductions). Run once here, every forked worker inherits them ready
    instead of paying that set-up in its first cell (measured: a scripted session's first
    cell went from ~28 to ~23 ms). The table is read and binned by the same helpers the
    analysis cells import (:mod:`collabsim.domain.analysis_helpers`). Only code paths are
    warmed: the sample table lives in a temporary folder that is removed and the helpers'
    table cache is cleared, so no data or result survives into a worker.
    """
    import tempfile

    from collabsim.domain import analysis_helpers as helpers

    try:
        with tempfile.TemporaryDirectory(prefix="collabsim-zygote-warm-") as tmp:
            path = os.path.join(tmp, "warm.csv")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(
                    'CE,BCE,v,w,s\n-300,300,0.5,"1,5",a\n-200,200,1.5,"2,5",a\n'
                    '-100,100,,"3,5",b\n0,0,3.0,"4,5",a\n100,-100,2.0,"5,5",b\n'
                )
            t = helpers.table(path, helpers.read_table(path))
            helpers.table(path)
    finally:
        helpers.clear_tables()
    data = t[["v", "w"]].apply(pd.to_numeric, errors="coerce")
    data = data.loc[-200:0]
    s = data["v"]
    d = s.diff()
    flag = d >= 0.5
    helpers.onsets(flag)
    float(s.loc[0]) if 0 in s.index else None
    s.rolling(2, min_periods=1).mean().idxmax()
    s.pct_change().abs().max()
    [f"{y}: {c:+.2f}" for y, c in d.dropna().items()]
    float(s.max()), float(s.min()), int(s.isna().sum())


class Zygote:
    """State of the fork server."""

    def __init__(self, ctrl: socket.socket) -> None:
        self.ctrl = ctrl
        self.pid = os.getpid()
        self.workers: dict[int, _Child] = {}
        self.pidfds: dict[int, int] = {}  # pidfd -> pid of a live worker
        self.poller = select.poll()  # not select(): the inherited fd may be numbered above 1024
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        os.set_blocking(self.wake_r, False)
        from collabsim.sandbox.hidden import carve, judge_paths
        from collabsim.sandbox.kernel import prepare
        from collabsim.sandbox.policy import python_read_roots
        from collabsim.sandbox.privileges import expose_read_roots

        prepare()
        self.read_roots = python_read_roots()
        carve(self.read_roots, judge_paths())  # cached: workers inherit the read rules
        # as root, workers get their own uid once the Python installation is reachable to it
        self.unprivileged = expose_read_roots(self.read_roots)

    def run(self) -> None:
        """Serve spawn requests until the control socket closes."""
        self._watch_children()
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        from collabsim.sandbox import wire

        hello = {"ok": True, "pid": os.getpid(), "ready": True, "unprivileged": self.unprivileged}
        wire.send_msg(self.ctrl, hello)
        poller = self.poller
        poller.register(self.ctrl.fileno(), select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        while True:
            readable = [fd for fd, _ in poller.poll()]
            if any(fd in self.pidfds for fd in readable):
                self.reap()
            if self.wake_r in readable:
                self._drain_wakeups()
                self.reap()
            if self.ctrl.fileno() in readable:
                self._serve_request()
            self.reap()

    def _watch_children(self) -> None:
        """Wake the loop when a worker exits: its pidfd, or SIGCHLD without pidfds."""
        try:
            os.close(os.pidfd_open(self.pid))
        except (OSError, AttributeError):  # pragma: no cover - kernels without pidfds
            # SIGCHLD wakes the loop instead. With pidfds it keeps its default action (no
            # handler): workers are stopped and continued around every cell, and each of
            # those would otherwise wake this process for nothing.
            signal.signal(signal.SIGCHLD, lambda signum, frame: None)
            signal.set_wakeup_fd(self.wake_w)

    def _drain_wakeups(self) -> None:
        """Empty the signal wake-up pipe."""
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass

    def _serve_request(self) -> None:
        """Read one control request and carry it out (spawn, preload, shutdown); a closed or
        broken control socket shuts the zygote down."""
        from collabsim.sandbox import wire

        try:
            msg, fds = wire.recv_msg(self.ctrl, with_fds=True)
        except (wire.WireError, OSError):
            self.shutdown()
        if msg.get("op") == "spawn" and len(fds) == 1:
            self.spawn(msg, fds[0])
        elif msg.get("op") == "preload":
            self.preload(fds)
        else:
            for fd in fds:
                os.close(fd)
            if msg.get("op") == "shutdown":
                self.shutdown(remove_workdirs=False)
            wire.send_msg(self.ctrl, {"ok": False, "error": "bad request"})

    def spawn(self, msg: dict[str, Any], fd: int) -> None:
        """Fork one worker serving ``fd``."""
        from collabsim.sandbox import wire

        sock = socket.socket(fileno=fd)
        workdir = str(msg["workdir"])
        try:
            setup_r, setup_w = os.pipe()
        except OSError as exc:
            sock.close()
            wire.send_msg(self.ctrl, {"ok": False, "error": f"no set-up pipe: {exc}"})
            return
        try:
            pid = os.fork()
        except OSError as exc:
            for end in (sock.detach(), setup_r, setup_w):
                os.close(end)
            wire.send_msg(self.ctrl, {"ok": False, "error": f"fork failed: {exc}"})
            return
        if pid == 0:
            self._become_worker(sock, workdir, dict(msg["limits"]), setup_w)
        os.close(setup_w)
        os.set_blocking(setup_r, False)
        key = os.urandom(32)  # drawn after the fork: the worker's memory never held it
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = -1
        self.workers[pid] = _Child(sock, workdir, setup_r, key)
        reply = {"ok": True, "pid": pid, "key": key.hex()}
        if pidfd >= 0:
            wire.send_msg(self.ctrl, reply, fds=(pidfd,))
            self.pidfds[pidfd] = pid  # readable once the worker exits
            self.poller.register(pidfd, select.POLLIN)
        else:  # pragma: no cover - kernels without pidfd
            wire.send_msg(self.ctrl, reply)

    def preload(self, fds: list[int]) -> None:
        """Parse and bin the data files open as ``fds`` (see ``add_preload_files``)."""
        from collabsim.sandbox import wire

        # Read through the descriptors: this process's mount namespace may hide the paths.
        try:
            _preload_data(tuple(f"/proc/self/fd/{fd}" for fd in fds))
        finally:
            for fd in fds:
                os.close(fd)
        gc.collect()
        gc.freeze()  # as at start-up: the forked workers' collections skip these objects
        wire.send_msg(self.ctrl, {"ok": True})

    def _become_worker(
        self, sock: socket.socket, workdir: str, limits: dict[str, Any], setup_fd: int
    ) -> None:
        try:
            from collabsim.sandbox import worker

            os.setsid()
            worker.set_parent_death_signal()
            if os.getppid() != self.pid:
                os._exit(1)
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
            for child in self.workers.values():
                child.sock.detach()
            self.ctrl.detach()
            devnull = os.open(os.devnull, os.O_RDWR)
            for target in (0, 1, 2):
                os.dup2(devnull, target)
            low, high = sorted((sock.fileno(), setup_fd))
            os.closerange(3, low)
            os.closerange(low + 1, high)
            os.closerange(high + 1, 65536)
            worker.run_worker(
                sock, workdir, limits, self.read_roots, self.unprivileged, setup_fd=setup_fd
            )
        finally:
            os._exit(70)

    def reap(self) -> None:
        """Collect dead workers and tell their parents why they died."""
        from collabsim.sandbox import wire

        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            for pidfd in [fd for fd, owner in self.pidfds.items() if owner == pid]:
                del self.pidfds[pidfd]
                self.poller.unregister(pidfd)
                os.close(pidfd)
            child = self.workers.pop(pid, None)
            if child is None:
                continue
            report: dict[str, Any] = {
                "pid": pid,
                "exitcode": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "maxrss_kb": usage.ru_maxrss,
                "setup_error": _read_setup_error(child.setup_fd),
            }
            try:
                child.sock.setblocking(False)
                wire.send_msg(child.sock, wire.seal("exit_status", report, child.key))
            except OSError:
                pass
            child.sock.close()

    def shutdown(self, remove_workdirs: bool = True) -> None:
        """Kill all workers and exit.

        Args:
            remove_workdirs: Also remove the workers' working directories (done when the
                parent vanished; an explicit shutdown leaves them to their Sandbox objects).
        """
        for pid, child in list(self.workers.items()):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            child.sock.close()
            if remove_workdirs and os.path.basename(child.workdir).startswith(WORKDIR_PREFIX):
                remove_tree(child.workdir)
        os._exit(0)


def _read_setup_error(fd: int) -> str | None:
    """What a dead worker wrote into its set-up pipe (``None``: its set-up succeeded); closes
    the pipe."""
    try:
        data = os.read(fd, _SETUP_ERROR_BYTES)
    except OSError:
        data = b""
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace") if data else None


def main(ctrl_fd: int, preload: tuple[str, ...] = (), files: tuple[str, ...] = ()) -> None:
    """Zygote entry point.

    Args:
        ctrl_fd: The inherited control socket.
        preload: Extra modules to import before forking workers.
        files: Data files to parse before forking workers (see ``set_preload_files``).
    """
    ctrl = socket.socket(fileno=ctrl_fd)
    try:
        _warm_up(tuple(preload), tuple(files))
        zygote = Zygote(ctrl)
        gc.collect()
        gc.freeze()
    except BaseException as exc:  # noqa: BLE001 - report start-up failure to the parent
        from collabsim.sandbox import wire

        try:
            wire.send_msg(ctrl, {"ok": False, "error": f"zygote start failed: {exc!r}"})
        finally:
            os._exit(1)
    zygote.run()
    sys.exit(0)
