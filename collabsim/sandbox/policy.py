"""In-worker security policy: the audit-hook layer (the kernel layers are in ``kernel``).

1. A ``sys.addaudithook`` guard gives readable errors for the common cases: network (every
   socket), processes, files outside the working directory (writes anywhere, reads outside
   the Python installation and system directories, also through ``dir_fd``; never
   collabsim's own code and data, :mod:`collabsim.sandbox.hidden`), native
   libraries through ctypes, resource limits, signals to other processes.
2. Audit hooks are not a security boundary (native code, or one line through
   ``gc.get_objects()``, switches them off), so :mod:`collabsim.sandbox.kernel` enforces the
   essentials again with seccomp-BPF, Landlock and an empty capability set, a root parent
   runs each worker under its own uid (:mod:`collabsim.sandbox.privileges`), and the parent
   enforces CPU, wall-clock and disk limits from outside (:mod:`collabsim.sandbox.handle`).
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from collections.abc import Callable
from typing import Any

# the kernel layers live in their own module; re-exported for existing imports
from collabsim.sandbox.hidden import judge_paths
from collabsim.sandbox.kernel import (
    drop_capabilities,
    install_landlock,
    install_seccomp,
    prepare,
)

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_SYSTEM_READ_ROOTS = ("/usr", "/lib", "/lib32", "/lib64", "/etc", "/proc", "/sys", "/dev")
_WRITABLE_DEVICES = ("/dev/null",)
_PROCESS_EVENTS = {
    "subprocess.Popen": "starting processes",
    "os.system": "starting processes",
    "os.exec": "starting processes",
    "os.posix_spawn": "starting processes",
    "os.spawn": "starting processes",
    "os.fork": "forking processes",
    "os.forkpty": "forking processes",
    "pty.spawn": "starting processes",
    "os.startfile": "starting processes",
    "webbrowser.open": "starting processes",
}
_NETWORK_EVENTS = (
    "socket.getaddrinfo",
    "socket.gethostbyname",
    "socket.gethostbyname_ex",
    "socket.gethostbyaddr",
    "socket.getnameinfo",
    "socket.sendto",
    "socket.sendmsg",
    "urllib.Request",
)
_DENIED_SYMBOLS = frozenset(
    {
        "fork",
        "vfork",
        "_Fork",
        "clone",
        "clone3",
        "execve",
        "execv",
        "execvp",
        "execvpe",
        "execl",
        "execlp",
        "execle",
        "fexecve",
        "execveat",
        "system",
        "popen",
        "posix_spawn",
        "posix_spawnp",
        "socket",
        "connect",
        "bind",
        "sendto",
        "sendmsg",
        "getaddrinfo",
        "ptrace",
        "syscall",
        "setrlimit",
        "prlimit",
        "prlimit64",
        "setrlimit64",
        "unshare",
        "setns",
        "mount",
        "chroot",
        "kill",
        "killpg",
        "tgkill",
        "seccomp",
        "prctl",
    }
)


class PolicyViolation(PermissionError):
    """Raised inside the worker when code attempts something the sandbox forbids."""


def python_read_roots() -> tuple[str, ...]:
    """Return the directories holding the interpreter and installed packages."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "include", "scripts", "data"):
        try:
            roots.add(sysconfig.get_path(key))
        except KeyError:
            continue
    try:
        import site

        roots.update(site.getsitepackages())
    except AttributeError:  # pragma: no cover - virtualenv without getsitepackages
        pass
    return tuple(sorted({os.path.realpath(r) for r in roots if r}))


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


class AuditPolicy:
    """Audit-hook policy confining a worker to its working directory.

    Args:
        workdir: The private working directory (read/write).
        read_roots: Further directories that may be read (Python installation, system dirs).
        hidden: Folders never readable, even inside a read root (default: the collabsim
            package folders, :func:`collabsim.sandbox.hidden.judge_paths`).
    """

    def __init__(
        self, workdir: str, read_roots: tuple[str, ...], hidden: tuple[str, ...] | None = None
    ) -> None:
        self.workdir = os.path.realpath(workdir)
        self.library_roots = tuple(os.path.realpath(r) for r in read_roots)
        self.read_roots = (self.workdir, *self.library_roots, *_SYSTEM_READ_ROOTS)
        self.hidden = judge_paths() if hidden is None else tuple(hidden)
        self.write_roots = (self.workdir,)
        self.internal = 0
        """While positive the hook lets everything pass. The worker never raises it: every
        piece of a cell's code (its exceptions' ``__str__``, a loader's ``get_source``, a
        replaced reply function) runs under the policy. Tests raise it to stand for the
        ``gc.get_objects()`` bypass that only the kernel layers withstand."""
        self.hooks_added = 0
        """Audit hooks added after this one (a worker with any is never reused)."""
        self.violations: list[str] = []
        self._pid = os.getpid()
        self._handlers: dict[str, Callable[[tuple[Any, ...]], None]] = {
            "open": self._on_open,
            "os.listdir": self._on_read_dir,
            "os.scandir": self._on_read_dir,
            "socket.__new__": self._on_socket_new,
            "socket.connect": self._on_socket_address,
            "socket.bind": self._on_socket_address,
            "ctypes.dlopen": self._on_dlopen,
            "ctypes.dlsym": self._on_dlsym,
            "ctypes.dlsym/handle": self._on_dlsym,
            "os.kill": self._on_kill,
            "os.killpg": self._on_kill,
            "resource.setrlimit": self._on_setrlimit,
            "resource.prlimit": self._on_prlimit,
            "os.remove": self._write_arg0,
            "os.rmdir": self._write_arg0,
            "os.mkdir": self._on_mkdir,
            "os.chmod": self._write_arg0,
            "os.chown": self._write_arg0,
            "os.lchown": self._write_arg0,
            "os.utime": self._write_arg0,
            "os.truncate": self._write_arg0,
            "os.setxattr": self._write_arg0,
            "os.removexattr": self._write_arg0,
            "os.chflags": self._write_arg0,
            "os.lchflags": self._write_arg0,
            "os.rename": self._on_two_paths,
            "os.replace": self._on_two_paths,
            "os.link": self._on_two_paths,
            "os.symlink": self._on_symlink,
            "tempfile.mkstemp": self._write_arg0,
            "tempfile.mkdtemp": self._write_arg0,
            "shutil.rmtree": self._write_arg0,
            "sys.addaudithook": lambda args: None,  # counted by ``hook``
        }
        for event, what in _PROCESS_EVENTS.items():
            self._handlers[event] = self._denier(what)
        for event in _NETWORK_EVENTS:
            self._handlers[event] = self._denier("network access")

    # -- hook -------------------------------------------------------------------------
    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: raise :class:`PolicyViolation` for forbidden events."""
        handler = self._handlers.get(event)
        if handler is None:
            return
        if event == "sys.addaudithook":  # counted in internal mode too
            self.hooks_added += 1
        elif not self.internal:
            handler(args)

    def deny(self, what: str, detail: str = "") -> None:
        """Record a violation and raise :class:`PolicyViolation`."""
        message = f"blocked by sandbox policy: {what} is not allowed"
        if detail:
            message += f" ({detail})"
        self.violations.append(message)
        raise PolicyViolation(message)

    def _denier(self, what: str) -> Callable[[tuple[Any, ...]], None]:
        def deny(args: tuple[Any, ...]) -> None:
            self.deny(what)

        return deny

    # -- paths ------------------------------------------------------------------------
    def _resolve(self, path: Any, dir_fd: Any = None) -> str | None:
        """Return the real absolute path, or ``None`` for an fd (already checked)."""
        if isinstance(path, int):
            return None
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        path = os.fspath(path) if path is not None else "."
        if not os.path.isabs(path):
            base = os.getcwd()
            if isinstance(dir_fd, int) and dir_fd >= 0:
                try:
                    base = os.readlink(f"/proc/self/fd/{dir_fd}")
                except OSError:
                    base = "/"
                if not os.path.isabs(base):  # e.g. "socket:[123]": judge it as outside
                    base = "/"
            path = os.path.join(base, path)
        return os.path.realpath(path)

    def may_read(self, path: str) -> bool:
        """Whether ``path`` (real, absolute) may be read."""
        if not _inside(path, self.read_roots) or _inside(path, self.hidden):
            return False
        if path.startswith("/proc/"):
            head = path[6:].split("/", 1)[0]
            if head.isdigit() and int(head) != os.getpid():
                return False
        return True

    def may_write(self, path: str) -> bool:
        """Whether ``path`` (real, absolute) may be created, changed or removed."""
        return _inside(path, self.write_roots) or path in _WRITABLE_DEVICES

    def check_write(self, path: Any, dir_fd: Any = None) -> None:
        """Raise unless ``path`` lies inside the working directory."""
        real = self._resolve(path, dir_fd)
        if real is not None and not self.may_write(real):
            self.deny("writing outside the working directory", str(path))

    def _on_open(self, args: tuple[Any, ...]) -> None:
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        writing = isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            writing = True
        self.check_open(path, writing)

    def check_open(self, path: Any, writing: bool, dir_fd: Any = None) -> None:
        """Raise unless ``path`` (relative to ``dir_fd`` if given) may be opened so."""
        real = self._resolve(path, dir_fd)
        if real is None:
            return
        if writing:
            if not self.may_write(real):
                self.deny("writing outside the working directory", str(path))
        elif not self.may_read(real):
            self.deny("reading files outside the working directory", str(path))

    def guard_dir_fd(self) -> None:
        """Check ``os.open(..., dir_fd=...)`` calls against the policy.

        The ``open`` audit event does not carry ``dir_fd``, so a relative path would be judged
        against the working directory (``os.open('1/cmdline', dir_fd=<fd of /proc>)`` passed
        as ``<workdir>/1/cmdline``). ``os.open`` is wrapped to resolve ``dir_fd`` first;
        ``posix.open`` stays unwrapped, which is why Landlock confines ``/proc`` as well.
        """
        real_open = os.open
        policy = self

        @functools.wraps(real_open)
        def open_checked(
            path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None
        ) -> int:
            if dir_fd is not None and not policy.internal:
                policy.check_open(path, bool(flags & _WRITE_FLAGS), dir_fd)
            return real_open(path, flags, mode, dir_fd=dir_fd)

        os.open = open_checked  # type: ignore[assignment]

    def _on_read_dir(self, args: tuple[Any, ...]) -> None:
        path = args[0] if args else None
        real = self._resolve(path)
        if real is not None and not self.may_read(real):
            self.deny("listing directories outside the working directory", str(path))

    def _write_arg0(self, args: tuple[Any, ...]) -> None:
        dir_fd = args[-1] if len(args) > 1 and isinstance(args[-1], int) else None
        self.check_write(args[0], dir_fd)

    def _on_mkdir(self, args: tuple[Any, ...]) -> None:
        self.check_write(args[0], args[2] if len(args) > 2 else None)

    def _on_two_paths(self, args: tuple[Any, ...]) -> None:
        src_fd = args[2] if len(args) > 2 else None
        dst_fd = args[3] if len(args) > 3 else None
        self.check_write(args[0], src_fd)
        self.check_write(args[1], dst_fd)

    def _on_symlink(self, args: tuple[Any, ...]) -> None:
        self.check_write(args[1], args[2] if len(args) > 2 else None)

    # -- sockets, libraries, signals, limits --------------------------------------------
    def _on_socket_new(self, args: tuple[Any, ...]) -> None:
        # every family: AF_UNIX reaches named sockets of other programs (seccomp agrees)
        self.deny("network access", "socket creation")

    def _on_socket_address(self, args: tuple[Any, ...]) -> None:
        address = args[1] if len(args) > 1 else None
        self.deny("network access", f"address {address!r}")

    def _on_dlopen(self, args: tuple[Any, ...]) -> None:
        name = args[0] if args else None
        if isinstance(name, (str, bytes)) and os.path.isabs(os.fsdecode(name)):
            real = os.path.realpath(os.fsdecode(name))
            if _inside(real, self.library_roots):
                return
        self.deny("loading native libraries with ctypes", repr(name))

    def _on_dlsym(self, args: tuple[Any, ...]) -> None:
        name = args[1] if len(args) > 1 else None
        if isinstance(name, bytes):
            name = name.decode("latin-1")
        if isinstance(name, str) and name in _DENIED_SYMBOLS:
            self.deny("calling system functions through ctypes", name)

    def _on_kill(self, args: tuple[Any, ...]) -> None:
        target = args[0] if args else None
        if target not in (0, self._pid, os.getpid()):
            self.deny("signalling other processes", str(target))

    def _on_setrlimit(self, args: tuple[Any, ...]) -> None:
        self.deny("changing resource limits")

    def _on_prlimit(self, args: tuple[Any, ...]) -> None:
        if len(args) > 2 and args[2] is not None:
            self.deny("changing resource limits")

__all__ = [
    "AuditPolicy",
    "PolicyViolation",
    "drop_capabilities",
    "install_landlock",
    "install_seccomp",
    "prepare",
    "python_read_roots",
]
