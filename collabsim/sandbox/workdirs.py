"""Sandbox working directories: naming, disk usage and the sweep of stale ones.

A working directory is named ``collabsim-sbx-<pid>-<start time>-<random>`` after the process
that owns it. Normally the owner (or, if the owner dies, its zygote) removes it; when both are
killed at once the folder stays behind, so each process sweeps, once at start-up, the folders
whose owner no longer runs (same pid and start time). Folders of live processes, and folders
named in any other way, are never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

WORKDIR_PREFIX = "collabsim-sbx-"
_OWNED = re.compile(re.escape(WORKDIR_PREFIX) + r"(\d+)-(\d+)-")
_swept = False
_sweep_lock = threading.Lock()


def process_start_time(pid: int) -> int | None:
    """Return the start time of ``pid`` in clock ticks since boot (``None`` if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    return int(stat.rsplit(b")", 1)[1].split()[19])


def make_workdir() -> Path:
    """Create a private (mode 0700) working directory named after this process."""
    pid = os.getpid()
    prefix = f"{WORKDIR_PREFIX}{pid}-{process_start_time(pid) or 0}-"
    return Path(tempfile.mkdtemp(prefix=prefix))


def sweep_stale(root: Path | None = None) -> list[Path]:
    """Remove working directories whose owning process has exited.

    Args:
        root: Folder to sweep (default: the temporary folder).

    Returns:
        The folders removed.
    """
    folder = Path(root) if root is not None else Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        pid, started = int(match.group(1)), int(match.group(2))
        if process_start_time(pid) == started:
            continue  # the owner still runs
        path = Path(entry.path)
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path)
    return removed


def sweep_once() -> None:
    """Run :func:`sweep_stale` the first time it is called in this process."""
    global _swept
    with _sweep_lock:
        if _swept:
            return
        _swept = True
    sweep_stale()


def disk_usage(path: Path) -> int:
    """Bytes allocated to the files under ``path`` (directories and symlinks not followed)."""
    total = 0
    stack = [os.fspath(path)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += info.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return total


def _after_fork_in_child() -> None:
    global _sweep_lock
    _sweep_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)

__all__ = ["WORKDIR_PREFIX", "disk_usage", "make_workdir", "process_start_time", "sweep_stale"]
