"""Turn a job's session results into the per-session table, the aggregate and the report."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from collabsim.experiment.plan import SessionPlan
from collabsim.experiment.store import ResultStore
from collabsim.session.results import SessionResult
from collabsim.tasks.model import Task

IDENTIFIERS = ["task_id", "team", "structure", "seed", "status"]


def session_rows(
    plans: Sequence[SessionPlan], results: Sequence[SessionResult], store: ResultStore
) -> pd.DataFrame:
    """One row per session: identifiers, status, sizes and the submitted hypothesis."""
    rows = []
    for plan, result in zip(plans, results, strict=True):
        rows.append(
            {
                "task_id": plan.task.task_id,
                "team": plan.team,
                "structure": plan.structure,
                "seed": plan.seed,
                "status": result.status,
                "turns": result.turns,
                "events": result.n_events,
                "virtual_min": round(result.virtual_seconds / 60.0, 2),
                "hypothesis": result.submitted_hypothesis,
                "trace": str(store.trace_path(plan)),
            }
        )
    return pd.DataFrame(rows)


def summarise(
    plans: Sequence[SessionPlan],
    results: Sequence[SessionResult],
    store: ResultStore,
    tasks: Sequence[Task],
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Build the per-session table, the aggregate table and the printed report."""
    sessions = session_rows(plans, results, store)
    aggregate = (
        sessions.groupby(["structure", "team"], sort=False)
        .agg(sessions=("task_id", "size"), finished=("status", lambda s: (s == "finished").mean()))
        .reset_index()
    )
    report = "\n\n".join(
        [
            "Sessions\n" + sessions.drop(columns=["trace"]).to_string(index=False),
            "By structure and team\n" + aggregate.to_string(index=False),
        ]
    )
    return sessions, aggregate, report
