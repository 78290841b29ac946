"""Kolab readers/writers: the explorer dataset and Kolab graph JSON, lossless round trips."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from collabsim.graphs.explorer_io import (
    explorer_session_to_graph,
    graph_to_explorer_session,
    load_explorer,
    write_explorer,
)
from collabsim.graphs.kolab_io import (
    GraphDataWarning,
    KolabFormatError,
    graph_to_kolab,
    kolab_to_graph,
    read_kolab_graph,
    write_kolab_graph,
)
from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph

# loaders warn about the source's quirks; tests that check warnings use pytest.warns
pytestmark = pytest.mark.filterwarnings("ignore::collabsim.graphs.kolab_io.GraphDataWarning")


@pytest.fixture(scope="module")
def explorer(kolab_sessions_path: Path) -> dict[str, WorkflowGraph]:
    with pytest.warns(GraphDataWarning):
        graphs = load_explorer(kolab_sessions_path)
    return {g.session.session_id: g for g in graphs}


def _same(a: WorkflowGraph, b: WorkflowGraph, *, warnings: bool = True) -> None:
    assert a == b
    assert a.edges == b.edges  # order and duplicates
    assert a.responses == b.responses
    assert [n.intervals for n in a.nodes] == [n.intervals for n in b.nodes]
    if warnings:
        assert a.warnings == b.warnings


def test_all_31_sessions_load_with_source_totals(explorer: dict[str, WorkflowGraph]) -> None:
    assert len(explorer) == 31
    labels = Counter(r.label for g in explorer.values() for r in g.responses)
    assert labels == {"adopt": 152, "modify": 63, "reject": 32}
    steps = [s for g in explorer.values() for s in g.steps]
    assert sum(s.collaboration is not None for s in steps) == 97
    assert sum(s.quality is not None for s in steps) == 110
    assert sum(len(g.edges) for g in explorer.values()) == 1242
    assert sum(len(g) for g in explorer.values()) == 1295


def test_explorer_fields_map_to_the_model(explorer: dict[str, WorkflowGraph]) -> None:
    g = explorer["p1|session1"]
    assert g.session.participant_id == "p1"
    assert g.session.occupation == "Film editor"
    assert g.session.domain.startswith("Arts, Design")
    assert g.session.extra["session"] == "session1"
    assert [s.key for s in g.steps] == ["0", "1", "2"]
    assert g.step("1").collaboration == 5 and g.step("1").quality == 4
    n9 = g.node("n9")
    assert (n9.actor, n9.actor_type, n9.step) == ("AI", "ai", "1")
    assert g.node("n1").actor_type == "human"
    assert g.node("n12").intervals == ((1500.0, 2700.0), (3202.0, 3224.0))
    assert Response("n10", "n8", "n9", "adopt") in g.responses
    # formats: MM:SS, H:MM:SS mixed, en dashes, ten comma-separated ranges
    assert explorer["p1|session2"].node("n26").intervals == ((2683.0, 3600.0),)
    assert explorer["p13|session1"].node("1b").intervals == ((37.0, 135.0),)
    g1 = explorer["p12|session1"].node("g1")
    assert len(g1.intervals) == 10 and g1.intervals[0] == (3594.0, 3610.0)
    # sessions without step rows: nodes carry no step
    assert explorer["p1|session2"].steps == ()
    assert all(n.step is None for n in explorer["p1|session2"].nodes)


def test_quirks_are_warnings_not_failures(explorer: dict[str, WorkflowGraph]) -> None:
    g = explorer["p12|session1"]
    assert Counter(g.edges)[Edge("g1", "g2", "sequential")] == 10  # duplicates kept
    assert any("appears 10 times" in w for w in g.warnings)
    assert any("responder is an AI node" in w for w in explorer["p3|session2"].warnings)
    assert any("g2 is human" in w for w in g.warnings)
    assert any("appears 2 times" in w for w in explorer["p4|session1"].warnings)
    assert len(explorer["p4|session1"].responses) == 9  # duplicate response kept
    assert explorer["p1|session1"].warnings == ()


def test_round_trip_kolab_json_all_sessions(
    explorer: dict[str, WorkflowGraph], tmp_path: Path
) -> None:
    for g in explorer.values():
        _same(kolab_to_graph(json.loads(json.dumps(graph_to_kolab(g)))), g)
    g = explorer["p12|session1"]
    path = write_kolab_graph(g, tmp_path / "p12.json")
    _same(read_kolab_graph(path), g)


def test_round_trip_explorer_format_all_sessions(
    explorer: dict[str, WorkflowGraph], tmp_path: Path
) -> None:
    graphs = list(explorer.values())
    for g in graphs:
        back = explorer_session_to_graph(graph_to_explorer_session(g))
        assert back == g and back.edges == g.edges
    path = write_explorer(graphs, tmp_path / "sessions.json")
    with pytest.warns(GraphDataWarning):
        again = load_explorer(path)
    assert again == graphs


def test_kolab_json_structure_and_user_response() -> None:
    doc = {
        "session_id": "s1",
        "participant_id": "p9",
        "goal": "write a report",
        "steps": [
            {
                "step_id": "a",
                "name": "Draft",
                "time_range": "00:00:00-00:10:00",
                "collaboration": 4,
                "quality": None,
                "nodes": [
                    {
                        "id": "u1",
                        "actor": "user",
                        "actor_type": "human",
                        "label": "ask",
                        "detail": "asks Claude",
                        "time": ["00:00:00-00:01:00"],
                        "softwares": ["Word"],
                        "source_steps": [],
                    },
                    {
                        "id": "c1",
                        "actor": "claude",
                        "actor_type": "ai",
                        "label": "draft",
                        "time": ["00:01:00-00:02:00", "00:03:00-00:04:00"],
                    },
                    {
                        "id": "u2",
                        "actor": "user",
                        "actor_type": "human",
                        "label": "edit",
                        "time": ["00:04:00-00:09:00"],
                        "source_steps": ["a"],
                        "user_response": [
                            {"source_node_id": "u1", "claude_node_id": "c1", "label": "modify"}
                        ],
                    },
                ],
                "edges": [
                    {"from": "u1", "to": "c1", "type": "sequential"},
                    {"from": "c1", "to": "u2", "type": "sequential"},
                ],
            }
        ],
    }
    g = kolab_to_graph(doc)
    assert g.step("a").time_range == (0.0, 600.0)
    assert g.step("a").collaboration == 4
    assert g.node("c1").intervals == ((60.0, 120.0), (180.0, 240.0))
    assert g.node("u1").softwares == ("Word",)
    assert g.node("u2").extra["source_steps"] == ["a"]
    assert g.responses == (Response("u2", "u1", "c1", "modify"),)
    assert g.session.goal == "write a report"
    assert g.warnings == ()
    _same(kolab_to_graph(graph_to_kolab(g)), g)


def test_kolab_round_trip_restores_order_across_steps() -> None:
    # nodes, edges and responses interleave steps: the writer must record the order
    nodes = [
        Node("h1", "user", "human", intervals=((0.0, 1.0),), step="s2"),
        Node("a1", "claude", "ai", intervals=((1.0, 2.0),), step="s1"),
        Node("h2", "user", "human", intervals=((2.0, 3.5),), step=None),
        Node("h3", "user", "human", step="unlisted", extra={"order": "kept", "x": 1}),
    ]
    edges = [Edge("a1", "h2"), Edge("h1", "a1"), Edge("h2", "h1", "loop"), Edge("h1", "a1")]
    responses = [Response("h2", None, "a1", "reject"), Response("h1", "h2", "a1", "adopt")]
    steps = [Step("s1", "one", time_range=(0.0, 2.0)), Step("s2", "two", quality=3)]
    g = WorkflowGraph(SessionInfo("x", extra={"k": [1, 2]}), steps, nodes, edges, responses)
    back = kolab_to_graph(json.loads(json.dumps(graph_to_kolab(g))))
    _same(back, g, warnings=False)
    assert back.warnings == (
        "session x: edge h1->a1 (sequential) appears 2 times (kept, all counted)",
    )


def test_time_error_names_session_node_and_text() -> None:
    bad = {
        "session_id": "p0|session9",
        "nodes": [{"id": "n7", "actor": "Human", "time": "00:01-oops", "step": None}],
        "edges": [],
        "responses": [],
        "steps": [],
    }
    with pytest.raises(KolabFormatError, match=r"p0\|session9.*n7.*00:01-oops"):
        explorer_session_to_graph(bad)


def test_dangling_edge_and_unknown_actor_warn() -> None:
    data = {
        "session_id": "q",
        "steps": [],
        "nodes": [
            {"id": "a", "actor": "Robot", "time": "00:00-00:01", "step": 4},
            {"id": "b", "actor": "AI", "time": "00:02-00:01", "step": None},
        ],
        "edges": [
            {"from": "a", "to": "zz", "type": "sequential"},
            {"from": "a", "to": "b", "type": "jump"},
        ],
        "responses": [{"responder": "a", "source": None, "ai_node": "b", "label": "maybe"}],
    }
    with pytest.warns(GraphDataWarning) as record:
        g = explorer_session_to_graph(data)
    messages = " | ".join(str(w.message) for w in record)
    assert "unknown actor" in messages and "unknown node" in messages
    assert g.edges == (Edge("a", "b", "sequential"),)
    assert g.node("b").intervals == ((1.0, 2.0),)  # reversed range: ends swapped, warned
    assert g.responses == ()
    assert len(g.warnings) == len(record)


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(KolabFormatError, match="broken.json"):
        load_explorer(bad)
    with pytest.raises(KolabFormatError, match="broken.json"):
        read_kolab_graph(bad)


def test_a_repeated_session_is_counted_once_and_a_clash_is_an_error(
    kolab_sessions_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 38.19: a duplicated session_id is neither counted twice nor silent."""
    from collabsim.graphs.explorer_io import read_explorer
    from collabsim.graphs.kolab_common import KolabFormatError

    data = json.loads(kolab_sessions_path.read_text(encoding="utf-8"))
    first = data["sessions"][0]
    with caplog.at_level("WARNING"):
        graphs = read_explorer({"sessions": [*data["sessions"], copy.deepcopy(first)]})
    assert len(graphs) == len(data["sessions"]) == 31
    assert f"session_id {first['session_id']!r} appears twice" in caplog.text
    clash = copy.deepcopy(first)
    clash["goal"] = "another goal"
    with pytest.raises(KolabFormatError, match="names two different sessions"):
        read_explorer({"sessions": [*data["sessions"], clash]})
