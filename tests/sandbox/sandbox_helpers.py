"""Helpers for the sandbox tests: fast limits and process bookkeeping via /proc (no psutil)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from collabsim.sandbox import Sandbox, SandboxLimits

FAST = SandboxLimits(wall_seconds=2.0, cpu_seconds=2.0, memory_mb=512, output_chars=400, file_mb=5)


def parent_of(pid: int) -> int | None:
    """Return the parent pid of ``pid`` (None if it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def state_of(pid: int) -> str | None:
    """Return the /proc state letter of ``pid`` (None if it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def descendants(root: int) -> set[int]:
    """All live (non-zombie) descendants of ``root``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            ppid = parent_of(int(entry))
            if ppid is not None:
                children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return {pid for pid in found if state_of(pid) not in (None, "Z")}


def gone(pid: int, timeout: float = 3.0) -> bool:
    """Wait until ``pid`` no longer exists (zombies count as gone once reaped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if state_of(pid) is None:
            return True
        time.sleep(0.01)
    return state_of(pid) is None


# One line through gc.get_objects() switches a worker's audit hook off.
DISABLE_HOOK = (
    "import gc\n"
    "from collabsim.sandbox.policy import AuditPolicy\n"
    "next(o for o in gc.get_objects() if isinstance(o, AuditPolicy)).internal = 1\n"
    "print('hook off')"
)


def open_sandbox(limits: SandboxLimits, hook: str, files: tuple[Path, ...] = ()) -> Sandbox:
    """A sandbox with ``limits``; with ``hook="off"`` its audit hook is switched off first
    (then only the kernel layers and the parent's own checks stand in the way)."""
    sb = Sandbox(list(files), limits)
    if hook == "off":
        result = sb.execute(DISABLE_HOOK)
        assert result.output == "hook off\n", result
    return sb
