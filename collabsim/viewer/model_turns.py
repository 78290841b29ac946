"""An LLM session's model turns, read from the call logs beside its trace.

Each model call of a session is one line of its call log (``llm_calls.jsonl``, and
``judge.llm_calls.jsonl`` for an LLM judge): who asked (tag), which model, the prompt size,
the reply, its price. The viewer shows them as a table under the timeline, each with the
parse result of the reply (the action the engine's parser reads from it, or its error), and
adds the session's totals to its header cards and the page's totals to the picker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from collabsim.core.action_parser import parse_action
from collabsim.experiment.session_costs import JUDGE_SEAT, seat_of, session_call_logs
from collabsim.llm.calllog import read_call_log

MAX_REPLY_CHARS = 4000
"""Replies longer than this are shown cut (the call log keeps them whole)."""


def _parse_text(tag: str, reply: str | None, error: str | None) -> str:
    if reply is None:
        return f"call failed: {error or 'no reply'}"
    if seat_of(tag) == JUDGE_SEAT:
        return "judge reply (JSON, not an action)"
    parsed = parse_action(reply)
    if parsed.ok and parsed.action is not None:
        return f"action {parsed.action.name}"
    return f"no valid action: {parsed.error}"


def model_turns(session_dir: Path) -> list[dict[str, Any]]:
    """The model calls of one session, in call order per log (participants first).

    Returns:
        One dict per call: ``call``, ``tag``, ``model``, ``prompt_tokens``,
        ``completion_tokens``, ``cost_usd``, ``cost_known``, ``cached``, ``reply`` (cut at
        :data:`MAX_REPLY_CHARS`), ``parse``; empty when the session called no model.
    """
    turns = []
    logs = sorted(session_call_logs(session_dir), key=lambda p: (p.name != "llm_calls.jsonl",
                                                                 p.name))
    for log in logs:
        try:
            records = read_call_log(log)
        except (OSError, ValueError):
            continue
        for record in records:
            reply = record.get("reply")
            tag = str(record.get("tag", ""))
            text = reply if isinstance(reply, str) else None
            turns.append({
                "call": len(turns) + 1,
                "tag": tag,
                "model": str(record.get("model", "")),
                "prompt_tokens": int(record.get("prompt_tokens") or 0),
                "completion_tokens": int(record.get("completion_tokens") or 0),
                "cost_usd": float(record.get("cost_usd") or 0.0),
                "cost_known": bool(record.get("cost_known", True)),
                "cached": bool(record.get("cached", False)),
                "reply": (text or "")[:MAX_REPLY_CHARS]
                         + ("\u2026" if text and len(text) > MAX_REPLY_CHARS else ""),
                "parse": _parse_text(tag, text, record.get("error")),
            })
    return turns


def turn_totals(turns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Calls, tokens, dollars and unknown-price calls of a session's model turns."""
    return {
        "llm_calls": len(turns),
        "prompt_tokens": sum(int(t["prompt_tokens"]) for t in turns),
        "completion_tokens": sum(int(t["completion_tokens"]) for t in turns),
        "cost_usd": round(sum(float(t["cost_usd"]) for t in turns), 8),
        "cost_unknown_calls": sum(1 for t in turns if not t["cost_known"]),
    }


def cost_card(totals: Mapping[str, Any]) -> dict[str, str]:
    """The header card of a session's model use."""
    unknown = totals["cost_unknown_calls"]
    hint = (f"{totals['llm_calls']} model calls, {totals['prompt_tokens']:,} prompt + "
            f"{totals['completion_tokens']:,} completion tokens"
            + (f"; {unknown} without a known price (counted as $0)" if unknown else ""))
    return {"label": "model cost", "value": f"${totals['cost_usd']:.4f}", "hint": hint}


def page_totals_text(indexes: Sequence[Mapping[str, Any]]) -> str | None:
    """The picker's line summing the model use of a page's sessions (None without any)."""
    priced = [i["cost"] for i in indexes if i.get("cost")]
    if not priced:
        return None
    calls = sum(c["llm_calls"] for c in priced)
    prompt = sum(c["prompt_tokens"] for c in priced)
    completion = sum(c["completion_tokens"] for c in priced)
    usd = sum(c["cost_usd"] for c in priced)
    unknown = sum(c["cost_unknown_calls"] for c in priced)
    text = (f"Model use: {calls} calls, {prompt:,} prompt + {completion:,} completion tokens, "
            f"${usd:.4f} over {len(priced)} session(s)")
    return text + (f" ({unknown} calls without a known price, counted as $0)" if unknown else "")
