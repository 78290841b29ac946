"""Actions cut off by the session's end: logged, marked ``interrupted``, never landed."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.executors import InProcessExecutor
from helpers.participants import WAIT, ScriptParticipant

from collabsim.core.actions import format_action
from collabsim.graphs.from_trace import graph_from_trace_file
from collabsim.metrics.activity import activity_counts
from collabsim.participants.team import team_from_dict
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.orchestrator import Orchestrator
from collabsim.session.structures import StructureSpec, builtin_structure
from collabsim.session.trace import read_trace
from collabsim.tasks.model import Task

CLOCK = ClockSpec(
    sigma=0.0,
    ai={"EDITOR_UPDATE": 10.0, "FINISH": 2.0},
    human={"EDITOR_UPDATE": 45.0, "APPROVE": 10.0},
)


def test_an_edit_still_running_at_finish_is_interrupted_everywhere(
    task: Task, tmp_path: Path
) -> None:
    # agent: edit 0-10, FINISH 10-12 ends the session; D: edit 0-45, cut off at 12
    agent = ScriptParticipant(
        "agent", "agent", [format_action("EDITOR_UPDATE", text="A"), "FINISH()"]
    )
    d = ScriptParticipant("D", "collaborator", [format_action("EDITOR_UPDATE", text="B")])
    cfg = SessionConfig(task=task, team=team_from_dict("D"), clock=CLOCK)
    path = tmp_path / "trace.jsonl"
    result = run_session_sync(cfg, {"agent": agent, "D": d}, path,
                              executor_factory=InProcessExecutor)

    assert (result.status, result.virtual_seconds, result.submitted_hypothesis) == (
        "finished", 12.0, "A")
    events = read_trace(path)
    by_actor = {(e.actor, e.action_type): e for e in events}
    cut = by_actor[("D", "EDITOR_UPDATE")]
    assert (cut.status, cut.t_start, cut.t_end) == ("interrupted", 0.0, 45.0)
    assert by_actor[("agent", "EDITOR_UPDATE")].status == "ok"
    assert by_actor[("agent", "FINISH")].status == "ok"
    # the file was rewritten whole: every line parses, seqs run on, SESSION_END comes last
    assert [e.seq for e in events] == list(range(len(events)))
    assert events[-1].action_type == "SESSION_END" and events[-1].t_end == 12.0
    assert sum('"interrupted"' in line for line in path.read_text().splitlines()) == 1
    # nobody counts it as landed work
    assert "D" not in result.counts
    assert activity_counts(events).w_human == 0
    graph = graph_from_trace_file(path)
    assert {n.actor for n in graph.nodes} == {"agent"} and not graph.responses


def _gated_finish(task: Task, max_time: float) -> Orchestrator:
    """Agent requests FINISH at 0 (lands at 2), D approves 2-12."""
    structure = StructureSpec(name="preassigned_gates", gates={"FINISH": "D"})
    cfg = SessionConfig(task=task, team=team_from_dict("D"), structure=structure,
                        clock=CLOCK, max_time=max_time)
    orch = Orchestrator(cfg, executor_factory=InProcessExecutor)
    orch.start()
    while (turn := orch.next_turn()) is not None:
        if turn.member == "agent":
            orch.submit("FINISH()" if turn.observation.turn == 0 else WAIT)
        elif turn.observation.pending_for_me:
            rid = turn.observation.pending_for_me[0].request_id
            orch.submit(format_action("APPROVE", request_id=rid))
        else:
            orch.submit(WAIT)
    orch.close()
    return orch


def _statuses(orch: Orchestrator) -> list[tuple[str, str, str]]:
    return [(e.actor, e.action_type, e.status) for e in orch.state.events if e.actor != "env"]


def test_an_approval_that_ends_the_session_has_landed(task: Task) -> None:
    orch = _gated_finish(task, max_time=3600.0)
    assert (orch.state.status, orch.state.end_time) == ("finished", 12.0)
    assert _statuses(orch) == [("agent", "FINISH", "pending"), ("D", "APPROVE", "ok"),
                        ("agent", "FINISH", "approved")]


def test_a_decision_in_flight_at_timeout_is_interrupted_with_its_outcome(task: Task) -> None:
    orch = _gated_finish(task, max_time=8.0)
    assert (orch.state.status, orch.state.end_time) == ("timeout", 8.0)
    assert _statuses(orch) == [("agent", "FINISH", "pending"), ("D", "APPROVE", "interrupted"),
                        ("agent", "FINISH", "interrupted")]
    assert orch.state.ws.requests["g1"].state == "pending"  # the decision never landed


def test_a_session_without_anything_in_flight_keeps_its_trace_append_only(
    task: Task, tmp_path: Path
) -> None:
    agent = ScriptParticipant("agent", "agent", [format_action("EDITOR_UPDATE", text="A"),
                                                 "FINISH()"])
    cfg = SessionConfig(task=task, structure=builtin_structure("single"), clock=CLOCK)
    path = tmp_path / "trace.jsonl"
    run_session_sync(cfg, {"agent": agent}, path, executor_factory=InProcessExecutor)
    statuses = [json.loads(line)["status"] for line in path.read_text().splitlines()]
    assert "interrupted" not in statuses and len(statuses) == 5
