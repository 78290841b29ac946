"""Real engine sessions (DR, scaffolded) converted to WorkflowGraphs.

One session runs the project's scripted policies on a generated task in the real sandbox
(acceptance: human and AI nodes, crossing edges, a response, virtual-clock intervals, the
dynamics metrics run on it); one runs tiny hand-written policies that force every response
kind (reject, approve after a rejection, adopt) and a retry loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT
from helpers.tasks import make_task

from collabsim.core.actions import format_action
from collabsim.core.observation import Observation, Role
from collabsim.graphs.from_trace import graph_from_trace_file, read_trace
from collabsim.graphs.kolab_io import graph_to_kolab, kolab_to_graph
from collabsim.graphs.nodelink import from_node_link, to_node_link
from collabsim.metrics.dynamics import DYNAMICS_COLUMNS, dynamics_row
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite

WAIT = format_action("WAIT_TEAMMATE_CONTINUE")


@dataclass
class Policy:
    name: str
    role: Role
    fn: Callable[[Observation, dict[str, Any]], str]
    state: dict[str, Any] = field(default_factory=dict)

    async def act(self, observation: Observation) -> str:
        return self.fn(observation, self.state)


def agent(obs: Observation, st: dict[str, Any]) -> str:
    """Gates in the build phase; then a failing and a working cell; then drafts and FINISH."""
    if obs.phase == "build":
        return _agent_build(st)
    if obs.my_pending:
        return WAIT
    return _agent_code(obs, st) or _agent_draft(obs, st)


def _agent_build(st: dict[str, Any]) -> str:
    """Propose the gates (R decides edits, D the submission), then agree."""
    if not st.get("gates"):
        st["gates"] = True
        return format_action("MEMORY_ADD", section="gates", text="EDITOR_UPDATE: R\nFINISH: D")
    if not st.get("agreed"):
        st["agreed"] = True
        return format_action("MEMORY_AGREE")
    return WAIT


def _agent_code(obs: Observation, st: dict[str, Any]) -> str | None:
    """A failing cell, then (once it ran) a working one (a retry loop); None when both ran."""
    cells = [c for c in obs.code_cells if c.author == obs.me]
    if st.get("ran", 0) == 0:
        st["ran"] = 1
        return format_action("EXECUTE_CODE", code="print(1 / 0)")
    if st["ran"] == 1 and cells:
        st["ran"] = 2
        return format_action("EXECUTE_CODE", code="print(6 * 7)")
    if st["ran"] < 2:
        return WAIT
    return None


def _agent_draft(obs: Observation, st: dict[str, Any]) -> str:
    """A draft, a second one after R rejects it, then FINISH once a draft stands."""
    drafts = st.get("drafts", 0)
    if drafts == 0:
        st["drafts"] = 1
        return format_action("EDITOR_UPDATE", text="dagger peaks at -2400")
    if obs.editor_text == "" and any("rejected" in f for f in obs.feedback):
        st["drafts"] = 2
        return format_action("EDITOR_UPDATE", text="dagger first rises around -2800")
    if obs.editor_text and not st.get("finished"):
        st["finished"] = True
        return format_action("FINISH")
    return WAIT


def collaborator(obs: Observation, st: dict[str, Any]) -> str:
    if obs.phase == "build":
        if not st.get("agreed") and obs.memory and obs.memory.sections.get("gates"):
            st["agreed"] = True
            return format_action("MEMORY_AGREE")
        return WAIT
    for req in obs.pending_for_me:
        decided = st.setdefault("decided", 0)
        st["decided"] = decided + 1
        if obs.me == "R" and decided == 0:
            return format_action("REJECT", request_id=req.request_id, reason="first, not peak")
        return format_action("APPROVE", request_id=req.request_id)
    if obs.me == "D" and not st.get("said") and obs.code_cells:
        st["said"] = True
        return format_action("SEND_TEAMMATE_MESSAGE", message="use the dagger column")
    return WAIT


def test_engine_dr_scaffolded_session_converts(tmp_path: Path) -> None:
    config = SessionConfig(
        task=make_task(tmp_path / "task"),
        team=team_from_dict("DR"),
        structure=builtin_structure("scaffolded"),
        seed=1,
        max_turns=40,
    )
    participants = {
        "agent": Policy("agent", "agent", agent),
        "D": Policy("D", "collaborator", collaborator),
        "R": Policy("R", "collaborator", collaborator),
    }
    trace = tmp_path / "trace.jsonl"
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result

    g = graph_from_trace_file(trace)
    assert g.session.session_id == "tiny/0/0|DR|scaffolded|seed1"
    kinds = {n.actor_type for n in g.nodes}
    assert kinds == {"human", "ai"}
    assert {n.actor for n in g.nodes} == {"agent", "D", "R"}
    assert [s.key for s in g.steps] == ["build", "analysis", "review", "submission"]
    assert any(g.is_crossing(e) for e in g.edges)
    labels = sorted(r.label for r in g.responses)
    assert labels == ["adopt", "modify", "reject"]  # R rejects, approves the redo; D: FINISH
    assert {e.type for e in g.edges} == {"sequential", "loop"}  # retry after the error
    for n in g.nodes:  # intervals from the virtual clock
        ((start, end),) = n.intervals
        assert 0 <= start <= end <= result.virtual_seconds
    row = dynamics_row(g)
    assert row["responses_total"] == 3 and row["edges_crossing"] > 0
    assert row["human_events"] == sum(n.actor_type == "human" for n in g.nodes)


def test_scripted_dr_scaffolded_session_converts(tmp_path: Path) -> None:
    generate_suite(tmp_path / "suite", n_tasks=1, seed=0)
    task = load_tasks(tmp_path / "suite").tasks[0]
    team = team_from_dict("DR")
    participants = {
        m: build_scripted(m, team.role(m), team.profile(m), seed=0,
                          params=CAREFUL_AGENT if team.role(m) == "agent" else None)
        for m in team.members
    }
    config = SessionConfig(task=task, team=team, structure=builtin_structure("scaffolded"), seed=0)
    trace = tmp_path / "run" / "trace.jsonl"
    trace.parent.mkdir()
    result = run_session_sync(config, participants, trace)
    assert result.status == "finished", result

    g = graph_from_trace_file(trace)
    assert {n.actor_type for n in g.nodes} == {"human", "ai"}
    assert {"agent", "D", "R"} <= {n.actor for n in g.nodes}
    assert sum(g.is_crossing(e) for e in g.edges) > 0
    assert len(g.responses) >= 1
    assert all(g.node(r.ai_node).actor_type == "ai" for r in g.responses)
    assert all(g.node(r.responder).actor_type == "human" for r in g.responses)
    events = {e.seq: e for e in read_trace(trace)}
    for n in g.nodes:  # one interval per node, straight from the virtual clock
        ev = events[n.extra["seq"]]
        assert n.intervals == ((ev.t_start, ev.t_end),)
        assert n.end <= result.virtual_seconds
    assert g.steps[0].key == "build"
    row = dynamics_row(g)
    assert tuple(row) == DYNAMICS_COLUMNS
    assert row["edges_crossing"] > 0 and row["responses_total"] == len(g.responses)
    assert row["human_events"] >= 3 and -1 <= row["human_burstiness"] <= 1
    # fractional virtual-clock times survive both file formats exactly
    assert kolab_to_graph(json.loads(json.dumps(graph_to_kolab(g)))) == g
    assert from_node_link(json.loads(json.dumps(to_node_link(g)))) == g
