"""Results tables: one metrics row per session, aggregation over seeds and tasks, printing.

* :func:`session_metrics_row` computes every metric of one session (activity, initiative,
  process, outcome) from its result record, trace events, task and reference workflow.
* :func:`metrics_table` does that for many sessions, reading traces from their files.
* :func:`aggregate` follows DESIGN.md "Aggregation": for every (variant, task) the mean over
  seeds; then, per variant, the mean and standard error over tasks,
  SE = sample std (ddof=1) / sqrt(n_tasks). With one task the SE is undefined (NaN). NaN
  metric values (e.g. A_profile for ``single``, H_init,norm for one member) are skipped in
  both means; ``n`` counts the tasks with a value.
* :func:`format_table` prints ``mean (SE)`` cells, rows grouped by structure and team
  (profile), as plain text, Markdown, LaTeX or CSV.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from collabsim.metrics.activity import activity_counts, as_events
from collabsim.metrics.initiative import initiative_counts, initiative_entropy, is_initiative
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.metrics.outcome import HypothesisJudge
from collabsim.metrics.process import (
    PROFILE_KINDS,
    hypothesis_support,
    profile_alignment,
    trace_view,
    workflow_coverage,
)
from collabsim.metrics.reference import ReferenceWorkflow
from collabsim.session.events import TraceEvent
from collabsim.tasks.model import Task

METRIC_COLUMNS: tuple[str, ...] = (
    "W_human", "W_total", "M_team", "H_init_norm", "A_profile", "C_wf", "S_hyp", "Performance",
)
EXTRA_METRICS: tuple[str, ...] = ("context_recall", "context", "variable_f1", "relation")
ID_COLUMNS: tuple[str, ...] = ("task_id", "team", "structure", "seed", "policy", "status")
METRIC_LABELS: Mapping[str, str] = {"H_init_norm": "H_init,norm"}
LATEX_LABELS: Mapping[str, str] = {
    "W_human": r"$W_\mathrm{human}$", "W_total": r"$W_\mathrm{total}$",
    "M_team": r"$M_\mathrm{team}$", "H_init_norm": r"$H_\mathrm{init,norm}$",
    "A_profile": r"$A_\mathrm{profile}$", "C_wf": r"$C_\mathrm{wf}$",
    "S_hyp": r"$S_\mathrm{hyp}$", "Performance": "Performance",
}
COUNT_METRICS: frozenset[str] = frozenset({"W_human", "W_total", "M_team"})
STRUCTURE_ORDER: tuple[str, ...] = ("single", "default", "memory", "preassigned_gates",
                                    "scaffolded")
TEAM_ORDER: tuple[str, ...] = ("single", "D", "R", "DR")


def _get(result: Any, key: str, default: Any = None) -> Any:
    if isinstance(result, Mapping):
        return result.get(key, default)
    return getattr(result, key, default)


def team_members(team: str, events: Sequence[TraceEvent]) -> list[str]:
    """Team members of a session: ``agent``, the profile keys in the team label (``"DR"``
    -> D, R; ``"single"`` adds none) and every actor with an ``ai``/``human`` event."""
    members = ["agent"]
    if team and team not in ("solo", "single"):
        members += [ch for ch in team if ch in PROFILE_KINDS]
    members += [e.actor for e in events if e.actor_type in ("ai", "human")]
    return list(dict.fromkeys(members))


def session_metrics_row(
    result: Any,
    events: Iterable[TraceEvent | Mapping[str, Any]],
    task: Task | None = None,
    reference: ReferenceWorkflow | None = None,
    *,
    judge: HypothesisJudge | None = None,
    members: Sequence[str] | None = None,
    profiles: Mapping[str, str] | None = None,
    initiative_classifier: Callable[[TraceEvent, Sequence[TraceEvent]], bool] = is_initiative,
) -> dict[str, Any]:
    """Compute every metric of one session.

    Args:
        result: A ``SessionResult`` or a dict with its fields (task_id, team, structure,
            seed, policy, status, submitted_hypothesis).
        events: The session's trace events (TraceEvent or decoded dicts).
        task: The task (gold hypothesis, columns); without a gold, outcome metrics are NaN.
        reference: The task's reference workflow; without one, C_wf and S_hyp are NaN.
        judge: Hypothesis judge (default :class:`RuleJudge`).
        members: Team members (default from the team label and the events).
        profiles: Member -> profile key (default: human members named ``D``/``R`` have
            that profile). A_profile is NaN without profiles and in ``single``.
        initiative_classifier: Initiative classifier (rules by default).

    Returns:
        A flat dict: identifiers, the metrics of :data:`METRIC_COLUMNS` and
        :data:`EXTRA_METRICS`, and ``judge``.
    """
    evs = as_events(events)
    team = str(_get(result, "team", ""))
    structure = str(_get(result, "structure", ""))
    hypothesis = str(_get(result, "submitted_hypothesis", "") or "")
    row: dict[str, Any] = {
        "task_id": _get(result, "task_id"), "team": team, "structure": structure,
        "seed": _get(result, "seed"), "policy": _get(result, "policy"),
        "status": _get(result, "status"),
    }
    act = activity_counts(evs)
    row.update(W_human=act.w_human, W_total=act.w_total, M_team=act.m_team)
    team_list = list(members) if members is not None else team_members(team, evs)
    counts = initiative_counts(evs, team_list, initiative_classifier)
    row["H_init_norm"] = initiative_entropy(counts, team_list)
    humans = {e.actor for e in evs if e.actor_type == "human"} | set(team_list[1:])
    prof = dict(profiles) if profiles is not None else {
        m: m for m in team_list if m in PROFILE_KINDS and m in humans
    }
    view = trace_view(evs)
    if reference is not None:
        row["C_wf"] = workflow_coverage(view, reference)
        row["S_hyp"] = hypothesis_support(hypothesis, view, reference, task)
        row["A_profile"] = (
            math.nan if structure == "single" else profile_alignment(view, prof, reference)
        )
    else:
        row.update(C_wf=math.nan, S_hyp=math.nan, A_profile=math.nan)
    gold = task.gold_hypothesis if task is not None else None
    if gold:
        score = (judge or RuleJudge()).score(hypothesis, gold, task)
        row.update(Performance=score.performance, context_recall=score.context_recall,
                   context=score.context, variable_f1=score.variable_f1,
                   relation=score.relation, judge=score.judge)
    else:
        row.update(Performance=math.nan, context_recall=math.nan, context=math.nan,
                   variable_f1=math.nan, relation=math.nan, judge=None)
    return row


def metrics_table(
    results: Iterable[Any],
    tasks: Mapping[str, Task],
    *,
    judge: HypothesisJudge | None = None,
) -> pd.DataFrame:
    """One metrics row per session, reading each session's trace and reference workflow.

    Args:
        results: ``SessionResult`` records (or dicts) with a ``trace_path``.
        tasks: Task id -> task (gold, columns, ``reference_workflow_path``).
        judge: Hypothesis judge (default :class:`RuleJudge`, shared across sessions).

    Returns:
        A DataFrame of :func:`session_metrics_row` rows.

    Raises:
        KeyError: A result's task is not in ``tasks``.
        ValueError: A result has no trace path.
    """
    from collabsim.metrics.reference import load_reference
    from collabsim.session.trace import read_trace

    shared_judge = judge or RuleJudge()
    references: dict[str, ReferenceWorkflow | None] = {}
    rows = []
    for result in results:
        task = tasks[str(_get(result, "task_id"))]
        trace_path = _get(result, "trace_path")
        if not trace_path:
            raise ValueError(f"session {_get(result, 'task_id')} seed {_get(result, 'seed')} "
                             "has no trace_path")
        if task.task_id not in references:
            path = task.reference_workflow_path
            references[task.task_id] = load_reference(path) if path is not None else None
        events = read_trace(Path(trace_path), allow_truncated_tail=True)
        rows.append(session_metrics_row(result, events, task, references[task.task_id],
                                        judge=shared_judge))
    return pd.DataFrame(rows)


def aggregate(
    df: pd.DataFrame,
    by: Sequence[str] = ("structure", "team"),
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Mean over seeds per (variant, task), then mean and SE over tasks per variant.

    Args:
        df: One row per session with ``task_id``, the ``by`` columns and metric columns.
        by: Columns defining a variant.
        metrics: Metric columns (default: those of :data:`METRIC_COLUMNS` and
            :data:`EXTRA_METRICS` present in ``df``).

    Returns:
        One row per variant: the ``by`` columns, ``n_tasks``, ``n_sessions`` and for every
        metric ``<m>_mean``, ``<m>_se`` (SE = sample std / sqrt(n), NaN for n = 1) and
        ``<m>_n`` (tasks with a value).
    """
    by = list(by)
    if metrics is None:
        metrics = [m for m in (*METRIC_COLUMNS, *EXTRA_METRICS) if m in df.columns]
    metrics = list(metrics)
    data = df[[*by, "task_id", *metrics]].copy()
    for m in metrics:
        data[m] = pd.to_numeric(data[m], errors="coerce").astype("float64")
    per_task = data.groupby([*by, "task_id"], dropna=False, sort=False)[metrics].mean()
    sessions = data.groupby(by, dropna=False, sort=False).size().rename("n_sessions")
    grouped = per_task.groupby(level=by, dropna=False, sort=False)
    mean, std, n = grouped.mean(), grouped.std(ddof=1), grouped.count()
    se = std / n.pow(0.5)
    se = se.where(n > 1)
    out = pd.DataFrame(index=mean.index)
    out["n_tasks"] = grouped.size()
    out["n_sessions"] = sessions.reindex(out.index)
    for m in metrics:
        out[f"{m}_mean"] = mean[m]
        out[f"{m}_se"] = se[m]
        out[f"{m}_n"] = n[m]
    out = out.reset_index()
    return _sorted(out, by)


def _order_key(values: Sequence[str], order: Sequence[str]) -> list[tuple[int, str]]:
    return [(order.index(v) if v in order else len(order), str(v)) for v in values]


def _sorted(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    keys = []
    for col in by:
        order = STRUCTURE_ORDER if col == "structure" else TEAM_ORDER if col == "team" else ()
        keys.append(_order_key(list(df[col]), order))
    idx = sorted(range(len(df)), key=lambda i: tuple(k[i] for k in keys))
    return df.iloc[idx].reset_index(drop=True)


def _decimals(metric: str, decimals: Mapping[str, int] | None) -> int:
    if decimals and metric in decimals:
        return decimals[metric]
    return 1 if metric in COUNT_METRICS else 2


def _cell(mean: float, se: float, nd: int, missing: str) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return missing
    se_text = missing if se is None or (isinstance(se, float) and math.isnan(se)) else f"{se:.{nd}f}"
    return f"{mean:.{nd}f} ({se_text})"


def format_table(
    agg: pd.DataFrame,
    fmt: Literal["text", "markdown", "latex", "csv"] = "text",
    metrics: Sequence[str] = METRIC_COLUMNS,
    by: Sequence[str] | None = None,
    decimals: Mapping[str, int] | None = None,
) -> str:
    """Print an aggregated table (see :func:`aggregate`) with ``mean (SE)`` cells.

    Rows are grouped by the first ``by`` column (structure, printed once per group) and then
    by the others (team/profile). Counts (W_human, W_total, M_team) get 1 decimal, the other
    metrics 2 (override with ``decimals``). Missing values print as ``–`` (``--`` in LaTeX).

    Args:
        agg: Output of :func:`aggregate`.
        fmt: ``text`` (aligned columns), ``markdown``, ``latex`` (booktabs tabular) or
            ``csv`` (numeric ``<m>_mean``/``<m>_se`` columns).
        metrics: Metrics to show, in column order.
        by: Grouping columns as passed to :func:`aggregate` (default: the columns before
            ``n_tasks``).
        decimals: Metric -> decimals.
    """
    cols = list(agg.columns)
    by = list(by) if by is not None else cols[: cols.index("n_tasks")]
    metrics = [m for m in metrics if f"{m}_mean" in agg.columns]
    if fmt == "csv":
        cols = [*by, "n_tasks"] + [c for m in metrics for c in (f"{m}_mean", f"{m}_se")]
        return agg[cols].to_csv(index=False)
    missing = "--" if fmt == "latex" else "–"
    rows: list[list[str]] = []
    group_starts: list[int] = []
    previous: object = object()
    for _, r in agg.iterrows():
        first = r[by[0]]
        lead = [str(first) if first != previous else ""] + [str(r[c]) for c in by[1:]]
        if first != previous:
            group_starts.append(len(rows))
        previous = first
        cells = [_cell(r[f"{m}_mean"], r[f"{m}_se"], _decimals(m, decimals), missing)
                 for m in metrics]
        rows.append(lead + cells)
    if fmt == "latex":
        header = [*by, *[LATEX_LABELS.get(m, m.replace("_", r"\_")) for m in metrics]]
        lines = [r"\begin{tabular}{" + "l" * len(by) + "r" * len(metrics) + "}", r"\toprule",
                 " & ".join(header) + r" \\", r"\midrule"]
        for i, row in enumerate(rows):
            if i in group_starts and i:
                lines.append(r"\midrule")
            lines.append(" & ".join(c.replace("_", r"\_") for c in row) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"
    header = [*by, *[METRIC_LABELS.get(m, m) for m in metrics]]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join([":---"] * len(by) + ["---:"] * len(metrics)) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) if rows else len(header[i])
              for i in range(len(header))]

    def fmt_row(row: Sequence[str]) -> str:
        parts = [row[i].ljust(widths[i]) if i < len(by) else row[i].rjust(widths[i])
                 for i in range(len(row))]
        return "  ".join(parts).rstrip()

    lines = [fmt_row(header), "  ".join("-" * w for w in widths)]
    lines += [fmt_row(row) for row in rows]
    return "\n".join(lines) + "\n"
