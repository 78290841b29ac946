"""Turn a job's session results into the per-session table, the aggregate and the report.

Every session gets one row with its identifiers, status and every metric (activity,
initiative entropy, process metrics against the task's reference workflow, and the
deterministic judge's Performance where the task has a gold). The aggregate follows the
paper convention: mean over seeds per (variant, task), then mean and standard error over
tasks, printed as ``mean (SE)``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pandas as pd

from collabsim.core.errors import BUDGET_EXCEEDED, PROVIDER_ERROR
from collabsim.experiment.plan import SessionPlan
from collabsim.experiment.session_costs import add_cost_columns, cost_line, cost_totals
from collabsim.experiment.store import ResultStore
from collabsim.metrics.baselines import baseline_line, baselines_of_rows
from collabsim.metrics.initiative import DEFAULT_INITIATIVE_EVENTS, InitiativeEvents
from collabsim.metrics.pipeline import MetricsRows
from collabsim.reporting.tables import METRIC_LABELS, aggregate, format_table, scored_sessions
from collabsim.session.results import INFRA_ERROR, UNSCORED_STATUSES, SessionResult
from collabsim.tasks.model import Task

SESSION_COLUMNS = ["task_id", "team", "structure", "seed", "status", "turns", "virtual_min"]
SHOWN_METRICS = ["W_total", "M_team", "H_init_norm", "H_init_work", "C_wf", "Performance"]


def session_record(plan: SessionPlan, result: SessionResult, store: ResultStore) -> dict[str, Any]:
    """What the metrics read about a session: its result, team label and trace path."""
    record = result.to_dict()
    record.update(team=plan.team, trace_path=str(store.trace_path(plan)))
    return record


class SessionRows:
    """Metrics rows of a job's sessions, computed as each session ends.

    Pass :meth:`add` as ``run_plans(on_result=...)`` and the rows to :func:`summarise`;
    sessions not added (reused from the store) get their row there.

    Args:
        plans: The job's plans.
        store: The store their traces are in.
        tasks: The job's tasks.
        initiative_counted: Which events are initiative candidates
            (``metrics.initiative_events``: ``actions`` or ``messages``).
    """

    def __init__(self, plans: Sequence[SessionPlan], store: ResultStore,
                 tasks: Sequence[Task], *,
                 initiative_counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS) -> None:
        self.plans = plans
        self.store = store
        self.metrics = MetricsRows({t.task_id: t for t in tasks},
                                   initiative_counted=initiative_counted)
        self.rows: dict[int, dict[str, Any]] = {}
        #: Wall seconds spent computing rows (for benchmarks).
        self.seconds = 0.0

    def add(self, index: int, result: SessionResult) -> None:
        """Compute the row of plan ``index`` from its result."""
        start = time.perf_counter()
        self.rows[index] = self.metrics.row(session_record(self.plans[index], result, self.store))
        self.seconds += time.perf_counter() - start


UNSCORED_REASONS: dict[str, str] = {
    INFRA_ERROR: "the sandbox infrastructure failed, also on the retry",
    PROVIDER_ERROR: "a model call failed after its retries",
    BUDGET_EXCEEDED: "the session's LLM budget did not allow another call",
}
"""What each unscored status (:data:`~collabsim.session.results.UNSCORED_STATUSES`) means,
as the reports say it."""


def unscored_note(statuses: Mapping[str, int]) -> str | None:
    """The reports' line about unscored sessions, from status -> session count (None when
    there are none)."""
    parts = [f"{int(statuses[s])} with status {s} ({UNSCORED_REASONS.get(s, 'not scored')})"
             for s in sorted(UNSCORED_STATUSES) if statuses.get(s)]
    if not parts:
        return None
    return ("Unscored sessions: " + ", ".join(parts) + ". They are not scored and are left "
            "out of every aggregate, paired difference and figure; a rerun on the same store "
            "runs them again")


def objection_summary(sessions: pd.DataFrame) -> str | None:
    """One line per structure: collaborators' objections and the share that was wrong.

    An objection is wrong when it contradicts a task fact, the gold or the reference
    analysis, proposes a text that scores lower than the draft, or raises what the draft
    already had right (:mod:`collabsim.metrics.objections`). Sessions without a gold
    hypothesis (NaN counts) are left out; None when nobody objected.
    """
    if "objections" not in sessions or "objections_wrong" not in sessions:
        return None
    judged = sessions.dropna(subset=["objections", "objections_wrong"])
    by_structure = judged.groupby("structure", sort=False)[["objections", "objections_wrong"]].sum()
    by_structure = by_structure[by_structure["objections"] > 0]
    if by_structure.empty:
        return None
    lines = ["Collaborators' objections, judged against the gold after the session (wrong: it "
             "contradicts a task fact, the gold or the reference analysis, its proposal scores "
             "lower than the draft, or the draft was right in what it raises)"]
    for structure, row in by_structure.iterrows():
        total, wrong = int(row["objections"]), int(row["objections_wrong"])
        lines.append(f"  {structure}: {total} objections, {wrong} wrong ({wrong / total:.0%})")
    return "\n".join(lines)


def gold_note(tasks: Sequence[Task]) -> str | None:
    """The report's line when tasks have no gold hypothesis (their Performance is NaN), None
    when every task has one."""
    missing = [t for t in tasks if not (t.gold_hypothesis or "").strip()]
    if not missing:
        return None
    where = ("answer keys are read from eval/answer_key_*.csv under tasks.root or beside it "
             "(a DiscoveryBench clone's eval/), else from each query's true_hypothesis")
    if len(missing) == len(tasks):
        return (f"No task of this run has a gold hypothesis, so no session has a Performance "
                f"({where})")
    return (f"{len(missing)} of {len(tasks)} task(s) have no gold hypothesis (e.g. "
            f"{missing[0].task_id}): their sessions have no Performance ({where})")


SHOW_SESSIONS_UP_TO = 40
"""``run.show_sessions=auto`` prints the per-session table for runs of at most this many
sessions (a default run has hundreds: the aggregate is what a reader wants on screen)."""

METRIC_LEGEND = ("W_human/W_total: actions by humans/all; M_team: messages; H_init,norm: "
                 "initiative entropy (1 = equal), (work): over the work phase only; "
                 "A_profile: profile fit; C_wf: workflow "
                 "coverage; S_hyp: hypothesis support; Performance: DiscoveryBench match "
                 "(docs/metrics.md)")
"""One line under the aggregate naming what its metric columns measure."""


def summarise(
    plans: Sequence[SessionPlan],
    results: Sequence[SessionResult],
    store: ResultStore,
    tasks: Sequence[Task],
    *,
    show_sessions: bool | Literal["auto"] = "auto",
    rows: SessionRows | None = None,
    initiative_counted: InitiativeEvents = DEFAULT_INITIATIVE_EVENTS,
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Build the per-session metrics table, the aggregate table and the printed report.

    Args:
        plans: The job's plans (in the same order as ``results``).
        results: Their results.
        store: Where the traces are (trace paths are taken from the store, so a moved
            store still reads).
        tasks: The job's tasks.
        show_sessions: Include the per-session table in the report; ``"auto"``: only
            for a run of at most :data:`SHOW_SESSIONS_UP_TO` sessions.
        rows: Rows already computed while the sessions ran (same plans, store and tasks);
            the others are computed here.
        initiative_counted: ``metrics.initiative_events`` of the rows computed here (when
            ``rows`` is given, its own setting holds).
    """
    if len(plans) != len(results):
        raise ValueError(f"{len(plans)} plans but {len(results)} results")
    rows = rows or SessionRows(plans, store, tasks, initiative_counted=initiative_counted)
    for index, result in enumerate(results):
        if index not in rows.rows:
            rows.add(index, result)
    sessions = pd.DataFrame([rows.rows[i] for i in range(len(results))])
    sessions.insert(sessions.columns.get_loc("status") + 1, "turns", [r.turns for r in results])
    sessions.insert(
        sessions.columns.get_loc("turns") + 1,
        "virtual_min",
        [round(r.virtual_seconds / 60.0, 1) for r in results],
    )
    sessions = add_cost_columns(sessions, [store.trace_path(p).parent for p in plans])
    sessions["hypothesis"] = [r.submitted_hypothesis for r in results]
    agg = aggregate(sessions)
    parts = []
    if show_sessions is True or (show_sessions == "auto" and len(sessions) <= SHOW_SESSIONS_UP_TO):
        shown = sessions[SESSION_COLUMNS + [m for m in SHOWN_METRICS if m in sessions]]
        shown = shown.rename(columns=METRIC_LABELS)  # the aggregate's spelling
        parts.append("Sessions\n" + shown.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    scored = scored_sessions(sessions)
    n_tasks = scored["task_id"].nunique()
    n_seeds = scored["seed"].nunique()
    parts.append(
        f"By structure and team: mean (SE) over {n_tasks} task(s), seeds averaged first "
        f"({n_seeds} seed(s))\n" + format_table(agg) + "\n" + METRIC_LEGEND
    )
    gold_line = gold_note(tasks)
    chance = baseline_line(baselines_of_rows(list(rows.rows.values())))
    parts += [line for line in (gold_line, chance) if line]
    objections = objection_summary(sessions)
    if objections:
        parts.append(objections)
    costs = cost_totals(sessions)
    if costs is not None:
        parts.append(cost_line(costs))
    statuses = sessions["status"].value_counts().to_dict()
    parts.append("Session statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    note = unscored_note(statuses)
    if note:
        parts.append(note)
    return sessions, agg, "\n\n".join(parts)
