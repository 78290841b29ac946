"""Benchmark instances: counts on the explorer data and leak-free windows."""

from __future__ import annotations

import pytest

from collabsim.graphs.model import Edge, Node, Response, SessionInfo, Step, WorkflowGraph
from collabsim.kolab.instances import (
    ADOPTION_TASKS,
    ALL_TASKS,
    InstanceSet,
    build_instances,
    expand_tasks,
)

EXPECTED_COUNTS = {
    "1a": 247,
    "1b": 247,
    "1b+h": 247,
    "1c-k1": 50,
    "1c-k2": 50,
    "1c-k3": 48,
    "1d": 247,
    "2a": 97,
    "2b": 110,
}


def test_instance_counts_on_explorer_data(explorer_instances: InstanceSet) -> None:
    assert explorer_instances.counts() == EXPECTED_COUNTS
    labels = [i.target for i in explorer_instances.by_task("1b")]
    assert (labels.count("adopt"), labels.count("modify"), labels.count("reject")) == (152, 63, 32)
    assert explorer_instances.notes == ()
    # 1b+h has 1b's windows, plus the history
    plain = {i.instance_id.replace("/1b/", "/"): i for i in explorer_instances.by_task("1b")}
    for inst in explorer_instances.by_task("1b+h"):
        twin = plain[inst.instance_id.replace("/1b+h/", "/")]
        assert inst.window == twin.window and inst.target == twin.target
        assert twin.history == () and not twin.uses_history and inst.uses_history


def test_no_window_node_starts_after_window_end(
    explorer_graphs: list[WorkflowGraph], explorer_instances: InstanceSet
) -> None:
    originals = {g.session.session_id: g for g in explorer_graphs}
    checked = 0
    for inst in explorer_instances.instances:
        original = originals[inst.session_id]
        assert inst.window_end is not None
        for node in inst.window.nodes:
            # the source node's earliest start, and every interval kept in the window
            assert original.node(node.id).start <= inst.window_end
            assert all(s <= inst.window_end and e <= inst.window_end for s, e in node.intervals)
            checked += 1
    assert checked > 3000


def test_recognition_windows_hold_the_responder_and_forecasting_windows_never(
    explorer_instances: InstanceSet,
) -> None:
    for inst in explorer_instances.by_task("1a"):
        assert inst.response is not None and inst.response.responder in inst.window
        assert inst.response.ai_node in inst.window
    for task in ADOPTION_TASKS[1:]:
        for inst in explorer_instances.by_task(task):
            assert inst.response is not None
            assert inst.response.responder not in inst.window, inst.instance_id
            assert inst.response.ai_node in inst.window
            if inst.response.source is not None:
                assert inst.response.source in inst.window


def test_windows_carry_no_labels_and_no_ratings(explorer_instances: InstanceSet) -> None:
    for inst in explorer_instances.instances:
        assert inst.window.responses == ()
        assert all(s.collaboration is None and s.quality is None for s in inst.window.steps)


def test_1c_uses_last_step_responses_and_k_preceding_steps(
    explorer_graphs: list[WorkflowGraph], explorer_instances: InstanceSet
) -> None:
    originals = {g.session.session_id: g for g in explorer_graphs}
    forecast = {i.instance_id.replace("/1b/", "/X/"): i for i in explorer_instances.by_task("1b")}
    for k in (1, 2, 3):
        for inst in explorer_instances.by_task(f"1c-k{k}"):
            graph = originals[inst.session_id]
            last = graph.steps[-1].key
            assert inst.response is not None
            first = inst.response.source or inst.response.ai_node
            assert graph.node(first).step == last and graph.node(inst.response.ai_node).step == last
            assert inst.context_steps == tuple(s.key for s in graph.steps[-1 - k : -1])
            base = forecast[inst.instance_id.replace(f"/1c-k{k}/", "/X/")]
            assert {n.id for n in base.window.nodes} <= {n.id for n in inst.window.nodes}
            assert {n.step for n in inst.window.nodes} - {last} <= set(inst.context_steps)


def test_1d_window_extends_1b_to_the_session_start(explorer_instances: InstanceSet) -> None:
    b = explorer_instances.by_task("1b")
    d = explorer_instances.by_task("1d")
    for ib, id_ in zip(b, d, strict=True):
        assert {n.id for n in ib.window.nodes} <= {n.id for n in id_.window.nodes}
        assert id_.window_end == ib.window_end
        assert id_.window_start <= ib.window_start


def test_rating_windows_are_the_step_subgraph(
    explorer_graphs: list[WorkflowGraph], explorer_instances: InstanceSet
) -> None:
    originals = {g.session.session_id: g for g in explorer_graphs}
    for inst in explorer_instances.by_task("2a") + explorer_instances.by_task("2b"):
        graph = originals[inst.session_id]
        expected = {n.id for n in graph.nodes if n.step == inst.step_key}
        assert {n.id for n in inst.window.nodes} == expected
        step = graph.step(inst.step_key)
        assert inst.target == (step.collaboration if inst.task == "2a" else step.quality)


# ----------------------------------------------------------------------------- synthetic cases


def _graph(responses: list[Response]) -> WorkflowGraph:
    """h1 asks (0-10), a2 answers (10-20); h3 starts exactly at a2's end (20-30); r4 responds
    (25-40); m5 is a multi-interval node active at 5-8 and again at 50-60; z6 has no time."""
    nodes = [
        Node("h1", "Human", "human", "ask", intervals=((0, 10),), step="0"),
        Node("a2", "AI", "ai", "answer", intervals=((10, 20),), step="0"),
        Node("h3", "Human", "human", "read", intervals=((20, 30),), step="1"),
        Node("r4", "Human", "human", "respond", intervals=((25, 40),), step="1"),
        Node("m5", "Human", "human", "side work", intervals=((5, 8), (50, 60)), step="1"),
        Node("z6", "Human", "human", "untimed", step="1"),
    ]
    edges = [Edge("h1", "a2"), Edge("a2", "h3"), Edge("h3", "r4"), Edge("r4", "m5")]
    steps = [Step("0", "first", collaboration=5), Step("1", "second", quality=2)]
    return WorkflowGraph(SessionInfo("s|1", "p9"), steps, nodes, edges, responses)


def test_time_cut_on_a_synthetic_graph() -> None:
    graph = _graph([Response("r4", "h1", "a2", "modify")])
    built = build_instances([graph], ["1a", "1b", "1d"])
    a, b, d = built.by_task("1a")[0], built.by_task("1b")[0], built.by_task("1d")[0]
    # 1b: the node starting exactly at the AI end and the responder are out; m5 keeps only
    # its interval before the cut.
    assert {n.id for n in b.window.nodes} == {"h1", "a2", "m5"}
    assert b.window.node("m5").intervals == ((5, 8),)
    assert b.window_start == 0 and b.window_end == 20
    assert [(e.source, e.target) for e in b.window.edges] == [("h1", "a2")]
    # 1a: everything up to the responder's end, m5 still without its later interval
    assert {n.id for n in a.window.nodes} == {"h1", "a2", "h3", "r4", "m5"}
    assert a.window_end == 40 and a.window.node("m5").intervals == ((5, 8),)
    assert {n.id for n in d.window.nodes} == {"h1", "a2", "m5"}
    assert a.window.responses == () and a.target == "modify"


def test_responder_starting_inside_the_ai_node_is_never_in_a_forecast() -> None:
    graph = _graph([Response("h3", None, "a2", "adopt")])
    nodes = list(graph.nodes)
    nodes[2] = Node("h3", "Human", "human", "react early", intervals=((15, 30),), step="1")
    early = WorkflowGraph(graph.session, graph.steps, nodes, graph.edges, graph.responses)
    inst = build_instances([early], ["1b"]).by_task("1b")[0]
    assert "h3" not in inst.window
    # no source: the window starts at the AI node
    assert inst.window_start == 10 and {n.id for n in inst.window.nodes} == {"a2"}


def test_expand_tasks() -> None:
    assert expand_tasks(["1c"]) == ("1c-k1", "1c-k2", "1c-k3")
    assert expand_tasks(["2b", "1a"]) == ("1a", "2b")
    assert expand_tasks(ALL_TASKS) == ALL_TASKS
    with pytest.raises(ValueError, match="unknown Kolab task"):
        expand_tasks(["3z"])
