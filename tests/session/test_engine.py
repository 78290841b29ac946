"""Session engine: scheduling, visibility, errors, ending, determinism, sandbox lifecycle."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from helpers.participants import WAIT, FnParticipant, ScriptParticipant

from collabsim.core.actions import format_action
from collabsim.core.errors import SessionAbort
from collabsim.core.observation import Observation
from collabsim.participants.team import team_from_dict
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session, run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.session.trace import read_trace
from collabsim.tasks.model import Task

CODE = format_action("EXECUTE_CODE", code="x = 6 * 7\nprint(x)")
MSG = format_action("SEND_TEAMMATE_MESSAGE", message="I checked the series.")


def config(task: Task, team: str = "DR", structure: str = "default", **kw: object) -> SessionConfig:
    return SessionConfig(
        task=task, team=team_from_dict(team), structure=builtin_structure(structure), **kw
    )


def busy_team(task: Task, seed: int = 0) -> tuple[SessionConfig, dict[str, ScriptParticipant]]:
    agent = ScriptParticipant(
        "agent",
        "agent",
        [
            CODE,
            MSG,
            WAIT,
            format_action("EDITOR_UPDATE", text="Dagger first rises at -2700."),
            WAIT,
            CODE,
            WAIT,
            WAIT,
            "FINISH()",
        ],
    )
    d = ScriptParticipant("D", "collaborator", [MSG, CODE, MSG, MSG, MSG, MSG])
    r = ScriptParticipant("R", "collaborator", [MSG, MSG, WAIT, MSG, MSG])
    return config(task, seed=seed), {"agent": agent, "D": d, "R": r}


def test_session_runs_to_finish_and_writes_a_readable_trace(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    cfg, parts = busy_team(task)
    trace = tmp_path / "trace.jsonl"
    result = run_session_sync(cfg, parts, trace, executor_factory=executor_factory)
    assert result.status == "finished", result.error
    assert result.submitted_hypothesis == "Dagger first rises at -2700."
    events = read_trace(trace)
    assert [e.seq for e in events] == list(range(len(events))) and len(events) == result.n_events
    assert events[0].action_type == "SESSION_START" and events[-1].action_type == "SESSION_END"
    assert events[-1].args["status"] == "finished"
    code = [e for e in events if e.action_type == "EXECUTE_CODE" and e.actor == "agent"]
    assert "42" in code[0].observation and code[0].status == "ok"
    assert result.counts["agent"]["EXECUTE_CODE"] == 2
    assert "WAIT_TEAMMATE_CONTINUE" not in {e.action_type for e in events}
    assert all(e.t_end >= e.t_start for e in events)
    # the agent's later observation shows the code output in the shared history
    later = parts["agent"].observations[-1]
    assert any("42" in c.output for c in later.code_cells)
    # the sandbox was created once and closed
    assert (
        len(executor_factory.created) == 1 and executor_factory.closed == executor_factory.created
    )


def test_effects_land_at_t_end_only(task: Task, executor_factory) -> None:
    cfg, parts = busy_team(task)
    run_session_sync(cfg, parts, None, executor_factory=executor_factory)
    for p in parts.values():
        for obs in p.observations:
            assert all(c.time <= obs.time for c in obs.code_cells)
            assert all(m.time <= obs.time for m in obs.chat)
            assert all(h.time <= obs.time for h in obs.history)


def test_collaborators_work_while_the_agent_computes(task: Task, executor_factory) -> None:
    events = _events(task, executor_factory)
    agent = [e for e in events if e.actor == "agent"]
    others = [e for e in events if e.actor in ("D", "R")]
    overlaps = [
        (a.seq, o.seq) for a in agent for o in others if a.t_start < o.t_end and o.t_start < a.t_end
    ]
    assert overlaps
    assert any(e.action_type == "EXECUTE_CODE" for e in agent)


def _events(task: Task, executor_factory, seed: int = 0):
    cfg, parts = busy_team(task, seed)
    path = task.datasets[0].path.parent / f"trace_{seed}.jsonl"
    run_session_sync(cfg, parts, path, executor_factory=executor_factory)
    return read_trace(path)


def test_same_inputs_give_byte_identical_traces_and_seed_changes_timing(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    paths = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        cfg, parts = busy_team(task, seed)
        path = tmp_path / f"{name}.jsonl"
        run_session_sync(cfg, parts, path, executor_factory=executor_factory)
        paths.append(path)
    a, b, c = (p.read_bytes() for p in paths)
    assert a == b
    times_a = [(e.t_start, e.t_end) for e in read_trace(paths[0])]
    times_c = [(e.t_start, e.t_end) for e in read_trace(paths[2])]
    assert times_a != times_c


def test_collaborator_sees_only_its_own_history_agent_sees_team(
    task: Task, executor_factory
) -> None:
    cfg, parts = busy_team(task)
    run_session_sync(cfg, parts, None, executor_factory=executor_factory)
    for name in ("D", "R"):
        seen = {h.actor for obs in parts[name].observations for h in obs.history}
        assert seen == {name}
    agent_seen = {h.actor for obs in parts["agent"].observations for h in obs.history}
    assert agent_seen == {"agent", "D", "R"}
    # everyone sees the shared chat and code cells from all members
    last_d = parts["D"].observations[-1]
    assert {m.sender for m in last_d.chat} >= {"agent", "R"}
    assert any(c.author == "agent" for c in last_d.code_cells)


def test_participants_never_see_the_gold_hypothesis(task: Task, executor_factory) -> None:
    cfg, parts = busy_team(task)
    run_session_sync(cfg, parts, None, executor_factory=executor_factory)
    for p in parts.values():
        for obs in p.observations:
            assert not hasattr(obs.task, "gold_hypothesis")
            assert "SECRET-GOLD" not in repr(obs)


def test_malformed_action_is_an_error_event_with_feedback_and_the_session_goes_on(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = ScriptParticipant(
        "agent", "agent", ["I think we are done", 'EXECUTE_CODE(code="print(1)', CODE, "FINISH()"]
    )
    path = tmp_path / "t.jsonl"
    result = run_session_sync(
        config(task, "solo"), {"agent": agent}, path, executor_factory=executor_factory
    )
    assert result.status == "finished"
    events = read_trace(path)
    invalid = [e for e in events if e.action_type == "INVALID"]
    assert len(invalid) == 2 and all(e.status == "error" for e in invalid)
    assert "No action found" in invalid[0].observation
    assert "unterminated string" in invalid[1].observation
    fb1, fb2 = agent.observations[1].feedback, agent.observations[2].feedback
    assert len(fb1) == 1 and "No action found" in fb1[0]
    assert len(fb2) == 1 and "unterminated" in fb2[0]
    assert agent.observations[3].feedback == ()
    assert result.counts["agent"]["INVALID"] == 2


def test_illegal_actions_are_errors_for_their_author(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    agent = ScriptParticipant("agent", "agent", [WAIT] * 12 + ["FINISH()"])
    d = ScriptParticipant(
        "D",
        "collaborator",
        ['MEMORY_ADD(section="plan", text="x")', "FINISH()", 'APPROVE("g7")', "MEMORY_AGREE()"],
    )
    path = tmp_path / "t.jsonl"
    result = run_session_sync(
        config(task, "D"), {"agent": agent, "D": d}, path, executor_factory=executor_factory
    )
    assert result.status == "finished"
    invalid = [e for e in read_trace(path) if e.action_type == "INVALID"]
    assert [e.actor for e in invalid] == ["D"] * 4
    messages = " | ".join(e.observation for e in invalid)
    assert "has no group memory" in messages
    assert "only the agent" in messages
    assert "no gate request is waiting" in messages
    feedback = [f for obs in d.observations for f in obs.feedback]
    assert len(feedback) >= 3
    assert not any("FINISH" in a for a in d.observations[0].available_actions)


def test_session_abort_status_propagates_and_sandbox_is_closed(
    task: Task, executor_factory
) -> None:
    class Aborting:
        name, role = "agent", "agent"
        calls = 0

        async def act(self, observation: Observation) -> str:
            self.calls += 1
            if self.calls == 2:
                raise SessionAbort("budget_exceeded", "LLM budget of $1 spent")
            return CODE

    result = run_session_sync(
        config(task, "solo"), {"agent": Aborting()}, None, executor_factory=executor_factory
    )
    assert result.status == "budget_exceeded"
    assert "LLM budget" in (result.error or "")
    assert executor_factory.closed == executor_factory.created and executor_factory.created


def test_participant_exception_becomes_status_error(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    def boom(obs: Observation) -> str:
        if obs.turn == 1:
            raise KeyError("policy bug")
        return CODE

    path = tmp_path / "t.jsonl"
    result = run_session_sync(
        config(task, "D"),
        {
            "agent": FnParticipant("agent", "agent", boom),
            "D": ScriptParticipant("D", "collaborator", []),
        },
        path,
        executor_factory=executor_factory,
    )
    assert result.status == "error"
    assert "agent raised KeyError" in (result.error or "")
    end = read_trace(path)[-1]
    assert end.action_type == "SESSION_END" and end.args["status"] == "error"
    assert executor_factory.closed == executor_factory.created


def test_max_turns_and_timeout_end_with_current_editor_text(task: Task, executor_factory) -> None:
    edit = format_action("EDITOR_UPDATE", text="draft")
    agent = ScriptParticipant("agent", "agent", [edit], then=WAIT)
    result = run_session_sync(
        config(task, "solo", max_turns=5), {"agent": agent}, None, executor_factory=executor_factory
    )
    assert (result.status, result.submitted_hypothesis, result.turns) == ("max_turns", "draft", 5)
    agent = ScriptParticipant("agent", "agent", [edit], then=WAIT)
    result = run_session_sync(
        config(task, "solo", max_turns=1000, max_time=100.0),
        {"agent": agent},
        None,
        executor_factory=executor_factory,
    )
    assert result.status == "timeout" and result.virtual_seconds == 100.0
    assert result.submitted_hypothesis == "draft"


def test_wait_sleeps_until_the_next_landing_then_ticks_when_everyone_waits(
    task: Task, executor_factory
) -> None:
    clock = ClockSpec(sigma=0.0, human={"EXECUTE_CODE": 90.0})
    agent = ScriptParticipant("agent", "agent", [WAIT, WAIT, WAIT, "FINISH()"])
    d = ScriptParticipant("D", "collaborator", [CODE])
    run_session_sync(
        config(task, "D", clock=clock),
        {"agent": agent, "D": d},
        None,
        executor_factory=executor_factory,
    )
    # at 0 nothing is in flight but D is about to decide: the agent sleeps until D's code
    # lands at 90 (no wake-ups every wait_seconds); from 90 on both wait with nothing in
    # flight, so time passes in wait_seconds steps
    assert [o.time for o in agent.observations] == [0.0, 90.0, 100.0, 110.0]
    assert [o.time for o in d.observations] == [0.0, 90.0, 100.0, 110.0]
    assert agent.observations[1].code_cells[0].author == "D"


def test_a_teammate_starting_after_the_wait_wakes_the_waiter_when_it_lands(
    task: Task, executor_factory
) -> None:
    clock = ClockSpec(sigma=0.0, human={"EXECUTE_CODE": 90.0, "INVALID": 15.0})
    agent = ScriptParticipant("agent", "agent", [WAIT, "FINISH()"])
    d = ScriptParticipant("D", "collaborator", ["NOT_AN_ACTION()", CODE])
    result = run_session_sync(
        config(task, "D", clock=clock), {"agent": agent, "D": d}, None,
        executor_factory=executor_factory,
    )
    # D's invalid attempt (0-15) lands nothing; D starts code at 15, after the agent's wait
    assert [o.time for o in d.observations] == [0.0, 15.0, 105.0]
    assert [o.time for o in agent.observations] == [0.0, 105.0]
    assert result.turns == 5


def test_a_member_running_out_of_turns_does_not_strand_a_sleeper(task: Task) -> None:
    clock = ClockSpec(sigma=0.0, human={"INVALID": 15.0})
    agent = ScriptParticipant("agent", "agent", [], then=WAIT)
    d = ScriptParticipant("D", "collaborator", [], then="NOT_AN_ACTION()")
    result = run_session_sync(config(task, "D", clock=clock, max_turns=3),
                              {"agent": agent, "D": d}, None)
    # D's three attempts (0, 15, 30) land nothing; D is retired at 45 and the sleeping agent
    # wakes wait_seconds later, until its own budget ends the session
    assert [o.time for o in d.observations] == [0.0, 15.0, 30.0]
    assert [o.time for o in agent.observations] == [0.0, 55.0, 65.0]
    assert (result.status, result.virtual_seconds) == ("max_turns", 75.0)


def test_the_end_of_the_build_phase_wakes_sleepers(task: Task) -> None:
    clock = ClockSpec(sigma=0.0, wait_seconds=1000.0)
    structure = dataclasses.replace(builtin_structure("memory"), build_max_seconds=50.0)
    agent = ScriptParticipant("agent", "agent", [], then=WAIT)
    d = ScriptParticipant("D", "collaborator", [], then=WAIT)
    cfg = SessionConfig(task=task, team=team_from_dict("D"), structure=structure, clock=clock,
                        max_turns=2)
    run_session_sync(cfg, {"agent": agent, "D": d}, None)
    # both wait from 0 (a tick would be at 1000); the build phase times out at 50
    assert [(o.time, o.phase) for o in agent.observations] == [(0.0, "build"), (50.0, "work")]


def test_sessions_run_concurrently_in_one_event_loop(task: Task, executor_factory) -> None:
    async def both() -> list[str]:
        runs = []
        for seed in (1, 2):
            cfg, parts = busy_team(task, seed)
            runs.append(run_session(cfg, parts, None, executor_factory=executor_factory))
        return [r.status for r in await asyncio.gather(*runs)]

    assert asyncio.run(both()) == ["finished", "finished"]


def test_config_validation(task: Task) -> None:
    with pytest.raises(ValueError, match="agent alone"):
        SessionConfig(task=task, team=team_from_dict("D"), structure=builtin_structure("single"))
    cfg = config(task, "D")
    with pytest.raises(ValueError, match="no participant"):
        run_session_sync(cfg, {"agent": ScriptParticipant("agent", "agent", [])})


def test_a_bounded_wait_wakes_at_its_bound_when_nothing_lands_earlier(task: Task) -> None:
    clock = ClockSpec(sigma=0.0)  # wait_seconds 10: an unbounded wait would tick at 10, 20
    agent = ScriptParticipant("agent", "agent", [WAIT, "FINISH()"])
    d = ScriptParticipant("D", "collaborator", ['WAIT_TEAMMATE_CONTINUE(max_seconds="23.5")'],
                          then=WAIT)
    run_session_sync(config(task, "D", clock=clock), {"agent": agent, "D": d}, None)
    # nothing is in flight; D's bound is the only thing scheduled: D wakes at exactly 23.5
    # (not at a 10-s tick) and the agent, woken by nothing, sleeps on
    assert [o.time for o in d.observations][:2] == [0.0, 23.5]
    assert [o.time for o in agent.observations][:2] == [0.0, 33.5]


def test_a_bounded_wait_wakes_earlier_when_something_lands(task: Task, executor_factory) -> None:
    clock = ClockSpec(sigma=0.0, ai={"EXECUTE_CODE": 7.0})
    agent = ScriptParticipant("agent", "agent", [CODE, WAIT, "FINISH()"])
    d = ScriptParticipant("D", "collaborator", ["WAIT_TEAMMATE_CONTINUE(max_seconds=60)"],
                          then=WAIT)
    run_session_sync(config(task, "D", clock=clock), {"agent": agent, "D": d}, None,
                     executor_factory=executor_factory)
    # the agent's cell lands at 7, before D's bound (60): D wakes then and sees it
    assert [o.time for o in d.observations][:2] == [0.0, 7.0]
    assert d.observations[1].code_cells[0].author == "agent"


@pytest.mark.parametrize("bound", ["0", "-5", "soon", "inf", "nan", ""])
def test_a_bad_wait_bound_is_an_invalid_action_with_its_reason(
    task: Task, tmp_path: Path, bound: str
) -> None:
    clock = ClockSpec(sigma=0.0, human={"INVALID": 15.0})
    agent = ScriptParticipant("agent", "agent", [WAIT, "FINISH()"])
    d = ScriptParticipant("D", "collaborator",
                          [format_action("WAIT_TEAMMATE_CONTINUE", max_seconds=bound)], then=WAIT)
    trace = tmp_path / "trace.jsonl"
    run_session_sync(config(task, "D", clock=clock), {"agent": agent, "D": d}, trace)
    invalid = [e for e in read_trace(trace) if e.action_type == "INVALID"]
    assert len(invalid) == 1 and invalid[0].actor == "D"
    assert "max_seconds must be a positive, finite number" in invalid[0].observation
    assert invalid[0].args["args"] == {"max_seconds": bound}
    assert "max_seconds" in d.observations[1].feedback[-1]
