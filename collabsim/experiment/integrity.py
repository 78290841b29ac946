"""A stored result checked against its trace, so an edited record is never reused.

``result.json`` carries ``trace_sha256``, the SHA-256 of the session's ``trace.jsonl`` as it
was when the result was written. A record is consistent with its trace when

* the trace's digest equals ``trace_sha256`` (records written before the digest existed
  have none; the checks below still apply to them);
* the trace holds ``n_events`` events;
* the trace's last event is ``SESSION_END`` and its ``status`` and ``submitted`` text equal
  the record's ``status`` and ``submitted_hypothesis`` (a trace without ``SESSION_END``
  belongs to a session that ended with ``error``).

The trace is what the metrics (and a reader) take as the record of what happened, so a
record edited after the fact (say, a submitted hypothesis changed from a wrong answer to the
right one) fails these checks and the session runs again.

The record also carries ``record_sha256``, the SHA-256 of its own other fields (canonical
JSON), so that an edit of a field the trace does not show (``counts``, ``turns``,
``virtual_seconds``, ``gates``) is caught too: everything a reuse reads is checked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

TRACE_DIGEST_KEY = "trace_sha256"
RECORD_DIGEST_KEY = "record_sha256"


def record_digest(record: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a result record's fields but ``record_sha256`` (canonical JSON)."""
    body = {k: v for k, v in record.items() if k != RECORD_DIGEST_KEY}
    text = json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def trace_digest(trace: Path) -> str | None:
    """SHA-256 (hex) of a trace file's bytes, or None when it cannot be read."""
    try:
        return hashlib.sha256(Path(trace).read_bytes()).hexdigest()
    except OSError:
        return None


def trace_mismatch(
    record: Mapping[str, Any], trace: Path, redact: Callable[[str], str] = str
) -> str | None:
    """Why ``record`` does not match the trace at ``trace``, or None when it does.

    Args:
        record: The stored result record (``result.json`` as a dict).
        trace: The session's ``trace.jsonl``.
        redact: The redaction both files went through (texts are compared redacted).
    """
    try:
        raw = Path(trace).read_bytes()
    except FileNotFoundError:
        return "its trace.jsonl is missing"
    except OSError as err:
        return f"its trace.jsonl is unreadable ({type(err).__name__})"
    lines = [line for line in raw.splitlines() if line.strip()]
    return (
        _digest_mismatch(record, raw)
        or _count_mismatch(record, lines)
        or _end_mismatch(record, lines, redact)
        or _record_mismatch(record)
    )


def _record_mismatch(record: Mapping[str, Any]) -> str | None:
    """Why the record's fields do not have its own digest (None: equal, or no digest)."""
    expected = record.get(RECORD_DIGEST_KEY)
    if expected is not None and expected != record_digest(record):
        return "result.json was changed after it was written (its record_sha256 differs)"
    return None


def _digest_mismatch(record: Mapping[str, Any], raw: bytes) -> str | None:
    """Why the trace's bytes do not have the record's digest (None: equal, or no digest)."""
    expected = record.get(TRACE_DIGEST_KEY)
    if expected is not None and expected != hashlib.sha256(raw).hexdigest():
        return "trace.jsonl does not match the digest in result.json"
    return None


def _count_mismatch(record: Mapping[str, Any], lines: list[bytes]) -> str | None:
    """Why the trace does not hold the record's ``n_events`` events (None: it does)."""
    n_events = record.get("n_events")
    if isinstance(n_events, int) and n_events != len(lines):
        return f"result.json counts {n_events} events, trace.jsonl holds {len(lines)}"
    return None


def _end_mismatch(
    record: Mapping[str, Any], lines: list[bytes], redact: Callable[[str], str]
) -> str | None:
    """Why the trace's last event does not end the session the record describes.

    A trace without ``SESSION_END`` is consistent only with a record of status ``error``.
    """
    try:
        last = json.loads(lines[-1]) if lines else {}
    except ValueError:
        return "the last line of trace.jsonl is not JSON"
    if not isinstance(last, dict) or last.get("action_type") != "SESSION_END":
        return None if record.get("status") == "error" else "trace.jsonl has no SESSION_END event"
    end = last.get("args") if isinstance(last.get("args"), dict) else {}
    if end.get("status") != record.get("status"):
        return (f"status {record.get('status')!r} in result.json, {end.get('status')!r} in "
                "trace.jsonl")
    submitted = str(record.get("submitted_hypothesis") or "")
    if redact(str(end.get("submitted") or "")) != redact(submitted):
        return "submitted_hypothesis in result.json differs from the one in trace.jsonl"
    return None


__all__ = ["RECORD_DIGEST_KEY", "TRACE_DIGEST_KEY", "record_digest", "trace_digest",
           "trace_mismatch"]
