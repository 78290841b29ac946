"""Dynamics study: per-session dynamics metrics and their correlation with the step ratings.

For every session the table holds the figures of
:func:`collabsim.metrics.dynamics.dynamics_row` (burstiness of human actions and of handoffs,
topology W = Br/|E|, density (Br + L)/|E|, crossing share H_cross, retention, solo lead-in, ...)
plus the session's mean collaboration and mean quality rating over its rated steps (NaN when
no step is rated).

The headline analysis is Spearman's rho between topology W and the mean collaboration rating
over the sessions that have both (the Kolab benchmark reports rho = -0.27, p < 0.05, on its
full data). Two further correlations are reported: W vs mean quality rating, and human
burstiness vs solo lead-in.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from collabsim.graphs.model import WorkflowGraph
from collabsim.metrics.dynamics import dynamics_row

STUDY_COLUMNS: tuple[str, ...] = (
    "session_id",
    "participant_id",
    "occupation",
    "n_steps",
    "n_rated_steps",
    "mean_collaboration",
    "mean_quality",
    "human_burstiness",
    "handoff_burstiness",
    "topology_w",
    "density_w",
    "h_cross",
    "retention_strict",
    "retention_broad",
    "solo_lead_in",
    "branch",
    "merge",
    "loop",
    "edges_total",
    "responses_total",
)

CORRELATIONS: tuple[tuple[str, str], ...] = (
    ("topology_w", "mean_collaboration"),
    ("topology_w", "mean_quality"),
    ("human_burstiness", "solo_lead_in"),
)


@dataclass(frozen=True)
class Correlation:
    """Spearman correlation between two table columns over rows where both are defined."""

    x: str
    y: str
    rho: float
    p: float
    n: int


@dataclass(frozen=True)
class DynamicsStudy:
    """The per-session table and the correlations."""

    table: pd.DataFrame
    correlations: tuple[Correlation, ...]

    @property
    def headline(self) -> Correlation:
        """Topology W vs mean collaboration rating."""
        return self.correlations[0]


def _mean_rating(graph: WorkflowGraph, attr: str) -> float:
    values = [getattr(s, attr) for s in graph.steps if getattr(s, attr) is not None]
    return float(np.mean(values)) if values else math.nan


def spearman_columns(table: pd.DataFrame, x: str, y: str) -> Correlation:
    """Spearman's rho, two-sided p and n over the rows where ``x`` and ``y`` are finite."""
    sub = table[[x, y]].astype(float)
    sub = sub[np.isfinite(sub[x]) & np.isfinite(sub[y])]
    n = len(sub)
    if n < 3 or sub[x].nunique() < 2 or sub[y].nunique() < 2:
        return Correlation(x, y, math.nan, math.nan, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.spearmanr(sub[x], sub[y])
    return Correlation(x, y, float(res.statistic), float(res.pvalue), n)


def dynamics_study(graphs: Sequence[WorkflowGraph]) -> DynamicsStudy:
    """Build the per-session table (one row per graph) and the correlations."""
    rows = []
    for graph in graphs:
        dyn = dynamics_row(graph)
        row = {
            "session_id": graph.session.session_id,
            "participant_id": graph.session.participant_id,
            "occupation": graph.session.occupation,
            "n_steps": len(graph.steps),
            "n_rated_steps": sum(
                s.collaboration is not None or s.quality is not None for s in graph.steps
            ),
            "mean_collaboration": _mean_rating(graph, "collaboration"),
            "mean_quality": _mean_rating(graph, "quality"),
        }
        for col in STUDY_COLUMNS:
            if col not in row:
                row[col] = dyn[col]
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(STUDY_COLUMNS))
    correlations = tuple(spearman_columns(table, x, y) for x, y in CORRELATIONS)
    return DynamicsStudy(table, correlations)
