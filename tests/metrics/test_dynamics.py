"""Dynamics metrics: hand-computed tiny graphs and the Kolab explorer's printed figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from collabsim.graphs.explorer_io import load_explorer
from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph
from collabsim.metrics import dynamics as dyn

pytestmark = pytest.mark.filterwarnings("ignore::collabsim.graphs.kolab_io.GraphDataWarning")


def _node(nid: str, kind: str, start: float, end: float, step: str | None = None) -> Node:
    actor = "user" if kind == "human" else "claude"
    return Node(nid, actor, kind, intervals=((start, end),), step=step)  # type: ignore[arg-type]


@pytest.fixture
def tiny() -> WorkflowGraph:
    nodes = [
        _node("h1", "human", 0, 10, "s1"),
        _node("a1", "ai", 10, 20, "s1"),
        _node("h2", "human", 20, 40, "s1"),
        _node("h3", "human", 30, 45, "s2"),
        _node("a2", "ai", 45, 60, "s2"),
        _node("h4", "human", 60, 100, "s2"),
        _node("h5", "human", 100, 110, "s3"),
    ]
    edges = [
        Edge("h1", "a1"),  # crossing
        Edge("a1", "h2"),  # crossing
        Edge("h2", "h3"),
        Edge("h3", "a2"),  # crossing
        Edge("a2", "h4"),  # crossing
        Edge("h4", "h2", "loop"),
        Edge("h2", "a2"),  # crossing; a2 now has two crossing in-edges
        Edge("h4", "h5"),
    ]
    responses = [
        Response("h2", "h1", "a1", "adopt"),
        Response("h4", "h3", "a2", "adopt"),
        Response("h4", "h3", "a2", "modify"),
        Response("h5", None, "a2", "reject"),
    ]
    steps = [Step("s1", "one"), Step("s2", "two"), Step("s3", "three")]
    return WorkflowGraph(SessionInfo("tiny"), steps, nodes, edges, responses)


def test_edge_and_topology_counts(tiny: WorkflowGraph) -> None:
    assert dyn.edges_total(tiny) == 8
    assert dyn.edges_crossing(tiny) == 5
    assert dyn.crossing_share(tiny) == pytest.approx(5 / 8)
    assert dyn.branch_count(tiny) == 1  # h2 -> {h3, a2}; h4's loop does not count
    assert dyn.merge_count(tiny) == 2  # h2 (a1 + loop), a2 (h3 + h2)
    assert dyn.loop_count(tiny) == 1
    assert dyn.topology_w(tiny) == pytest.approx(1 / 8)
    assert dyn.density_w(tiny) == pytest.approx(2 / 8)


def test_duplicates_count_in_branch_and_merge() -> None:
    nodes = [_node("a", "human", 0, 1), _node("b", "ai", 1, 2)]
    g = WorkflowGraph(SessionInfo("d"), (), nodes, [Edge("a", "b"), Edge("a", "b")])
    assert dyn.branch_count(g) == 1 and dyn.merge_count(g) == 1
    assert dyn.edges_crossing(g) == 2
    assert dyn.handoff_event_times(g) == [1.0]  # one distinct target node
    assert dyn.handoff_event_times(g, distinct_targets=False) == [1.0, 1.0]


def test_event_streams(tiny: WorkflowGraph) -> None:
    assert dyn.human_event_times(tiny) == [0, 20, 30, 60, 100]
    assert dyn.handoff_event_times(tiny) == [10, 20, 45, 60]  # a2 once


def test_burstiness_and_memory_hand_computed() -> None:
    times = [10, 0, 1, 3, 6, 11]  # unsorted on purpose; gaps 1, 2, 3, 4, 1
    mu, sigma = 2.2, math.sqrt(1.36)  # population sigma
    assert dyn.burstiness(times) == pytest.approx((sigma - mu) / (sigma + mu))
    assert dyn.burstiness(times) == pytest.approx(-0.307116, abs=1e-6)
    # M: pairs (1,2) (2,3) (3,4) (4,1): cov -0.25, sigma1 = sigma2 = sqrt(1.25)
    assert dyn.memory_coefficient(times) == pytest.approx(-0.2)
    tau = np.diff(sorted(times))
    assert dyn.memory_coefficient(times) == pytest.approx(np.corrcoef(tau[:-1], tau[1:])[0, 1])


def test_regular_and_degenerate_streams() -> None:
    assert dyn.burstiness([0, 5, 10, 15]) == -1.0
    assert math.isnan(dyn.memory_coefficient([0, 5, 10, 15]))  # zero-variance gaps
    assert math.isnan(dyn.burstiness([]))
    assert math.isnan(dyn.burstiness([3.0]))
    assert dyn.burstiness([0, 4]) == -1.0  # one gap: sigma 0
    assert math.isnan(dyn.burstiness([2, 2, 2]))  # sigma + mu = 0
    assert math.isnan(dyn.memory_coefficient([0, 1]))
    assert math.isnan(dyn.memory_coefficient([0, 1, 3]))  # one pair: undefined


def test_retention(tiny: WorkflowGraph) -> None:
    r = dyn.retention(tiny)
    assert (r.adopt, r.modify, r.reject, r.total) == (2, 1, 1, 4)
    assert (r.strict, r.broad) == (0.5, 0.75)
    assert r.modify_share == 0.25 and r.reject_share == 0.25


def test_solo_lead_in(tiny: WorkflowGraph) -> None:
    # s1 spans 0-40, first AI at 10 -> 0.25; s2 spans 30-100, AI at 45 -> 15/70; s3 no AI
    assert dyn.step_lead_ins(tiny) == pytest.approx({"s1": 0.25, "s2": 15 / 70})
    assert dyn.solo_lead_in(tiny) == pytest.approx((0.25 + 15 / 70) / 2)


def test_solo_lead_in_uses_recorded_step_range_and_implicit_step() -> None:
    nodes = [_node("h", "human", 10, 20, "s"), _node("a", "ai", 20, 30, "s")]
    g = WorkflowGraph(SessionInfo("r"), [Step("s", "s", time_range=(0.0, 40.0))], nodes)
    assert dyn.solo_lead_in(g) == pytest.approx(0.5)
    no_steps = WorkflowGraph(
        SessionInfo("n"), (), [_node("h", "human", 0, 30), _node("a", "ai", 30, 40)]
    )
    assert dyn.solo_lead_in(no_steps) == pytest.approx(0.75)
    solo = WorkflowGraph(SessionInfo("s"), (), [_node("h", "human", 0, 30)])
    assert math.isnan(dyn.solo_lead_in(solo))


def test_empty_graph_row_is_nan_not_error() -> None:
    row = dyn.dynamics_row(WorkflowGraph(SessionInfo("empty")))
    assert tuple(row) == dyn.DYNAMICS_COLUMNS
    assert row["edges_total"] == 0 and row["human_events"] == 0
    for key in (
        "h_cross",
        "density_w",
        "topology_w",
        "human_burstiness",
        "handoff_memory",
        "retention_strict",
        "solo_lead_in",
    ):
        assert math.isnan(row[key]), key


def test_dynamics_row_keys_and_values(tiny: WorkflowGraph) -> None:
    row = dyn.dynamics_row(tiny)
    assert list(row) == [
        "session_id",
        "edges_total",
        "edges_crossing",
        "h_cross",
        "density_w",
        "branch",
        "merge",
        "loop",
        "human_events",
        "human_burstiness",
        "human_memory",
        "handoff_events",
        "handoff_burstiness",
        "handoff_memory",
        "responses_adopt",
        "responses_modify",
        "responses_total",
        "retention_strict",
        "retention_broad",
        "topology_w",
        "solo_lead_in",
    ]
    assert row["human_events"] == 5 and row["handoff_events"] == 4
    assert row["responses_total"] == 4


# --------------------------------------------------------------------------- Kolab dev figures


@pytest.fixture(scope="module")
def dev_rows(shared_data: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    expected = json.loads(
        (shared_data / "kolab" / "explorer_metrics_dev.json").read_text(encoding="utf-8")
    )["sessions"]
    graphs = load_explorer(shared_data / "kolab" / "explorer_sessions.json")
    rows = {g.session.session_id: dyn.dynamics_row(g) for g in graphs}
    return rows, expected


def test_dev_file_covers_ten_sessions(dev_rows: tuple[dict, dict]) -> None:
    rows, expected = dev_rows
    assert len(expected) == 10 and set(expected) <= set(rows)
    assert len(rows) == 31


@pytest.mark.parametrize(
    "session_id",
    [
        "p1|session1",
        "p1|session2",
        "p3|session2",
        "p4|session1",
        "p6|session1",
        "p11|session1",
        "p19|session2",
        "p23|session2",
        "p45|session2",
        "p48|session2",
    ],
)
def test_matches_explorer_printed_figures(dev_rows: tuple[dict, dict], session_id: str) -> None:
    rows, expected = dev_rows
    got, want = rows[session_id], expected[session_id]
    for key, value in want.items():
        if isinstance(value, int) and not isinstance(value, bool):
            assert got[key] == value, key
        else:  # printed with 3 decimals
            assert abs(got[key] - value) <= 0.0005 + 1e-9, (key, got[key], value)
