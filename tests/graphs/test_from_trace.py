"""Trace -> WorkflowGraph on a hand-written DR scaffolded-like trace."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from collabsim.core.events import TraceEvent
from collabsim.graphs.from_trace import (
    TraceFormatError,
    graph_from_trace,
    graph_from_trace_file,
    read_trace,
)
from collabsim.graphs.kolab_io import GraphDataWarning, graph_to_kolab, kolab_to_graph
from collabsim.graphs.model import Edge, Response
from collabsim.graphs.nodelink import from_node_link, to_node_link
from collabsim.metrics.dynamics import DYNAMICS_COLUMNS, dynamics_row

_ACTOR_TYPE = {"agent": "ai", "D": "human", "R": "human", "env": "env"}


def _ev(
    seq: int,
    t0: float,
    t1: float,
    actor: str,
    action: str,
    status: str = "ok",
    refs: tuple[int, ...] = (),
    **args: Any,
) -> TraceEvent:
    return TraceEvent(seq, t0, t1, actor, _ACTOR_TYPE[actor], action, args, status, "", refs)


def dr_trace() -> list[TraceEvent]:
    """Build phase, a failed then fixed code cell, a rejected and a re-requested editor
    update, a teammate's edit of the agent's hypothesis, a gated submission."""
    return [
        _ev(
            0,
            0,
            0,
            "env",
            "SESSION_START",
            task_id="gen_001/0/0",
            team="DR",
            structure="scaffolded",
            seed=0,
            query="When did X first rise?",
        ),
        _ev(1, 0, 0, "env", "PHASE_START", phase="build"),
        _ev(2, 0, 5, "agent", "MEMORY_ADD", section="plan", text="agent computes"),
        _ev(3, 1, 4, "D", "MEMORY_ADD", section="trust", text="D checks numbers"),
        _ev(4, 4, 6, "R", "MEMORY_AGREE"),
        _ev(5, 5, 6, "D", "MEMORY_AGREE"),
        _ev(6, 6, 6, "env", "PHASE_START", phase="work"),
        _ev(7, 6, 20, "agent", "EXECUTE_CODE", "error", code="df['X'].diff("),
        _ev(8, 10, 15, "D", "SEND_TEAMMATE_MESSAGE", refs=(7,), message="use column X_v2"),
        _ev(9, 20, 30, "agent", "EXECUTE_CODE", code="df['X_v2'].diff()"),
        _ev(10, 25, 32, "R", "SEND_TEAMMATE_MESSAGE", refs=(9,), message="draft it please"),
        _ev(
            11,
            32,
            40,
            "agent",
            "EDITOR_UPDATE",
            "pending",
            refs=(10,),
            request_id="g1",
            text="X peaked in 2000 BCE",
        ),
        _ev(12, 40, 45, "R", "REJECT", refs=(11,), request_id="g1", reason="first rise"),
        _ev(13, 45, 45, "agent", "EDITOR_UPDATE", "rejected", refs=(11, 12)),
        # R comments on the rejected attempt (refs the rejected outcome)
        _ev(14, 45, 47, "R", "SEND_TEAMMATE_MESSAGE", refs=(13,), message="first, not peak"),
        _ev(
            15,
            46,
            50,
            "agent",
            "EDITOR_UPDATE",
            "pending",
            request_id="g2",
            text="X first rose in 2300 BCE",
        ),
        _ev(16, 50, 52, "R", "APPROVE", refs=(15,), request_id="g2"),
        _ev(17, 52, 52, "agent", "EDITOR_UPDATE", "approved", refs=(15, 16)),
        _ev(18, 52, 58, "D", "EDITOR_UPDATE", refs=(17,), text="X first rose c. 2300 BCE"),
        _ev(19, 58, 60, "agent", "FINISH", "pending", request_id="g3"),
        _ev(20, 60, 61, "D", "APPROVE", refs=(19,), request_id="g3"),
        _ev(21, 61, 61, "agent", "FINISH", "approved", refs=(19, 20)),
        _ev(22, 61, 61, "D", "INVALID", "error", text="APPROVE()"),
        _ev(23, 61, 61, "env", "SESSION_END", status="finished"),
    ]


def test_nodes_follow_the_conventions() -> None:
    g = graph_from_trace(dr_trace(), session_id="s", team="DR")
    ids = [n.id for n in g.nodes]
    # no env events, no INVALID, no rejected outcome
    assert ids == [
        f"e{i}" for i in (2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21)
    ]
    assert g.node("e7").actor_type == "ai" and g.node("e8").actor == "D"
    assert g.node("e8").actor_type == "human"
    assert g.node("e8").intervals == ((10.0, 15.0),)  # virtual clock; overlaps e7 (6-20)
    assert g.node("e11").extra == {
        "seq": 11,
        "action_type": "EDITOR_UPDATE",
        "status": "pending",
        "request_id": "g1",
    }
    assert "use column X_v2" in g.node("e8").label
    assert g.session.participant_id == "DR"


def test_steps_from_phases_and_action_kinds() -> None:
    g = graph_from_trace(dr_trace(), session_id="s")
    assert [s.key for s in g.steps] == ["build", "analysis", "review", "submission"]
    by_step = {s.key: [n.id for n in g.nodes if n.step == s.key] for s in g.steps}
    assert by_step["build"] == ["e2", "e3", "e4", "e5"]
    assert by_step["analysis"] == ["e7", "e8", "e9", "e10"]
    assert by_step["review"] == ["e11", "e12", "e14", "e15", "e16", "e17", "e18"]
    assert by_step["submission"] == ["e19", "e20", "e21"]
    assert g.step("analysis").time_range == (6.0, 32.0)


def test_edges_follow_in_time_whoever_acted_and_loops_repeat() -> None:
    g = graph_from_trace(dr_trace(), session_id="s")
    assert len(set(g.edges)) == len(g.edges)  # no duplicates in simulated graphs
    sequential = {(e.source, e.target) for e in g.edges if e.type == "sequential"}
    assert sequential == {
        ("e2", "e3"),  # D starts while the agent's entry is running: from that entry
        ("e3", "e4"),
        ("e2", "e5"),  # e3 is followed already: a branch from the latest completed node
        ("e4", "e7"), ("e5", "e7"),  # both agreements end by 6: parallel work joins
        ("e5", "e8"),  # D talks while the agent's code runs: a branch
        ("e7", "e9"), ("e8", "e9"),
        ("e7", "e10"),
        ("e9", "e11"), ("e10", "e11"),
        ("e11", "e12"),  # the decision after the request (rejected outcome e13: no node)
        ("e12", "e14"),
        ("e12", "e15"),
        ("e14", "e16"), ("e15", "e16"),
        ("e16", "e17"),
        ("e17", "e18"),  # a zero-length outcome ends when the next node starts
        ("e18", "e19"),
        ("e19", "e20"),
        ("e20", "e21"),
    }
    loops = {(e.source, e.target) for e in g.edges if e.type == "loop"}
    assert loops == {("e9", "e7"), ("e15", "e11")}  # retry after an error; re-request
    assert g.is_crossing(Edge("e11", "e12")) and not g.is_crossing(Edge("e7", "e9"))


def test_turn_taking_is_a_chain_and_a_session_without_overlap_has_no_branch() -> None:
    trace = [
        _ev(0, 0, 0, "env", "SESSION_START", task_id="t", team="D", structure="default"),
        _ev(1, 0, 8, "D", "SEND_TEAMMATE_MESSAGE", message="look at X"),
        _ev(2, 8, 20, "agent", "EXECUTE_CODE", code="x"),
        _ev(3, 20, 30, "agent", "EDITOR_UPDATE", text="X rose"),
        _ev(4, 30, 50, "D", "SEND_TEAMMATE_MESSAGE", refs=(2,), message="checked"),
        _ev(5, 50, 52, "agent", "FINISH"),
    ]
    g = graph_from_trace(trace, session_id="s")
    assert [(e.source, e.target) for e in g.edges] == [
        ("e1", "e2"), ("e2", "e3"), ("e3", "e4"), ("e4", "e5")]
    row = dynamics_row(g)
    assert (row["branch"], row["merge"], row["h_cross"]) == (0, 0, 0.75)


def test_responses_adopt_modify_reject() -> None:
    g = graph_from_trace(dr_trace(), session_id="s")
    assert g.responses == (
        Response("e12", "e10", "e11", "reject"),  # source: R's message the request refs
        Response("e16", None, "e15", "modify"),  # approval after requested changes
        Response("e18", None, "e17", "modify"),  # D edits the agent's hypothesis
        Response("e20", None, "e19", "adopt"),
    )


def test_dynamics_run_on_trace_graphs_and_round_trips() -> None:
    g = graph_from_trace(dr_trace(), session_id="s")
    row = dynamics_row(g)
    assert tuple(row) == DYNAMICS_COLUMNS
    assert row["edges_crossing"] > 0 and row["loop"] == 2
    assert row["responses_total"] == 4 and row["retention_strict"] == 0.25
    assert row["human_events"] == 10  # e3 e4 e5 e8 e10 e12 e14 e16 e18 e20
    assert not math.isnan(row["human_burstiness"])
    assert kolab_to_graph(graph_to_kolab(g)) == g
    assert from_node_link(to_node_link(g)) == g


def test_trace_file_and_session_info(tmp_path: Path) -> None:
    path = tmp_path / "run1" / "trace.jsonl"
    path.parent.mkdir()
    path.write_text("".join(e.to_json() + "\n" for e in dr_trace()), encoding="utf-8")
    g = graph_from_trace_file(path)
    assert g.session.session_id == "gen_001/0/0|DR|scaffolded|seed0"
    assert g.session.goal == "When did X first rise?"
    assert g.session.extra["structure"] == "scaffolded"
    assert g == graph_from_trace(
        dr_trace(),
        session_id=g.session.session_id,
        team="DR",
        goal="When did X first rise?",
        extra=g.session.extra,
    )


def test_truncated_last_line_warns_bad_middle_line_fails(tmp_path: Path) -> None:
    lines = [e.to_json() for e in dr_trace()[:5]]
    path = tmp_path / "crash.jsonl"
    path.write_text("\n".join(lines) + '\n{"seq": 5, "t_st', encoding="utf-8")
    with pytest.warns(GraphDataWarning, match="truncated"):
        assert len(read_trace(path)) == 5
    path.write_text("\n".join([lines[0], "{oops", *lines[1:]]), encoding="utf-8")
    with pytest.raises(TraceFormatError, match=r"crash.jsonl:2"):
        read_trace(path)
    path.write_text(json.dumps({"seq": 0}) + "\n" + lines[1], encoding="utf-8")
    with pytest.raises(TraceFormatError, match="crash.jsonl:1"):
        graph_from_trace_file(path)


def test_checks_in_chat_are_reject_or_adopt_responses() -> None:
    """A collaborator objecting in chat to the agent's draft is a ``reject`` (once per draft),
    confirming it in chat an ``adopt``; an announced edit is neither (its edit is the
    ``modify``), nor a message before the sender's own gate decision on the request it refs
    (the decision is the response)."""
    tag = "[issue kind=wrong_ordinal fix=ordinal:2] [check draft=0596179b]"
    trace = [
        _ev(0, 0, 0, "env", "SESSION_START", task_id="t", team="DR", structure="default"),
        _ev(1, 0, 5, "agent", "EDITOR_UPDATE", text="X rose in 2000 BCE"),
        _ev(2, 5, 8, "D", "SEND_TEAMMATE_MESSAGE", refs=(1,), message=f"Wrong. {tag}"),
        _ev(3, 8, 9, "D", "SEND_TEAMMATE_MESSAGE", refs=(1,), message=f"I still disagree. {tag}"),
        _ev(4, 5, 9, "R", "SEND_TEAMMATE_MESSAGE", refs=(1,),
            message=f"I am editing the draft. {tag} [edit draft=1234abcd]"),
        _ev(5, 9, 12, "R", "SEND_TEAMMATE_MESSAGE", refs=(1,),
            message="The draft looks right to me. [check draft=0596179b]"),
        _ev(6, 12, 14, "agent", "FINISH", "pending", request_id="g1"),
        _ev(7, 14, 16, "D", "SEND_TEAMMATE_MESSAGE", refs=(6,),
            message="No. [issue kind=wrong_year] [check draft=00000001]"),
        _ev(8, 16, 18, "D", "REJECT", refs=(6,), request_id="g1", reason=f"No. {tag}"),
    ]
    g = graph_from_trace(trace, session_id="s")
    assert g.responses == (
        Response("e2", None, "e1", "reject"),
        Response("e5", None, "e1", "adopt"),  # R's confirmation takes the draft
        Response("e8", None, "e6", "reject"),
    )


def test_interrupted_actions_are_no_nodes_responses_or_step_changes() -> None:
    """Actions cut off by the session's end (status ``interrupted``) never landed: no node,
    no edge, no response, and an interrupted edit does not open the review step."""
    tag = "[issue kind=wrong_year] [check draft=0596179b]"
    trace = [
        _ev(0, 0, 0, "env", "SESSION_START", task_id="t", team="DR", structure="default"),
        _ev(1, 0, 20, "agent", "EXECUTE_CODE", code="x"),
        _ev(2, 5, 90, "D", "EDITOR_UPDATE", "interrupted", text="X rose in 2300 BCE"),
        _ev(3, 20, 22, "agent", "SEND_TEAMMATE_MESSAGE", message="computing the rise"),
        _ev(4, 22, 25, "agent", "EDITOR_UPDATE", text="X rose in 2000 BCE"),
        _ev(5, 25, 27, "agent", "FINISH"),
        _ev(6, 26, 60, "D", "EDITOR_UPDATE", "interrupted", refs=(4,), text="X rose c. 2300"),
        _ev(7, 26, 40, "R", "SEND_TEAMMATE_MESSAGE", "interrupted", refs=(4,),
            message=f"Wrong. {tag}"),
        _ev(8, 27, 27, "env", "SESSION_END", status="finished"),
    ]
    g = graph_from_trace(trace, session_id="s")
    assert [n.id for n in g.nodes] == ["e1", "e3", "e4", "e5"]
    assert {e.source for e in g.edges} | {e.target for e in g.edges} <= {"e1", "e3", "e4", "e5"}
    assert g.responses == ()
    assert {s.key: [n.id for n in g.nodes if n.step == s.key] for s in g.steps} == {
        "analysis": ["e1", "e3"], "review": ["e4"], "submission": ["e5"]}
