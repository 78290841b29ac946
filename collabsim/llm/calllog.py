"""The per-session call log: one JSON line per model call, written next to the trace.

Each line records the tag (participant), model, the prompt messages, the reply text, why the
model stopped (``finish_reason``), its native tool calls, tokens, cost, whether the reply came from the cache, latency, retries and any error - all passed
through :func:`collabsim.llm.redact.redact_data`, so no credential is ever written.

File name: for a trace ``<dir>/<name>.jsonl`` the log is ``<dir>/<name>.llm_calls.jsonl``
(:func:`call_log_path_for`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from collabsim.llm.cache import loggable_params
from collabsim.llm.redact import redact_data
from collabsim.llm.toolcalls import ToolCall
from collabsim.llm.usage import UsageLedger

CALL_LOG_SUFFIX = ".llm_calls.jsonl"


def call_log_path_for(trace_path: Path) -> Path:
    """Return the call-log path that sits next to ``trace_path``.

    Args:
        trace_path: A session's trace file (``.../trace.jsonl``, ``.../s1.trace.jsonl``).

    Returns:
        ``<dir>/<trace name without .jsonl>.llm_calls.jsonl``.
    """
    trace_path = Path(trace_path)
    name = trace_path.name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else trace_path.stem
    return trace_path.with_name(stem + CALL_LOG_SUFFIX)


class CallLog:
    """Appends redacted call records to a JSONL file (thread- and task-safe; the file is
    opened, appended to and closed per record, so a crash loses at most one line).

    The file is truncated when the first record is written, so a rerun of a session replaces
    its old log rather than appending to it.
    """

    def __init__(self, path: Path) -> None:
        """Log to ``path`` (created on the first record)."""
        self.path = Path(path)
        self._lock = threading.Lock()
        self._seq = 0
        self._started = False

    def write(
        self,
        *,
        tag: str,
        model: str,
        messages: Sequence[Mapping[str, str]],
        params: Mapping[str, Any],
        reply: str | None,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float,
        cost_known: bool,
        cached: bool,
        latency_s: float,
        retries: int,
        cache_key: str,
        error: str | None = None,
        finish_reason: str | None = None,
        tool_calls: Sequence[ToolCall] = (),
    ) -> None:
        """Append one call record."""
        record = {
            "call": self._seq,
            "tag": tag,
            "model": model,
            "params": loggable_params(params),
            "messages": [dict(m) for m in messages],
            "reply": reply,
            "finish_reason": finish_reason,
            "tool_calls": [call.to_dict() for call in tool_calls],
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "cost_usd": round(cost_usd, 10),
            "cost_known": cost_known,
            "cached": cached,
            "latency_s": round(latency_s, 4),
            "retries": retries,
            "cache_key": cache_key,
            "error": error,
        }
        line = json.dumps(redact_data(record), ensure_ascii=False)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            mode = "a" if self._started else "w"
            with self.path.open(mode, encoding="utf-8") as handle:
                handle.write(line + "\n")
            self._started = True
            self._seq += 1

    def close(self) -> None:
        """Nothing to release (each record is appended and the file closed); kept for API."""


def read_call_log(path: Path) -> list[dict[str, Any]]:
    """Read a call log back as a list of dicts."""
    with Path(path).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def summarize_call_logs(paths: Iterable[Path]) -> UsageLedger:
    """Sum the usage recorded in call logs, per tag (participant).

    Args:
        paths: Call-log files.

    Returns:
        A ledger with calls, cached calls, tokens and cost per tag (failed calls counted).
    """
    ledger = UsageLedger()
    for path in paths:
        for record in read_call_log(path):
            tag = str(record.get("tag", ""))
            if record.get("reply") is None:
                ledger.record_failure(tag, model=str(record["model"]),
                                      retries=int(record.get("retries", 0)))
                continue
            ledger.record_reply(
                tag,
                model=str(record["model"]),
                prompt_tokens=int(record["prompt_tokens"]),
                completion_tokens=int(record["completion_tokens"]),
                cost_usd=float(record["cost_usd"]),
                cost_known=bool(record["cost_known"]),
                cached=bool(record["cached"]),
                retries=int(record.get("retries", 0)),
            )
    return ledger
