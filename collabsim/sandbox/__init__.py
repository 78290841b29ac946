"""Out-of-process Python sandbox for participants' ``EXECUTE_CODE`` cells (Linux only).

Public API: :class:`Sandbox`, :class:`SandboxLimits`, :class:`ExecResult`, plus
:class:`SandboxError`, :func:`set_preload_modules`, :func:`shutdown_zygote` and
:func:`zygote_pid` for infrastructure control.
"""

from collabsim.sandbox.limits import EXEC_STATUSES, ExecResult, ExecStatus, SandboxLimits
from collabsim.sandbox.sandbox import (
    Sandbox,
    SandboxError,
    set_preload_modules,
    shutdown_zygote,
    zygote_pid,
)

__all__ = [
    "EXEC_STATUSES",
    "ExecResult",
    "ExecStatus",
    "Sandbox",
    "SandboxError",
    "SandboxLimits",
    "set_preload_modules",
    "shutdown_zygote",
    "zygote_pid",
]
