"""Dynamics study: every session gets a row; the W-vs-rating correlation is reported."""

from __future__ import annotations

import math

import numpy as np

from collabsim.graphs.model import WorkflowGraph
from collabsim.kolab.dynamics_study import dynamics_study
from collabsim.metrics.dynamics import topology_w


def test_table_covers_all_sessions_and_correlation_uses_rated_ones(
    explorer_graphs: list[WorkflowGraph],
) -> None:
    study = dynamics_study(explorer_graphs)
    assert len(study.table) == 31
    assert study.table["session_id"].tolist() == [g.session.session_id for g in explorer_graphs]
    for col in ("human_burstiness", "topology_w", "h_cross", "retention_strict", "solo_lead_in"):
        assert col in study.table.columns
    rated = [g for g in explorer_graphs if any(s.collaboration is not None for s in g.steps)]
    head = study.headline
    assert (head.x, head.y) == ("topology_w", "mean_collaboration")
    assert head.n == len(rated) == 22
    assert -1 <= head.rho <= 1 and 0 <= head.p <= 1
    p1 = study.table.iloc[0]
    g1 = explorer_graphs[0]
    assert p1["topology_w"] == topology_w(g1)
    assert p1["mean_collaboration"] == np.mean([s.collaboration for s in g1.steps])
    unrated = study.table[study.table["session_id"] == "p6|session1"].iloc[0]
    assert math.isnan(unrated["mean_collaboration"])
