"""Model use per session and seat, read from the sessions' call logs.

Every model call of a session is a line of a call log in the session's folder
(``llm_calls.jsonl`` of the participants, beside the trace, and ``judge.llm_calls.jsonl`` of
an LLM judge); :func:`collabsim.llm.calllog.summarize_call_logs` sums them per tag. This
module is the one place that turns those sums into table columns:

* per session: ``llm_calls``, ``llm_failed_calls``, ``prompt_tokens``,
  ``completion_tokens``, ``cost_usd`` and ``cost_unknown_calls`` (replies of a model
  without a known price, counted as $0: give it one in ``llm.prices``);
* per seat (``agent``, ``D``, ``R``, ``judge``; the judges' tags all count as ``judge``):
  ``<seat>_calls``, ``<seat>_prompt_tokens``, ``<seat>_completion_tokens``,
  ``<seat>_cost_usd``.

A table none of whose sessions made a model call (``policy=scripted`` without an LLM judge)
gets no cost column at all, so its ``sessions.csv`` is what it was before costs existed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from collabsim.llm.calllog import CALL_LOG_SUFFIX, summarize_call_logs
from collabsim.llm.usage import TagUsage

JUDGE_SEAT = "judge"
SEATS = ("agent", "D", "R", JUDGE_SEAT)
"""Seats in column order (other member names follow, sorted)."""
TOTAL_COLUMNS = ("llm_calls", "llm_failed_calls", "prompt_tokens", "completion_tokens",
                 "cost_usd", "cost_unknown_calls")
SEAT_FIELDS = ("calls", "prompt_tokens", "completion_tokens", "cost_usd")
COST_DECIMALS = 8


def seat_of(tag: str) -> str:
    """The seat a call's tag belongs to (``initiative-judge``, ``process-judge:x`` -> judge)."""
    return JUDGE_SEAT if JUDGE_SEAT in tag else tag


def session_call_logs(session_dir: Path) -> list[Path]:
    """The call logs in one session folder (participants' and judge's), sorted."""
    folder = Path(session_dir)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.name.endswith(CALL_LOG_SUFFIX.removeprefix(".")) and p.is_file())


def seat_usage(session_dir: Path) -> dict[str, TagUsage]:
    """Usage per seat of one session (empty when it made no model call)."""
    ledger = summarize_call_logs(session_call_logs(session_dir))
    seats: dict[str, TagUsage] = {}
    for tag, usage in ledger.by_tag.items():
        seat = seat_of(tag)
        seats[seat] = seats.get(seat, TagUsage()).add(usage)
    return seats


def _usd(value: float) -> float:
    return round(value, COST_DECIMALS)


def cost_columns(session_dirs: Sequence[Path | str | None]) -> pd.DataFrame | None:
    """The cost columns of sessions, one row per folder (in order); None without any call.

    Args:
        session_dirs: Each session's folder (None or a missing folder: no calls).

    Returns:
        The columns described in the module docstring, or None when no session called a
        model.
    """
    per_session = [seat_usage(Path(d)) if d else {} for d in session_dirs]
    used = {seat for seats in per_session for seat, u in seats.items()
            if u.calls or u.failed_calls}
    if not used:
        return None
    order = [s for s in SEATS if s in used] + sorted(used - set(SEATS))
    rows = []
    for seats in per_session:
        total = TagUsage()
        for usage in seats.values():
            total = total.add(usage)
        row: dict[str, Any] = {
            "llm_calls": total.calls, "llm_failed_calls": total.failed_calls,
            "prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens,
            "cost_usd": _usd(total.cost_usd), "cost_unknown_calls": total.unknown_cost_calls,
        }
        for seat in order:
            usage = seats.get(seat, TagUsage())
            row.update({f"{seat}_calls": usage.calls,
                        f"{seat}_prompt_tokens": usage.prompt_tokens,
                        f"{seat}_completion_tokens": usage.completion_tokens,
                        f"{seat}_cost_usd": _usd(usage.cost_usd)})
        rows.append(row)
    return pd.DataFrame(rows)


def add_cost_columns(sessions: pd.DataFrame, session_dirs: Sequence[Path | str | None]
                     ) -> pd.DataFrame:
    """``sessions`` with the cost columns appended (rows in the order of ``session_dirs``).

    Columns already present are replaced (the call logs are the one source). Without any
    model call the table is returned unchanged.
    """
    costs = cost_columns(session_dirs)
    if costs is None:
        return sessions
    out = sessions.drop(columns=[c for c in costs.columns if c in sessions.columns])
    costs.index = out.index
    return pd.concat([out, costs], axis=1)


def cost_seats(columns: Iterable[str]) -> list[str]:
    """The seats that have cost columns among ``columns``, in column order."""
    return [c.removesuffix("_cost_usd") for c in columns
            if c.endswith("_cost_usd") and c != "cost_usd"]


def cost_totals(sessions: pd.DataFrame) -> dict[str, Any] | None:
    """Totals of a sessions table's cost columns (None when it has none).

    Returns:
        ``{"sessions", "llm_calls", "llm_failed_calls", "prompt_tokens",
        "completion_tokens", "cost_usd", "cost_unknown_calls", "seats": {seat: {calls,
        prompt_tokens, completion_tokens, cost_usd}}}``.
    """
    if "cost_usd" not in sessions.columns:
        return None

    def total(column: str) -> float:
        return float(pd.to_numeric(sessions[column], errors="coerce").fillna(0).sum())

    out: dict[str, Any] = {"sessions": len(sessions)}
    for column in TOTAL_COLUMNS:
        value = total(column) if column in sessions else 0.0
        out[column] = _usd(value) if column == "cost_usd" else int(value)
    out["seats"] = {
        seat: {f: (_usd(total(f"{seat}_{f}")) if f == "cost_usd" else int(total(f"{seat}_{f}")))
               for f in SEAT_FIELDS if f"{seat}_{f}" in sessions}
        for seat in cost_seats(sessions.columns)
    }
    return out


def cost_line(totals: Mapping[str, Any]) -> str:
    """The report's line about model use (from :func:`cost_totals`)."""
    seats = ", ".join(f"{seat} {s.get('calls', 0)} calls ${s.get('cost_usd', 0.0):.4f}"
                      for seat, s in totals["seats"].items())
    line = (f"Model use over {totals['sessions']} session(s): {totals['llm_calls']} calls"
            f" ({totals['llm_failed_calls']} failed), {totals['prompt_tokens']:,} prompt + "
            f"{totals['completion_tokens']:,} completion tokens, ${totals['cost_usd']:.4f}"
            + (f" ({seats})" if seats else ""))
    if totals["cost_unknown_calls"]:
        line += (f"; {totals['cost_unknown_calls']} call(s) of a model without a known price "
                 "counted as $0 (give it one in llm.prices)")
    return line
