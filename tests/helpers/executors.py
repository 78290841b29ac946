"""A fast stand-in for the sandbox, for tests whose subject is not code isolation."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class CellResult:
    """What :meth:`InProcessExecutor.execute` returns (the sandbox result's fields)."""

    output: str
    error: str | None
    status: str


class InProcessExecutor:
    """Runs cells with ``exec`` in one namespace, working directory = the task folder.

    Errors become the cell's output as the sandbox reports them (``Type: message``, status
    ``error``). Matches :class:`collabsim.session.config.CodeExecutor`; use it as an
    ``executor_factory`` (``InProcessExecutor(files, limits)``).
    """

    def __init__(self, files: Sequence[Path], limits: Any = None) -> None:
        self.cwd = Path(files[0]).parent if files else Path.cwd()
        self.namespace: dict[str, Any] = {}
        self.cells: list[str] = []

    def execute(self, code: str) -> CellResult:
        """Run one cell; never raises on the cell's errors."""
        self.cells.append(code)
        buffer = io.StringIO()
        old = os.getcwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(buffer):
                exec(compile(code, "<cell>", "exec"), self.namespace)  # noqa: S102 - test cells
        except Exception as exc:  # noqa: BLE001 - mimic the sandbox: errors become output
            return CellResult(buffer.getvalue(), f"{type(exc).__name__}: {exc}", "error")
        finally:
            os.chdir(old)
        return CellResult(buffer.getvalue(), None, "ok")

    def close(self) -> None:
        """Drop the namespace."""
        self.namespace.clear()


def run_cell(code: str, cwd: str | Path) -> str:
    """Run one self-contained analysis cell in a fresh namespace with ``cwd`` as working
    directory and return what it printed (our own cells only: no isolation)."""
    buffer, old = io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(buffer):
            exec(code, {})  # noqa: S102 - our own analysis cells
    finally:
        os.chdir(old)
    return buffer.getvalue()
