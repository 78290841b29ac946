"""In-worker security policy, three layers deep.

1. A ``sys.addaudithook`` guard gives readable errors for the common cases: network,
   processes, files outside the working directory (writes anywhere, reads outside the Python
   installation and system directories), native libraries through ctypes, resource limits,
   signals to other processes.
2. Audit hooks are not a security boundary (native code or a tampered hook bypasses them), so
   the kernel enforces the essentials too: a seccomp-BPF filter refuses ``fork``/``exec``,
   non-unix sockets and namespace/debugging syscalls (Linux x86-64/aarch64), and
3. Landlock (Linux >= 5.13, unprivileged) confines the file system to the working directory
   (full access) plus read-only system/Python directories, refuses TCP, and with ABI >= 6
   keeps signals and abstract unix sockets inside the worker.
4. All Linux capabilities are dropped, so a worker running as root no longer bypasses file
   permissions, ptrace checks (other processes' ``/proc/<pid>/environ``) or rlimit ceilings.

Layers 2-4 are best effort: when the kernel lacks them the worker still runs.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import socket
import struct
import sys
import sysconfig
from collections.abc import Callable
from typing import Any

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
    """

    def __init__(self, workdir: str, read_roots: tuple[str, ...]) -> None:
        self.workdir = os.path.realpath(workdir)
        self.library_roots = tuple(os.path.realpath(r) for r in read_roots)
        self.read_roots = (self.workdir, *self.library_roots, *_SYSTEM_READ_ROOTS)
        self.write_roots = (self.workdir,)
        self.internal = 0
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
        }
        for event, what in _PROCESS_EVENTS.items():
            self._handlers[event] = self._denier(what)
        for event in _NETWORK_EVENTS:
            self._handlers[event] = self._denier("network access")

    # -- hook -------------------------------------------------------------------------
    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: raise :class:`PolicyViolation` for forbidden events."""
        handler = self._handlers.get(event)
        if handler is None or self.internal:
            return
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
        if not _inside(path, self.read_roots):
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


# -- seccomp --------------------------------------------------------------------------------
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_CLONE_THREAD = 0x00010000


def _ret_errno(err: int) -> int:
    return 0x00050000 | (err & 0xFFFF)


_ARCHES: dict[str, dict[str, Any]] = {
    "x86_64": {
        "audit_arch": 0xC000003E,
        "x32_bit": 0x40000000,
        "deny": {
            57: "fork",
            58: "vfork",
            59: "execve",
            322: "execveat",
            101: "ptrace",
            272: "unshare",
            308: "setns",
            165: "mount",
            166: "umount2",
            155: "pivot_root",
            161: "chroot",
            310: "process_vm_readv",
            311: "process_vm_writev",
            425: "io_uring_setup",
            321: "bpf",
            246: "kexec_load",
            160: "setrlimit",
            438: "pidfd_getfd",
            298: "perf_event_open",
            323: "userfaultfd",
            303: "name_to_handle_at",
            304: "open_by_handle_at",
            248: "add_key",
            249: "request_key",
            250: "keyctl",
        },
        "clone": 56,
        "clone3": 435,
        "socket": 41,
        "socketpair": 53,
        "prlimit64": 302,
    },
    "aarch64": {
        "audit_arch": 0xC00000B7,
        "x32_bit": None,
        "deny": {
            221: "execve",
            281: "execveat",
            117: "ptrace",
            97: "unshare",
            268: "setns",
            40: "mount",
            39: "umount2",
            41: "pivot_root",
            51: "chroot",
            270: "process_vm_readv",
            271: "process_vm_writev",
            425: "io_uring_setup",
            280: "bpf",
            104: "kexec_load",
            164: "setrlimit",
            438: "pidfd_getfd",
            241: "perf_event_open",
            282: "userfaultfd",
            264: "name_to_handle_at",
            265: "open_by_handle_at",
            217: "add_key",
            218: "request_key",
            219: "keyctl",
        },
        "clone": 220,
        "clone3": 435,
        "socket": 198,
        "socketpair": 199,
        "prlimit64": 261,
    },
}


def _seccomp_program(arch: dict[str, Any]) -> list[tuple[int, int, int, int]]:
    ld_w_abs, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    eperm = _ret_errno(errno.EPERM)
    prog: list[tuple[int, int, int, int]] = [
        (ld_w_abs, 0, 0, 4),  # seccomp_data.arch
        (jeq, 1, 0, arch["audit_arch"]),
        (ret, 0, 0, _RET_KILL_PROCESS),
        (ld_w_abs, 0, 0, 0),  # seccomp_data.nr
    ]
    if arch["x32_bit"] is not None:
        prog += [(jge, 0, 1, arch["x32_bit"]), (ret, 0, 0, eperm)]
    for nr in arch["deny"]:
        prog += [(jeq, 0, 1, nr), (ret, 0, 0, eperm)]
    prog += [(jeq, 0, 1, arch["clone3"]), (ret, 0, 0, _ret_errno(errno.ENOSYS))]
    # clone: threads only (CLONE_THREAD in flags, argument 0)
    prog += [
        (jeq, 0, 4, arch["clone"]),
        (ld_w_abs, 0, 0, 16),
        (jset, 0, 1, _CLONE_THREAD),
        (ret, 0, 0, _RET_ALLOW),
        (ret, 0, 0, eperm),
    ]
    # socket: none at all. The worker's pipe to its parent is inherited, so no family is
    # needed, and AF_UNIX would reach named sockets anywhere (Landlock does not cover them).
    prog += [(jeq, 0, 1, arch["socket"]), (ret, 0, 0, eperm)]
    # socketpair: AF_UNIX only (an anonymous pair reaches nothing outside the process)
    prog += [
        (jeq, 0, 4, arch["socketpair"]),
        (ld_w_abs, 0, 0, 16),
        (jeq, 0, 1, socket.AF_UNIX),
        (ret, 0, 0, _RET_ALLOW),
        (ret, 0, 0, eperm),
    ]
    # prlimit64: reading limits only (new_limit, argument 2, must be NULL); the parent moves
    # the CPU limit between cells, the worker can never raise (or lower) its own limits
    prog += [
        (jeq, 0, 6, arch["prlimit64"]),
        (ld_w_abs, 0, 0, 32),  # low word of argument 2
        (jeq, 0, 3, 0),
        (ld_w_abs, 0, 0, 36),  # high word
        (jeq, 0, 1, 0),
        (ret, 0, 0, _RET_ALLOW),
        (ret, 0, 0, eperm),
    ]
    prog.append((ret, 0, 0, _RET_ALLOW))
    return prog


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@functools.cache
def _libc() -> Any:
    """The C library with errno tracking (``None`` when it cannot be loaded)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - static or exotic builds
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


@functools.cache
def _seccomp_bytes(machine: str) -> bytes:
    return b"".join(struct.pack("HBBI", *ins) for ins in _seccomp_program(_ARCHES[machine]))


def prepare() -> None:
    """Build the ctypes objects once (called in the zygote, so workers start faster)."""
    _libc()
    if platform.machine() in _ARCHES:
        _seccomp_bytes(platform.machine())


def install_seccomp() -> bool:
    """Install the seccomp filter in the calling process (Linux x86-64/aarch64 only).

    Returns:
        Whether the filter is active. Failure (unsupported platform, kernel refusal) is not
        an error: the audit hook and rlimits still apply.
    """
    machine = platform.machine()
    libc = _libc()
    if machine not in _ARCHES or not sys.platform.startswith("linux") or libc is None:
        return False
    raw = _seccomp_bytes(machine)
    filters = ctypes.create_string_buffer(raw, len(raw))
    fprog = _SockFprog(len(raw) // 8, ctypes.cast(filters, ctypes.c_void_p))
    try:
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        rc = libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
    except AttributeError:  # pragma: no cover - libc without prctl
        return False
    return rc == 0


# -- landlock -------------------------------------------------------------------------------
_SYS_LANDLOCK = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
_LL_EXECUTE, _LL_WRITE_FILE, _LL_READ_FILE, _LL_READ_DIR = 1, 2, 4, 8
_LL_IOCTL_DEV = 1 << 15
_LL_RULE_PATH_BENEATH = 1
_LL_NET_ALL = 0b11  # BIND_TCP | CONNECT_TCP
_LL_SCOPE_ALL = 0b11  # abstract unix sockets | signals


def _landlock_fs_mask(abi: int) -> int:
    if abi >= 5:
        return (1 << 16) - 1
    if abi >= 3:
        return (1 << 15) - 1
    return (1 << 14) - 1 if abi == 2 else (1 << 13) - 1


def install_landlock(workdir: str, read_roots: tuple[str, ...]) -> int:
    """Confine the calling process's file system view with Landlock (Linux >= 5.13).

    The working directory gets every right, ``read_roots`` read-only rights, ``/dev/null``
    read/write; everything else is refused by the kernel. With ABI >= 4 TCP bind/connect
    are refused, with ABI >= 6 signals and abstract unix sockets are scoped to the process.

    Args:
        workdir: Directory with full access.
        read_roots: Directories that may be read (missing ones are skipped).

    Returns:
        The Landlock ABI version in force, or 0 when Landlock is unavailable.
    """
    numbers = _SYS_LANDLOCK.get(platform.machine())
    if numbers is None or not sys.platform.startswith("linux"):
        return 0
    create, add_rule, restrict = numbers
    libc = _libc()
    if libc is None:
        return 0
    abi = libc.syscall(ctypes.c_long(create), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    fs_mask = _landlock_fs_mask(abi)
    fields = [fs_mask]
    if abi >= 4:
        fields.append(_LL_NET_ALL)
    if abi >= 6:
        fields.append(_LL_SCOPE_ALL)
    attr = ctypes.create_string_buffer(struct.pack(f"{len(fields)}Q", *fields), 8 * len(fields))
    ruleset = libc.syscall(
        ctypes.c_long(create), attr, ctypes.c_size_t(8 * len(fields)), ctypes.c_uint32(0)
    )
    if ruleset < 0:
        return 0
    read_dir = _LL_EXECUTE | _LL_READ_FILE | _LL_READ_DIR
    rules = [(workdir, fs_mask)] + [(root, read_dir) for root in read_roots]
    rules.append(("/dev/null", _LL_READ_FILE | _LL_WRITE_FILE | (fs_mask & _LL_IOCTL_DEV)))
    try:
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):
                    access &= (
                        _LL_EXECUTE | _LL_READ_FILE | _LL_WRITE_FILE | _LL_IOCTL_DEV | (1 << 14)
                    )
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access & fs_mask, fd), 12)
                libc.syscall(
                    ctypes.c_long(add_rule),
                    ctypes.c_int(ruleset),
                    ctypes.c_int(_LL_RULE_PATH_BENEATH),
                    rule,
                    ctypes.c_uint32(0),
                )
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        rc = libc.syscall(ctypes.c_long(restrict), ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return abi if rc == 0 else 0


# -- capabilities -----------------------------------------------------------------------------
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}


def drop_capabilities(switch_user: Callable[[], None] | None = None) -> bool:
    """Drop every Linux capability (bounding, ambient, effective, permitted, inheritable).

    Without capabilities uid 0 no longer overrides file permissions, ptrace checks (reading
    other processes' ``/proc/<pid>/environ``), or resource-limit ceilings; files owned by
    root stay readable to uid 0, which is why a root parent also switches the worker's uid.

    Args:
        switch_user: Called after the bounding set is emptied (that needs CAP_SETPCAP) and
            before the remaining sets are cleared, e.g. to change the uid (which needs
            CAP_SETUID); exceptions propagate.

    Returns:
        Whether the effective capability set is now empty.
    """
    libc = _libc()
    number = _SYS_CAPSET.get(platform.machine())
    if libc is None or number is None:
        if switch_user is not None:
            switch_user()
        return False
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break  # past the last capability this kernel knows
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if switch_user is not None:
        switch_user()
    header = ctypes.create_string_buffer(struct.pack("Ii", _CAP_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(bytes(24), 24)  # two zeroed __user_cap_data_struct
    if libc.syscall(ctypes.c_long(number), header, data) != 0:
        return False
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16) == 0
    return False  # pragma: no cover - /proc always reports CapEff
