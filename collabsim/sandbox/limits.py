"""Records shared by the sandbox parent side and its worker: limits and cell results."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

ExecStatus = Literal[
    "ok", "error", "timeout", "memory_limit", "cpu_limit", "disk_limit", "crashed", "blocked"
]
"""Outcome of one cell.

* ``ok``: the cell ran to the end.
* ``error``: the cell raised a Python exception (``ExecResult.error`` holds a short traceback).
* ``timeout``: the cell exceeded ``SandboxLimits.wall_seconds``.
* ``memory_limit``: an allocation exceeded ``SandboxLimits.memory_mb``.
* ``cpu_limit``: the cell used more than ``SandboxLimits.cpu_seconds`` of CPU time.
* ``disk_limit``: the session's files grew past ``SandboxLimits.disk_mb`` or
  ``SandboxLimits.max_files``; the worker was killed and the files the session wrote were
  removed.
* ``crashed``: the worker process died (exit, abort, segfault ...) or sent a reply that does
  not belong to the cell.
* ``blocked``: the cell attempted something the sandbox policy forbids (network, processes,
  writing outside the working directory, reading private files ...).
"""

EXEC_STATUSES: tuple[str, ...] = (
    "ok",
    "error",
    "timeout",
    "memory_limit",
    "cpu_limit",
    "disk_limit",
    "crashed",
    "blocked",
)


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits applied to every cell of a sandbox.

    Attributes:
        wall_seconds: Wall-clock time allowed per cell.
        cpu_seconds: CPU time (all threads) allowed per cell.
        memory_mb: Address space the cell code may allocate on top of the pre-loaded
            interpreter (Python, numpy and pandas already mapped, about 200 MB).
        output_chars: Maximum characters of stdout+stderr kept per cell; longer output keeps
            its head and tail and says how much was cut.
        file_mb: Maximum size of any single file the code writes.
        disk_mb: Disk space the session may add to its working directory (all files, on
            top of the task files, plus files the worker removed but keeps open); checked
            after every cell and while a cell runs.
        max_files: Files, folders and links the session may add to its working directory
            (on top of the task files); checked with ``disk_mb``, by a scan that stops at
            this many entries (empty files take no space but cost every check).
    """

    wall_seconds: float = 30.0
    cpu_seconds: float = 30.0
    memory_mb: int = 2048
    output_chars: int = 4000
    file_mb: int = 50
    disk_mb: int = 256
    max_files: int = 10_000

    def __post_init__(self) -> None:
        for name in (
            "wall_seconds",
            "cpu_seconds",
            "memory_mb",
            "output_chars",
            "file_mb",
            "disk_mb",
            "max_files",
        ):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"SandboxLimits.{name} must be positive and finite, got {value!r}")

    def to_json(self) -> dict[str, Any]:
        """Return the limits as a JSON-serialisable dict."""
        return asdict(self)


@dataclass(frozen=True)
class ExecResult:
    """Outcome of executing one code cell.

    Attributes:
        output: Captured stdout and stderr (interleaved, possibly truncated) plus the value of
            a trailing expression, notebook style.
        error: Short description of the failure (last traceback lines, limit hit, policy
            violation); ``None`` when the cell succeeded.
        status: One of ``EXEC_STATUSES``.
        truncated: Whether ``output`` was shortened to ``SandboxLimits.output_chars``.
        wall_seconds: Wall-clock time of the cell as seen by the caller.
        infrastructure: The sandbox itself failed (its worker could not be started or set
            up), not the cell's code; the session's result is then no measure of its
            participants (:mod:`collabsim.session.sandboxing`).
    """

    output: str
    error: str | None
    status: ExecStatus
    truncated: bool
    wall_seconds: float
    infrastructure: bool = False

    @property
    def ok(self) -> bool:
        """Whether the cell ran to the end without an error."""
        return self.status == "ok"
