"""Results tables: one metrics row per session, aggregation over seeds and tasks, printing.

* :func:`session_metrics_row` / :func:`metrics_table`: the per-session metrics, computed by
  the metrics pipeline (:mod:`collabsim.metrics.pipeline`) and re-exported here.
* :func:`aggregate` follows docs/design.md "Aggregation": for every (variant, task) the mean over
  seeds; then, per variant, the mean and standard error over tasks,
  SE = sample std (ddof=1) / sqrt(n_tasks). With one task the SE is undefined (NaN). NaN
  metric values (e.g. A_profile for ``single``, H_init,norm for one member) are skipped in
  both means; ``n`` counts the tasks with a value. Sessions with an unscored status
  (:func:`scored_sessions`: ``infra_error``, ``provider_error``, ``budget_exceeded``;
  nothing about the team was measured) are left out entirely.
* :func:`format_table` prints ``mean (SE)`` cells, rows grouped by structure and team
  (profile), as plain text, Markdown, LaTeX or CSV.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

import pandas as pd

from collabsim.core.csvsafe import safe_frame
from collabsim.metrics.pipeline import (
    EXTRA_METRICS,
    ID_COLUMNS,
    METRIC_COLUMNS,
    metrics_table,
    session_metrics,
)
from collabsim.reporting.latex import tabular
from collabsim.session.results import UNSCORED_STATUSES

#: The pipeline's per-session computation, under the name reports have always used.
session_metrics_row = session_metrics

METRIC_LABELS: Mapping[str, str] = {"H_init_norm": "H_init,norm",
                                     "H_init_work": "H_init,norm (work)"}
LATEX_LABELS: Mapping[str, str] = {
    "W_human": r"$W_\mathrm{human}$", "W_total": r"$W_\mathrm{total}$",
    "M_team": r"$M_\mathrm{team}$", "H_init_norm": r"$H_\mathrm{init,norm}$",
    "H_init_work": r"$H_\mathrm{init,norm}^\mathrm{work}$",
    "A_profile": r"$A_\mathrm{profile}$", "C_wf": r"$C_\mathrm{wf}$",
    "S_hyp": r"$S_\mathrm{hyp}$", "Performance": "Performance",
}
COUNT_METRICS: frozenset[str] = frozenset({"W_human", "W_total", "M_team"})
STRUCTURE_ORDER: tuple[str, ...] = ("single", "default", "memory", "preassigned_gates",
                                    "scaffolded")
TEAM_ORDER: tuple[str, ...] = ("single", "D", "R", "DR")
__all__ = [
    "COUNT_METRICS", "EXTRA_METRICS", "ID_COLUMNS", "METRIC_COLUMNS", "METRIC_LABELS",
    "STRUCTURE_ORDER", "TEAM_ORDER", "aggregate", "format_table", "metrics_table",
    "scored_sessions", "session_metrics_row",
]


def scored_sessions(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of sessions that are scored: every status but the unscored ones
    (:data:`~collabsim.session.results.UNSCORED_STATUSES`). A table without a ``status``
    column is returned as it is."""
    if "status" not in df.columns:
        return df
    return df[~df["status"].isin(UNSCORED_STATUSES)]


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
        One row per variant (unscored sessions left out, :func:`scored_sessions`): the ``by``
        columns, ``n_tasks``, ``n_sessions`` and for every
        metric ``<m>_mean``, ``<m>_se`` (SE = sample std / sqrt(n), NaN for n = 1) and
        ``<m>_n`` (tasks with a value).
    """
    by = list(by)
    if metrics is None:
        metrics = [m for m in (*METRIC_COLUMNS, *EXTRA_METRICS) if m in df.columns]
    metrics = list(metrics)
    df = scored_sessions(df)
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
        values = list(df[col])
        if not order and pd.api.types.is_numeric_dtype(df[col]):
            keys.append([(0, float(v)) for v in values])  # swept numbers sort as numbers
        else:
            keys.append(_order_key(values, order))
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
    by the others (team/profile); a ``tasks`` column after them says how many tasks the row
    averages over (``n_tasks``), so rows over different task sets never look alike. Counts (W_human, W_total, M_team) get 1 decimal, the other
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
        return safe_frame(agg[cols]).to_csv(index=False)
    missing = "--" if fmt == "latex" else "–"
    rows: list[list[str]] = []
    group_starts: list[int] = []
    previous: object = object()
    for _, r in agg.iterrows():
        first = r[by[0]]
        lead = ([str(first) if first != previous else ""] + [str(r[c]) for c in by[1:]]
                + [str(int(r["n_tasks"]))])
        if first != previous:
            group_starts.append(len(rows))
        previous = first
        cells = [_cell(r[f"{m}_mean"], r[f"{m}_se"], _decimals(m, decimals), missing)
                 for m in metrics]
        rows.append(lead + cells)
    if fmt == "latex":
        header = [*by, "tasks", *[LATEX_LABELS.get(m, m) for m in metrics]]
        labelled = {len(by) + 1 + i for i, m in enumerate(metrics) if m in LATEX_LABELS}
        return tabular(header, rows, len(by), group_starts=group_starts, raw_header=labelled)
    header = [*by, "tasks", *[METRIC_LABELS.get(m, m) for m in metrics]]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join([":---"] * len(by) + ["---:"] * (1 + len(metrics))) + "|"]
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
