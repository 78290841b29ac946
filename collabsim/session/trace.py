"""Trace files: one :class:`~collabsim.core.events.TraceEvent` JSON object per line.

:class:`TraceWriter` appends and flushes one line per event, so a crash loses at most the
line being written. The one exception to append-only: when a session ends with actions in
flight, their events change status to ``interrupted`` and the file is rewritten once
(:meth:`TraceWriter.rewrite`, atomically: a reader sees the old or the new file). A trace
holds no wall-clock times or process ids: equal session inputs give byte-identical files.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from collabsim.core.events import TraceEvent
from collabsim.core.redaction import Redactor
from collabsim.session.results import write_text_atomic


class TraceReadError(ValueError):
    """A trace line could not be read; the message names the file and line."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line


class TraceWriter:
    """Append-only JSONL writer for trace events (flushes after every event).

    Args:
        path: Trace file; its parent folder is created; an existing file is replaced.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] | None = self.path.open("w", encoding="utf-8", newline="\n")
        self._redact = Redactor()  # credentials never reach a trace (collabsim/core/redaction.py)
        self.n_events = 0

    def write(self, event: TraceEvent) -> None:
        """Append one event as a line and flush it."""
        if self._fh is None:
            raise ValueError(f"trace writer for {self.path} is closed")
        self._fh.write(self._redact(event.to_json()) + "\n")
        self._fh.flush()
        self.n_events += 1

    def rewrite(self, events: Sequence[TraceEvent]) -> None:
        """Replace the file's lines by ``events`` (temporary file + ``os.replace``); later
        :meth:`write` calls append to it."""
        if self._fh is None:
            raise ValueError(f"trace writer for {self.path} is closed")
        self._fh.close()
        self._fh = None
        try:
            write_text_atomic(self.path, "".join(self._redact(e.to_json()) + "\n" for e in events))
        finally:
            self._fh = self.path.open("a", encoding="utf-8", newline="\n")
        self.n_events = len(events)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_trace(path: Path, *, allow_truncated_tail: bool = False) -> list[TraceEvent]:
    """Read a trace file.

    Args:
        path: JSONL trace.
        allow_truncated_tail: Ignore an unparseable *last* line (a crash mid-write).

    Returns:
        Events in file order.

    Raises:
        TraceReadError: A line is not a JSON object with the trace fields (names file and
            line number).
        FileNotFoundError: The file does not exist.
    """
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    events: list[TraceEvent] = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            events.append(TraceEvent.from_dict(data))
        except (ValueError, KeyError, TypeError) as exc:
            if allow_truncated_tail and i == len(lines):
                break
            what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise TraceReadError(path, i, f"bad trace line: {what}") from exc
    return events
