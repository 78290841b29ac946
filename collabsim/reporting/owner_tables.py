"""Owner tables: does the table of gate owners a ``scaffolded`` team chose differ from the
preassigned one, and does Performance differ with it (docs/reports.md)?

The gates in force during a session's work phase are in its trace: the ``PHASE_START`` env
event with ``args.phase == "work"`` carries ``args.gates`` (action -> owner; under
``scaffolded`` the table the team chose in its build phase, under ``preassigned_gates`` the
configured one). A ``scaffolded`` session is paired with the ``preassigned_gates`` session of
the same task, team, seed and settings (every other variant column); a pair's owner tables
*differ* when the two mappings are not equal, its Performance *differs* when the two scores
are not equal (both scored).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from collabsim.reporting.tables import scored_sessions
from collabsim.session.trace import TraceReadError, read_trace

CHOSEN = "scaffolded"
PREASSIGNED = "preassigned_gates"
PAIR_COLUMNS = ["chosen_gates", "preassigned_gates", "tables_differ", "Performance_chosen",
                "Performance_preassigned", "performance_differs"]
SUMMARY_COLUMNS = ["pairs", "tables_differ", "performance_differs", "both_differ"]


def work_gates(trace: Path) -> dict[str, str] | None:
    """The gates in force in the work phase of the session traced in ``trace`` (action ->
    owner), or None when the trace cannot be read or has no work-phase ``PHASE_START``."""
    try:
        events = read_trace(trace, allow_truncated_tail=True)
    except (OSError, TraceReadError, ValueError):
        return None
    gates = None
    for event in events:
        if (event.actor_type == "env" and event.action_type == "PHASE_START"
                and event.args.get("phase") == "work"):
            raw = event.args.get("gates") or {}
            gates = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}
    return gates


def _gates_text(gates: Mapping[str, str] | None) -> str:
    if gates is None:
        return ""
    return json.dumps(dict(sorted(gates.items())))


def owner_pairs(sessions: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Every (scaffolded, preassigned_gates) pair of sessions with both owner tables.

    Args:
        sessions: The report's sessions table (``task_id``, ``team``, ``structure``,
            ``seed``, ``status``, ``Performance``, ``session_dir``: the folder of the
            session's ``trace.jsonl``) and the ``by`` columns.
        by: The variant columns besides structure and team the pairs must share (swept
            settings, the ablation option).

    Returns:
        One row per pair: ``task_id``, ``team``, ``seed``, the ``by`` columns and
        :data:`PAIR_COLUMNS` (the owner tables as JSON text). A session whose trace has no
        work-phase gates pairs with nothing.
    """
    keys = ["task_id", "team", "seed", *[c for c in by if c not in ("structure", "team")]]
    columns = [*keys, *PAIR_COLUMNS]
    data = scored_sessions(sessions)
    data = data[data["structure"].isin((CHOSEN, PREASSIGNED))]
    if data.empty or "session_dir" not in data:
        return pd.DataFrame(columns=columns)
    gates = [work_gates(Path(d) / "trace.jsonl") if isinstance(d, str) and d else None
             for d in data["session_dir"]]
    data = data.assign(_gates=gates)
    data = data[data["_gates"].notna()]
    chosen = data[data["structure"] == CHOSEN]
    fixed = data[data["structure"] == PREASSIGNED]
    pairs = chosen.merge(fixed, on=keys, suffixes=("_c", "_p"))
    rows: list[list[Any]] = []
    for _, r in pairs.iterrows():
        perf_c = pd.to_numeric(r["Performance_c"], errors="coerce")
        perf_p = pd.to_numeric(r["Performance_p"], errors="coerce")
        rows.append([*[r[k] for k in keys], _gates_text(r["_gates_c"]),
                     _gates_text(r["_gates_p"]), r["_gates_c"] != r["_gates_p"],
                     float(perf_c), float(perf_p), bool(perf_c != perf_p)])
    return pd.DataFrame(rows, columns=columns)


def owner_summary(pairs: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Counts per group of ``by`` (all pairs when empty): ``pairs``, ``tables_differ``
    (chosen owner table != preassigned), ``performance_differs`` and ``both_differ``."""
    if pairs.empty:
        return pd.DataFrame(columns=[*by, *SUMMARY_COLUMNS])

    def counts(part: pd.DataFrame) -> list[int]:
        tables = part["tables_differ"].astype(bool)
        perf = part["performance_differs"].astype(bool)
        return [len(part), int(tables.sum()), int(perf.sum()), int((tables & perf).sum())]

    if not by:
        return pd.DataFrame([counts(pairs)], columns=SUMMARY_COLUMNS)
    rows = [[*(key if isinstance(key, tuple) else (key,)), *counts(part)]
            for key, part in pairs.groupby(list(by), sort=False, dropna=False)]
    return pd.DataFrame(rows, columns=[*by, *SUMMARY_COLUMNS])


def summary_text(total: pd.DataFrame) -> str:
    """The report's sentence on all pairs (``total``: :func:`owner_summary` without ``by``)."""
    if total.empty or int(total["pairs"].iloc[0]) == 0:
        return ("No scaffolded session pairs with a preassigned_gates session of the same task, "
                "team, seed and settings.")
    n, tables, perf, both = (int(total[c].iloc[0]) for c in SUMMARY_COLUMNS)
    return (f"The owner table a scaffolded team chose (the gates of its work-phase PHASE_START) "
            f"differs from the preassigned one in {tables} of {n} pairs (same task, team, seed "
            f"and settings); Performance differs in {perf} of {n} pairs, {both} of them with "
            f"differing owner tables.")
