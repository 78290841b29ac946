"""Kernel layers of the worker's confinement: seccomp-BPF, Landlock, capabilities.

Unlike the audit hook (:mod:`collabsim.sandbox.policy`), these hold against native code and
against a cell that switches the hook off. All are best effort: when the kernel lacks one the
worker still runs, and the functions say whether they took effect.

* seccomp: no ``fork``/``exec``, no socket of any family (the worker's pipe is inherited),
  ``socketpair`` only for AF_UNIX, no ``connect``, ``sendmsg`` or addressed ``sendto`` (an
  end of a socketpair could otherwise send to any unix datagram socket by its path: Landlock
  up to ABI 7 scopes abstract unix sockets only), no changing resource limits, no
  namespaces, debugging, ``pidfd_getfd``, keyrings or handle-based opens, no System V IPC
  (shared memory, message queues, semaphores) and no POSIX message queues: those objects
  outlive the worker, would carry data from one session to the next and hold memory outside
  its limits (Linux x86-64/aarch64).
* Landlock (Linux >= 5.13): file system confined to the working directory plus read-only
  system/Python directories; TCP refused (ABI >= 4); signals and abstract unix sockets kept
  inside the worker (ABI >= 6).
* capabilities: all dropped (bounding, ambient, effective, permitted, inheritable).
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
from collections.abc import Callable
from typing import Any

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
            29: "shmget",
            30: "shmat",
            31: "shmctl",
            64: "semget",
            65: "semop",
            66: "semctl",
            68: "msgget",
            69: "msgsnd",
            70: "msgrcv",
            71: "msgctl",
            220: "semtimedop",
            240: "mq_open",
            241: "mq_unlink",
            42: "connect",
            46: "sendmsg",
            307: "sendmmsg",
        },
        "clone": 56,
        "clone3": 435,
        "socket": 41,
        "socketpair": 53,
        "sendto": 44,
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
            180: "mq_open",
            181: "mq_unlink",
            186: "msgget",
            187: "msgctl",
            188: "msgrcv",
            189: "msgsnd",
            190: "semget",
            191: "semctl",
            192: "semtimedop",
            193: "semop",
            194: "shmget",
            195: "shmctl",
            196: "shmat",
            203: "connect",
            211: "sendmsg",
            269: "sendmmsg",
        },
        "clone": 220,
        "clone3": 435,
        "socket": 198,
        "socketpair": 199,
        "sendto": 206,
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
    # sendto: no destination address (argument 4 NULL), which is what send() on the
    # worker's connected socket is; an address would reach any unix datagram socket by path
    # (a socketpair's end can address others), and Landlock does not cover those paths
    prog += _only_null_argument(arch["sendto"], 4)
    # prlimit64: reading limits only (new_limit, argument 2, must be NULL); the parent moves
    # the CPU limit between cells, the worker can never raise (or lower) its own limits
    prog += _only_null_argument(arch["prlimit64"], 2)
    prog.append((ret, 0, 0, _RET_ALLOW))
    return prog


def _only_null_argument(nr: int, index: int) -> list[tuple[int, int, int, int]]:
    """Instructions allowing syscall ``nr`` only with argument ``index`` NULL (else EPERM)."""
    ld_w_abs, jeq, ret = 0x20, 0x15, 0x06
    low = 16 + 8 * index  # seccomp_data.args[index], both 32-bit words
    return [
        (jeq, 0, 6, nr),
        (ld_w_abs, 0, 0, low),
        (jeq, 0, 3, 0),
        (ld_w_abs, 0, 0, low + 4),
        (jeq, 0, 1, 0),
        (ret, 0, 0, _RET_ALLOW),
        (ret, 0, 0, _ret_errno(errno.EPERM)),
    ]


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


def install_landlock(
    workdir: str, read_roots: tuple[str, ...], list_only: tuple[str, ...] = ()
) -> int:
    """Confine the calling process's file system view with Landlock (Linux >= 5.13).

    The working directory gets every right, ``read_roots`` read-only rights, ``list_only``
    the right to list their entries (not to read files), ``/dev/null`` read/write;
    everything else is refused by the kernel. With ABI >= 4 TCP bind/connect are refused,
    with ABI >= 6 signals and abstract unix sockets are scoped to the process.

    Args:
        workdir: Directory with full access.
        read_roots: Directories (or files) that may be read (missing ones are skipped).
        list_only: Directories that may only be listed (the way down to hidden data, see
            :mod:`collabsim.sandbox.hidden`).

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
    ruleset = _landlock_ruleset(libc, create, abi, fs_mask)
    if ruleset < 0:
        return 0
    try:
        for path, access in _landlock_rules(workdir, read_roots, list_only, fs_mask):
            _add_landlock_rule(libc, add_rule, ruleset, path, access & fs_mask)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        rc = libc.syscall(ctypes.c_long(restrict), ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return abi if rc == 0 else 0


def _landlock_ruleset(libc: Any, create: int, abi: int, fs_mask: int) -> int:
    """Create a ruleset handling ``fs_mask`` (and TCP, scopes where the ABI has them).

    Returns:
        The ruleset's descriptor, negative on failure.
    """
    fields = [fs_mask]
    if abi >= 4:
        fields.append(_LL_NET_ALL)
    if abi >= 6:
        fields.append(_LL_SCOPE_ALL)
    attr = ctypes.create_string_buffer(struct.pack(f"{len(fields)}Q", *fields), 8 * len(fields))
    return libc.syscall(
        ctypes.c_long(create), attr, ctypes.c_size_t(8 * len(fields)), ctypes.c_uint32(0)
    )


def _landlock_rules(
    workdir: str, read_roots: tuple[str, ...], list_only: tuple[str, ...], fs_mask: int
) -> list[tuple[str, int]]:
    """(path, rights) of every rule: the workdir, the read roots, list-only folders, /dev/null."""
    read_dir = _LL_EXECUTE | _LL_READ_FILE | _LL_READ_DIR
    rules = [(workdir, fs_mask)] + [(root, read_dir) for root in read_roots]
    rules += [(folder, _LL_READ_DIR) for folder in list_only]
    rules.append(("/dev/null", _LL_READ_FILE | _LL_WRITE_FILE | (fs_mask & _LL_IOCTL_DEV)))
    return rules


def _add_landlock_rule(libc: Any, add_rule: int, ruleset: int, path: str, access: int) -> None:
    """Grant ``access`` beneath ``path`` (file rights only for a file; missing: skipped)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            access &= _LL_EXECUTE | _LL_READ_FILE | _LL_WRITE_FILE | _LL_IOCTL_DEV | (1 << 14)
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
        libc.syscall(
            ctypes.c_long(add_rule),
            ctypes.c_int(ruleset),
            ctypes.c_int(_LL_RULE_PATH_BENEATH),
            rule,
            ctypes.c_uint32(0),
        )
    finally:
        os.close(fd)


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


__all__ = ["drop_capabilities", "install_landlock", "install_seccomp", "prepare"]
