"""Structures in sessions: gate requests, approvals, rejections, build phase, chosen gates."""

from __future__ import annotations

from pathlib import Path

from helpers.participants import WAIT, FnParticipant, ScriptParticipant

from collabsim.core.actions import format_action
from collabsim.core.events import TraceEvent
from collabsim.core.observation import Observation
from collabsim.participants.team import team_from_dict
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.session.trace import read_trace
from collabsim.tasks.model import Task

CODE = format_action("EXECUTE_CODE", code="print(6 * 7)")
REASON = "The query asks for the second rise, not the first."


def run(task: Task, tmp_path: Path, team: str, structure, parts, factory, **kw):
    cfg = SessionConfig(task=task, team=team_from_dict(team), structure=structure, **kw)
    path = tmp_path / "trace.jsonl"
    result = run_session_sync(cfg, parts, path, executor_factory=factory)
    return result, read_trace(path)


def approver(name: str) -> FnParticipant:
    def fn(obs: Observation) -> str:
        if obs.pending_for_me:
            return format_action("APPROVE", request_id=obs.pending_for_me[0].request_id)
        return WAIT

    return FnParticipant(name, "collaborator", fn)


def rejecter(name: str) -> FnParticipant:
    def fn(obs: Observation) -> str:
        if obs.pending_for_me:
            return format_action(
                "REJECT", request_id=obs.pending_for_me[0].request_id, reason=REASON
            )
        return WAIT

    return FnParticipant(name, "collaborator", fn)


def editing_agent(text: str = "h1") -> FnParticipant:
    """Edits once; finishes once the edit is visible or was rejected; waits otherwise."""

    def fn(obs: Observation) -> str:
        if obs.turn == 0:
            return format_action("EDITOR_UPDATE", text=text)
        rejected = any("rejected" in h.status for h in obs.history if h.actor == "agent")
        if (obs.editor_text == text or rejected) and not any(
            r.action_type == "FINISH" for r in obs.my_pending
        ):
            return "FINISH()"
        return WAIT

    return FnParticipant("agent", "agent", fn)


def one(events: list[TraceEvent], **match: object) -> TraceEvent:
    found = [e for e in events if all(getattr(e, k) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


def test_gated_action_takes_effect_only_after_approval(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = editing_agent()
    parts = {"agent": agent, "D": approver("D"), "R": approver("R")}
    result, events = run(
        task, tmp_path, "DR", builtin_structure("preassigned_gates"), parts, executor_factory
    )
    assert result.status == "finished", result.error
    assert result.gates == {"EDITOR_UPDATE": "R", "FINISH": "D"}
    req = one(events, action_type="EDITOR_UPDATE", status="pending")
    assert req.actor == "agent" and req.args["request_id"] == "g1" and req.args["text"] == "h1"
    decision = one(events, action_type="APPROVE", actor="R")
    assert decision.refs == (req.seq,) and decision.args["request_id"] == "g1"
    outcome = one(events, action_type="EDITOR_UPDATE", status="approved")
    assert outcome.actor == "agent" and outcome.refs == (req.seq, decision.seq)
    assert outcome.t_start == outcome.t_end == decision.t_end
    # the editor changed only when the approval landed
    for obs in agent.observations:
        assert obs.editor_text == ("h1" if obs.time >= decision.t_end else "")
    assert any(o.editor_text == "" for o in agent.observations[1:])
    # FINISH was gated by D and the session ended when D's approval landed
    fin_req = one(events, action_type="FINISH", status="pending")
    fin_ok = one(events, action_type="FINISH", status="approved")
    fin_dec = one(events, action_type="APPROVE", actor="D")
    assert fin_ok.refs == (fin_req.seq, fin_dec.seq)
    assert result.virtual_seconds == fin_dec.t_end
    assert result.submitted_hypothesis == "h1"
    assert result.counts["agent"] == {"EDITOR_UPDATE": 1, "FINISH": 1}
    assert events[-1].args["status"] == "finished"


def test_rejection_reason_reaches_only_the_author(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = editing_agent()
    d, r = approver("D"), rejecter("R")
    result, events = run(
        task,
        tmp_path,
        "DR",
        builtin_structure("preassigned_gates"),
        {"agent": agent, "D": d, "R": r},
        executor_factory,
    )
    assert result.status == "finished"
    assert result.submitted_hypothesis == ""
    outcome = one(events, action_type="EDITOR_UPDATE", status="rejected")
    assert outcome.observation == REASON
    decision = one(events, action_type="REJECT")
    assert decision.args == {"request_id": "g1", "reason": REASON}
    got = [(o.time, f) for o in agent.observations for f in o.feedback if REASON in f]
    assert len(got) == 1 and got[0][0] >= decision.t_end
    assert "rejected by R" in got[0][1]
    assert not any(REASON in f for o in d.observations for f in o.feedback)
    assert all(o.editor_text == "" for o in agent.observations)


def test_owner_acts_directly_and_a_finish_owner_may_finish(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = ScriptParticipant("agent", "agent", [])
    r = ScriptParticipant("R", "collaborator", [format_action("EDITOR_UPDATE", text="by R")])
    d = ScriptParticipant("D", "collaborator", [WAIT, WAIT, WAIT, "FINISH()"])
    result, events = run(
        task,
        tmp_path,
        "DR",
        builtin_structure("preassigned_gates"),
        {"agent": agent, "D": d, "R": r},
        executor_factory,
    )
    assert one(events, action_type="EDITOR_UPDATE").status == "ok"
    assert one(events, action_type="FINISH").actor == "D"
    assert (result.status, result.submitted_hypothesis) == ("finished", "by R")
    assert not any(e.status == "pending" for e in events)
    assert "FINISH" in d.observations[0].available_actions
    assert "FINISH" not in r.observations[0].available_actions


def test_preassigned_owner_missing_from_team_falls_back(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    parts = {
        "agent": ScriptParticipant("agent", "agent", [], then="FINISH()"),
        "D": ScriptParticipant("D", "collaborator", []),
    }
    result, _ = run(
        task,
        tmp_path,
        "D",
        builtin_structure("preassigned_gates"),
        parts,
        executor_factory,
        max_turns=3,
    )
    assert result.gates == {"EDITOR_UPDATE": "D", "FINISH": "D"}
    solo = {"agent": ScriptParticipant("agent", "agent", [], then="FINISH()")}
    result, _ = run(
        task, tmp_path, "solo", builtin_structure("preassigned_gates"), solo, executor_factory
    )
    assert result.gates == {} and result.status == "finished"


def test_memory_build_phase_then_read_only(task: Task, tmp_path: Path, executor_factory) -> None:
    def agent_fn(obs: Observation) -> str:
        if obs.phase == "build":
            plan = [
                CODE,
                format_action("MEMORY_ADD", section="Plan", text="D checks numbers"),
                "MEMORY_AGREE()",
            ]
            return plan[obs.turn] if obs.turn < len(plan) else WAIT
        if not any(h.action_type == "INVALID" and "read-only" in h.summary for h in obs.history):
            return format_action("MEMORY_ADD", section="plan", text="late")
        return "FINISH()"

    agent = FnParticipant("agent", "agent", agent_fn)
    d = ScriptParticipant(
        "D",
        "collaborator",
        [
            format_action("MEMORY_ADD", section="expertise", text="D: data analysis"),
            format_action("MEMORY_ADD", section="gates", text="FINISH: D"),
            "MEMORY_AGREE()",
        ],
    )
    result, events = run(
        task, tmp_path, "D", builtin_structure("memory"), {"agent": agent, "D": d}, executor_factory
    )
    assert result.status == "finished", result.error
    phases = [e for e in events if e.action_type == "PHASE_START"]
    assert [p.args["phase"] for p in phases] == ["build", "work"]
    agrees = [e for e in events if e.action_type == "MEMORY_AGREE"]
    assert phases[1].t_start == max(e.t_end for e in agrees)
    assert phases[1].args["gates"] == {}
    invalid = [e for e in events if e.action_type == "INVALID"]
    texts = [e.observation for e in invalid]
    assert any("build phase" in t for t in texts)  # code during the build phase
    assert any("read-only" in t for t in texts)  # memory after it
    assert any("gates" in t for t in texts)  # no gates section outside scaffolded
    work_obs = [o for o in agent.observations if o.phase == "work"]
    assert work_obs and all(o.memory is not None and o.memory.read_only for o in work_obs)
    memory = work_obs[-1].memory
    assert memory is not None
    assert memory.sections["plan"] == ("D checks numbers",)
    assert memory.sections["expertise"] == ("D: data analysis",)
    assert set(memory.agreed) == {"agent", "D"}
    build_obs = [o for o in agent.observations if o.phase == "build"]
    assert "EXECUTE_CODE" not in build_obs[0].available_actions
    assert "MEMORY_ADD" not in work_obs[0].available_actions


def test_build_phase_ends_at_its_turn_cap(task: Task, tmp_path: Path, executor_factory) -> None:
    structure = builtin_structure("memory", build_max_turns=4)
    parts = {
        "agent": ScriptParticipant("agent", "agent", [WAIT] * 6, then="FINISH()"),
        "D": ScriptParticipant("D", "collaborator", []),
    }
    result, events = run(task, tmp_path, "D", structure, parts, executor_factory)
    assert result.status == "finished"
    assert [e.args["phase"] for e in events if e.action_type == "PHASE_START"] == ["build", "work"]


def _gated_agent(obs: Observation) -> str:
    """Agrees to the gates; then runs code, drafts, waits for the draft to land, finishes."""
    if obs.phase == "build":
        return "MEMORY_AGREE()" if "agent" not in obs.memory.agreed else WAIT
    done = {h.action_type for h in obs.history if h.actor == "agent"}
    if "EXECUTE_CODE" not in done:
        return CODE
    if "EDITOR_UPDATE" not in done:
        return format_action("EDITOR_UPDATE", text="gated text")
    if obs.editor_text != "gated text":
        return WAIT
    return "FINISH()"


def _gating_d(obs: Observation) -> str:
    """Proposes gates (edits to D, finish to R) and agrees; then approves what waits for it."""
    if obs.phase == "build":
        steps = [
            format_action("MEMORY_ADD", section="gates", text="EDITOR_UPDATE: D\nfinish: R"),
            "MEMORY_AGREE()",
        ]
        return steps[obs.turn] if obs.turn < len(steps) else WAIT
    if obs.pending_for_me:
        return format_action("APPROVE", request_id=obs.pending_for_me[0].request_id)
    return WAIT


def _gating_r(obs: Observation) -> str:
    """Proposes a gate line that is not understood and one that frees FINISH; then waits."""
    if obs.phase == "build":
        steps = [
            format_action("MEMORY_ADD", section="gates", text="EXECUTE_CODE to R please"),
            format_action("MEMORY_ADD", section="gates", text="FINISH: none"),
            "MEMORY_AGREE()",
        ]
        return steps[obs.turn] if obs.turn < len(steps) else WAIT
    return WAIT


def test_scaffolded_gates_chosen_in_build_phase_are_enforced(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = FnParticipant("agent", "agent", _gated_agent)
    d = FnParticipant("D", "collaborator", _gating_d)
    r = FnParticipant("R", "collaborator", _gating_r)
    result, events = run(
        task,
        tmp_path,
        "DR",
        builtin_structure("scaffolded"),
        {"agent": agent, "D": d, "R": r},
        executor_factory,
        clock=ClockSpec(sigma=0.0),
    )
    assert result.status == "finished", result.error
    work = [e for e in events if e.action_type == "PHASE_START"][-1]
    assert work.args == {"phase": "work", "gates": {"EDITOR_UPDATE": "D"}}
    assert result.gates == {"EDITOR_UPDATE": "D"}
    bad = one(events, action_type="INVALID", actor="R")
    assert "not understood" in bad.observation and "ACTION: owner" in bad.observation
    # chosen gate enforced; not-chosen actions (code, finish) act directly
    assert one(events, action_type="EXECUTE_CODE").status == "ok"
    assert one(events, action_type="EDITOR_UPDATE", status="pending").actor == "agent"
    assert one(events, action_type="EDITOR_UPDATE", status="approved")
    assert one(events, action_type="FINISH").status == "ok"
    assert result.submitted_hypothesis == "gated text"
    work_obs = [o for o in agent.observations if o.phase == "work"]
    assert all(o.gates == {"EDITOR_UPDATE": "D"} for o in work_obs)
    # memory order = landing order (D's entry lands at 40 s, R's at 55 s): R's line wins
    gates_entries = work_obs[-1].memory.sections["gates"]
    assert gates_entries == ("EDITOR_UPDATE: D\nfinish: R", "FINISH: none")


def test_decisions_on_others_requests_are_errors(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = ScriptParticipant(
        "agent", "agent", [format_action("EDITOR_UPDATE", text="x")] + [WAIT] * 8, then="FINISH()"
    )

    def d_fn(obs: Observation) -> str:
        if obs.turn == 0:
            return WAIT
        if obs.turn in (1, 2, 3):
            return ['APPROVE("g1")', 'APPROVE("g9")', 'REJECT("g1", "no")'][obs.turn - 1]
        return WAIT

    d = FnParticipant("D", "collaborator", d_fn)
    r = approver("R")
    result, events = run(
        task,
        tmp_path,
        "DR",
        builtin_structure("preassigned_gates", gates={"EDITOR_UPDATE": "R"}),
        {"agent": agent, "D": d, "R": r},
        executor_factory,
    )
    d_errors = [e.observation for e in events if e.action_type == "INVALID" and e.actor == "D"]
    assert d_errors, events
    assert all(
        ("decided by R" in t) or ("no gate request" in t) or ("unknown request" in t)
        for t in d_errors
    )
    assert one(events, action_type="EDITOR_UPDATE", status="approved")
    assert all(not o.pending_for_me for o in d.observations)
