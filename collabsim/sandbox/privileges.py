"""Running workers as an unprivileged user when the sandbox is started as root.

Dropping capabilities alone leaves a worker with uid 0, and uid 0 still owns ``/etc/shadow``,
``/dev/vcs`` and friends. So a root parent runs each worker under its own uid and gid
(:func:`worker_ids`, no supplementary groups): other processes' files and ``/proc`` entries
become foreign, and two workers cannot signal or trace each other.

The catch is the Python installation: it may live under a directory other users cannot enter
(``/root/.pyenv/...``). :func:`expose_read_roots` runs once in the zygote: it moves the zygote
into a private mount namespace and covers each such directory with a small read-only tmpfs
through which only the Python directories are bind-mounted back. The rest of ``/root`` stays
hidden, and the parent's view of the file system is untouched.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
from collections.abc import Iterable

UID_BASE = 0x7E000000
"""Worker uid/gid = ``UID_BASE + pid``: unique among live workers, far above real accounts."""

_CLONE_NEWNS = 0x00020000
_MS_RDONLY = 0x1
_MS_REMOUNT = 0x20
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_PR_SET_DUMPABLE = 4


def worker_ids(pid: int) -> tuple[int, int]:
    """Return the ``(uid, gid)`` a worker with ``pid`` runs under when the parent is root."""
    return UID_BASE + pid, UID_BASE + pid


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_ulong,
        ctypes.c_char_p,
    ]
    return libc


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _open_to_others(path: str, need: int) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return mode & need == need


def hidden_ancestor(path: str) -> str | None:
    """Return the top-most ancestor of ``path`` that other users cannot enter, if any."""
    parts = os.path.realpath(path).split("/")[1:-1]
    current = ""
    for part in parts:
        current += "/" + part
        if not _open_to_others(current, stat.S_IXOTH):
            return current
    return None


def readable_by_others(path: str) -> bool:
    """Whether an unrelated unprivileged user can enter and list ``path`` itself."""
    return _open_to_others(path, stat.S_IROTH | stat.S_IXOTH)


def _outermost(paths: Iterable[str]) -> list[str]:
    """Drop paths that lie inside another path of the list."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def expose_read_roots(read_roots: Iterable[str]) -> bool:
    """Make ``read_roots`` reachable for unprivileged workers (call once, in the zygote).

    Args:
        read_roots: Directories workers must read (the Python installation).

    Returns:
        Whether every root is now reachable by an unrelated uid; ``False`` (and the workers
        keep uid 0 without capabilities) when the process is not root or mounting fails.
    """
    roots = [r for r in (os.path.realpath(p) for p in read_roots) if os.path.isdir(r)]
    if os.geteuid() != 0 or not all(readable_by_others(r) for r in roots):
        return False
    hidden: dict[str, list[str]] = {}
    for root in _outermost(roots):
        ancestor = hidden_ancestor(root)
        if ancestor is not None:
            hidden.setdefault(ancestor, []).append(root)
    if not hidden:
        return True
    try:
        libc = _libc()
        _check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
        for ancestor, inside in sorted(hidden.items()):
            _cover(libc, ancestor, inside)
    except OSError:
        return False
    return all(hidden_ancestor(r) is None for r in roots)


def _cover(libc: ctypes.CDLL, ancestor: str, inside: list[str]) -> None:
    """Mount a tmpfs over ``ancestor`` and bind-mount the ``inside`` directories back."""
    fds = {root: os.open(root, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) for root in inside}
    try:
        target = os.fsencode(ancestor)
        _check(
            libc.mount(b"tmpfs", target, b"tmpfs", 0, b"mode=0755,size=64k"), f"tmpfs {ancestor}"
        )
        for root, fd in fds.items():
            os.makedirs(root, mode=0o755, exist_ok=True)
            source = os.fsencode(f"/proc/self/fd/{fd}")
            _check(libc.mount(source, os.fsencode(root), None, _MS_BIND | _MS_REC, None), root)
        flags = _MS_REMOUNT | _MS_RDONLY | _MS_BIND
        with contextlib.suppress(OSError):  # read-only is a nicety: nothing writes there
            _check(libc.mount(None, target, None, flags, None), f"remount {ancestor}")
    finally:
        for fd in fds.values():
            os.close(fd)


def become_unprivileged(uid: int, gid: int) -> None:
    """Switch to ``uid``/``gid`` with no supplementary groups (the caller must be root).

    The kernel clears the parent-death signal and the dumpable flag on a uid change; the
    caller re-arms the former, this function restores the latter so that ``/proc/self`` stays
    owned by the worker (it cannot be traced: ptrace is refused by seccomp).

    Raises:
        OSError: The switch failed; a worker must not run then.
    """
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getgroups():
        raise OSError(errno.EPERM, "could not drop to an unprivileged uid")
    libc = _libc()
    libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)


__all__ = [
    "UID_BASE",
    "become_unprivileged",
    "expose_read_roots",
    "hidden_ancestor",
    "readable_by_others",
    "worker_ids",
]
