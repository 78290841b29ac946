"""Sandbox working directories: naming, disk usage and the sweep of stale ones.

A working directory is named ``collabsim-sbx-<pid>-<start time>-<random>`` after the process
that owns it. Normally the owner (or, if the owner dies, its zygote) removes it; when both are
killed at once the folder stays behind, so each process sweeps, once at start-up, the folders
whose owner no longer runs (same pid and start time). Folders of live processes, and folders
named in any other way, are never touched.

Removal (:func:`remove_tree`) never recurses: a cell can leave a folder nested thousands of
levels deep, which makes ``shutil.rmtree`` (recursive in Python <= 3.12) raise
``RecursionError``. It walks the tree with two descriptors at a time, never follows a
symbolic link, and returns instead of raising.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import threading
from pathlib import Path
from typing import NamedTuple

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
        if remove_tree(path):
            removed.append(path)
    return removed


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _same(fd: int, ident: tuple[int, int]) -> bool:
    info = os.fstat(fd)
    return (info.st_dev, info.st_ino) == ident


def _open_child(parent: int, name: str) -> int | None:
    """Open sub-folder ``name`` of ``parent`` (made enterable if need be), or None."""
    for attempt in range(2):
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=parent)
        except PermissionError:
            if attempt:
                return None
            with contextlib.suppress(OSError):  # our own folder with mode 000
                os.chmod(name, 0o700, dir_fd=parent)
        except OSError:
            return None
    return None


def _empty_files(fd: int, skip: set[str]) -> str | None:
    """Unlink every non-folder entry of ``fd``; return the first sub-folder not in ``skip``."""
    writable = False
    with os.scandir(fd) as entries:
        names = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    for name, is_dir in names:
        if name in skip:
            continue
        if is_dir:
            return name
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            continue
        except PermissionError:
            if writable:
                skip.add(name)
                continue
            writable = True
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o700)
            try:
                os.unlink(name, dir_fd=fd)
            except OSError:
                skip.add(name)
        except OSError:
            skip.add(name)
    return None


def remove_tree(path: Path | str) -> bool:
    """Remove ``path`` and everything under it, iteratively (any depth, no recursion).

    Symbolic links are removed, never followed; a file or folder that cannot be removed is
    left in place and the rest goes. Never raises.

    Args:
        path: A folder (or a file or link, which is simply unlinked).

    Returns:
        Whether ``path`` is gone.
    """
    path = os.fspath(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)
    elif not _empty_folder(path):
        return False
    else:
        with contextlib.suppress(OSError):
            os.rmdir(path)
    return not os.path.lexists(path)


def _empty_folder(path: str) -> bool:
    """Remove what can be removed under folder ``path`` (the folder itself stays).

    Returns:
        False when the folder cannot be opened, the tree was moved during the walk, or an
        error stopped it; True when the walk finished.
    """
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError:
        return False
    walk = _EmptyingWalk(fd)
    try:
        return walk.run()
    except OSError:
        return False
    finally:
        walk.close()


class _EmptyingWalk:
    """A depth-first walk that empties a folder tree through folder descriptors.

    It holds one open descriptor (the current folder); going up re-opens ``..`` and checks
    it is the folder it came down from, so a tree moved under its feet stops the walk.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        # one entry per folder above the current one: (its device and inode, the name of the
        # folder we went down into, names in it we could not remove)
        self._stack: list[tuple[tuple[int, int], str, set[str]]] = []
        self._skip: set[str] = set()

    def run(self) -> bool:
        """Walk until the top folder is empty (but for what cannot go); False when moved."""
        while True:
            child = self._next_child()
            if child is not None:
                self._descend(child)
                continue
            if not self._stack:
                return True
            if not self._ascend():
                return False

    def close(self) -> None:
        """Close the current folder's descriptor."""
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def _next_child(self) -> str | None:
        """Unlink the current folder's files; its first sub-folder left to empty, or None."""
        try:
            return _empty_files(self.fd, self._skip)
        except OSError:
            return None

    def _descend(self, child: str) -> None:
        """Go down into ``child`` (skipped from now on when it cannot be opened)."""
        sub = _open_child(self.fd, child)
        if sub is None:
            self._skip.add(child)
            return
        info = os.fstat(self.fd)
        self._stack.append(((info.st_dev, info.st_ino), child, self._skip))
        os.close(self.fd)
        self.fd, self._skip = sub, set()

    def _ascend(self) -> bool:
        """Go up and remove the folder just emptied; False when the parent is another folder."""
        ident, name, parent_skip = self._stack.pop()
        parent = os.open("..", _DIR_FLAGS, dir_fd=self.fd)
        os.close(self.fd)
        self.fd = parent
        if not _same(self.fd, ident):  # the tree was moved under our feet: stop here
            return False
        try:
            os.rmdir(name, dir_fd=self.fd)
        except OSError:
            parent_skip.add(name)
        self._skip = parent_skip
        return True


def sweep_once() -> None:
    """Run :func:`sweep_stale` the first time it is called in this process."""
    global _swept
    with _sweep_lock:
        if _swept:
            return
        _swept = True
    sweep_stale()


class Usage(NamedTuple):
    """What the files under a folder take: bytes allocated and entries (files, folders,
    links), both counted no further than the scan went (see :func:`disk_usage`)."""

    bytes: int
    entries: int


def disk_usage(path: Path, max_entries: int | None = None) -> Usage:
    """Bytes allocated to the entries under ``path`` (directories and symlinks not followed).

    Args:
        path: The folder.
        max_entries: Stop once more entries than this were seen, so a folder holding a
            million empty files costs no more to check than one at the limit (the result
            then says only that there are more); ``None``: count everything.
    """
    total = entries = 0
    stack = [os.fspath(path)]
    while stack:
        try:
            listing = os.scandir(stack.pop())
        except OSError:
            continue
        with listing:
            for entry in listing:
                entries += 1
                if max_entries is not None and entries > max_entries:
                    return Usage(total, entries)
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += info.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return Usage(total, entries)


def _after_fork_in_child() -> None:
    global _sweep_lock
    _sweep_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)

__all__ = [
    "WORKDIR_PREFIX",
    "Usage",
    "disk_usage",
    "make_workdir",
    "process_start_time",
    "remove_tree",
    "sweep_stale",
]
