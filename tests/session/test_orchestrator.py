"""The steppable orchestrator: start / next_turn / submit, and run_session as a loop over it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.core.actions import format_action
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.observations import Turn
from collabsim.session.orchestrator import Orchestrator
from collabsim.session.structures import builtin_structure
from collabsim.tasks.model import Task

CODE = format_action("EXECUTE_CODE", code="print(6 * 7)")


def scripted_team(task: Task, structure: str, seed: int) -> tuple[SessionConfig, dict]:
    team = team_from_dict("DR")
    participants = {"agent": build_scripted("agent", "agent", None, seed=seed,
                                             params=CAREFUL_AGENT)}
    for profile in team.collaborators:
        participants[profile.key] = build_scripted(
            profile.key, "collaborator", profile, seed=seed
        )
    cfg = SessionConfig(task=task, team=team, structure=builtin_structure(structure), seed=seed)
    return cfg, participants


@pytest.mark.parametrize("structure", ["default", "preassigned_gates", "scaffolded"])
def test_stepping_by_hand_writes_the_same_trace_as_run_session(
    task: Task, tmp_path: Path, structure: str
) -> None:
    cfg, participants = scripted_team(task, structure, seed=3)
    looped = tmp_path / "run_session.jsonl"
    result = run_session_sync(cfg, participants, looped, executor_factory=InProcessExecutor)

    cfg, participants = scripted_team(task, structure, seed=3)
    stepped = tmp_path / "stepped.jsonl"
    orch = Orchestrator(cfg, stepped, executor_factory=InProcessExecutor)
    orch.use_participant_durations(participants)
    orch.start()
    members = []
    while (turn := orch.next_turn()) is not None:
        members.append(turn.member)
        orch.submit(asyncio.run(participants[turn.member].act(turn.observation)))
    orch.close()

    assert result.status == orch.state.status
    assert stepped.read_bytes() == looped.read_bytes()
    assert len(members) == result.turns and set(members) == {"agent", "D", "R"}


def test_next_turn_names_the_earliest_member_and_repeats_until_submitted(task: Task) -> None:
    cfg = SessionConfig(task=task, team=team_from_dict("D"))
    orch = Orchestrator(cfg, executor_factory=InProcessExecutor)
    with pytest.raises(RuntimeError, match="start"):
        orch.next_turn()
    orch.start()
    first = orch.next_turn()
    assert isinstance(first, Turn)
    assert (first.member, first.time, first.observation.me) == ("agent", 0.0, "agent")
    assert orch.next_turn() is first
    orch.submit(CODE)
    second = orch.next_turn()
    assert second is not None and (second.member, second.time) == ("D", 0.0)
    orch.submit("WAIT_TEAMMATE_CONTINUE()")
    # The agent's cell lands at its t_end; the waiting D wakes then too (ties: agent first).
    third = orch.next_turn()
    assert third is not None and third.member == "agent" and third.time > 0.0
    assert [c.output for c in third.observation.code_cells] == ["42"]
    orch.submit("WAIT_TEAMMATE_CONTINUE()")
    fourth = orch.next_turn()
    assert fourth is not None and (fourth.member, fourth.time) == ("D", third.time)
    with pytest.raises(RuntimeError, match="submit"):
        Orchestrator(cfg).submit("FINISH()")
    orch.close()


def test_finish_ends_the_loop_and_close_logs_the_end_once(task: Task, tmp_path: Path) -> None:
    cfg = SessionConfig(task=task, structure=builtin_structure("single"))
    trace = tmp_path / "t.jsonl"
    orch = Orchestrator(cfg, trace, executor_factory=InProcessExecutor)
    orch.start()
    turn = orch.next_turn()
    assert turn is not None
    orch.submit(format_action("EDITOR_UPDATE", text="Dagger rises."))
    orch.next_turn()
    orch.submit("FINISH()")
    assert orch.next_turn() is None and orch.done
    orch.close()
    orch.close()
    lines = trace.read_text().splitlines()
    assert sum('"SESSION_END"' in line for line in lines) == 1
    assert (orch.state.status, orch.state.submitted) == ("finished", "Dagger rises.")


def test_abort_ends_at_the_pending_turn_with_the_given_status(task: Task) -> None:
    cfg = SessionConfig(task=task, team=team_from_dict("D"))
    orch = Orchestrator(cfg, executor_factory=InProcessExecutor)
    orch.start()
    orch.submit(CODE) if orch.next_turn() else None
    turn = orch.next_turn()
    assert turn is not None
    orch.abort("budget_exceeded", "D: out of money")
    assert orch.next_turn() is None
    assert (orch.state.status, orch.state.end_time, orch.state.error) == (
        "budget_exceeded",
        turn.time,
        "D: out of money",
    )
    orch.close()


@pytest.mark.parametrize("member_seat", ["agent", "D"])
def test_histories_reuse_entries_but_equal_a_fresh_scan_at_every_turn(
    task: Task, member_seat: str
) -> None:
    from collabsim.session.workspace import visible_history

    cfg, participants = scripted_team(task, "scaffolded", seed=1)
    orch = Orchestrator(cfg, executor_factory=InProcessExecutor)
    orch.start()
    shown: dict[int, object] = {}  # seq -> the entry this seat was shown first
    actors: set[str] = set()
    reused = 0
    while (turn := orch.next_turn()) is not None:
        s = orch.state
        history = turn.observation.history
        fresh = visible_history(s.events, turn.member, turn.member == s.team.agent, turn.time,
                                requests=s.ws.requests)
        assert history == fresh
        if turn.member == member_seat:
            # only actions that have ended by now, each shown once, in trace order
            assert all(h.time <= turn.time for h in history)
            assert [h.seq for h in history] == sorted({h.seq for h in history})
            for h in history:
                if h.seq in shown:
                    assert h is shown[h.seq]  # made once, reused, not rebuilt per turn
                    reused += 1
                shown[h.seq] = h
            actors |= {h.actor for h in history}
        orch.submit(participants[turn.member].decide(turn.observation))
    orch.close()
    assert reused > 0
    # the agent sees the team-level history, a collaborator only its own actions
    assert actors == ({"agent", "D", "R"} if member_seat == "agent" else {"D"})


@pytest.mark.parametrize("structure", ["preassigned_gates", "scaffolded"])
def test_observations_say_when_the_draft_was_first_seen_and_what_a_decision_decided(
    task: Task, structure: str
) -> None:
    """What the scripted policies read instead of remembering it: ``editor_seen`` is when
    this member first saw the editor's text in the work phase (a member busy when it landed
    sees it when its action ends), and an APPROVE / REJECT entry names the action type of
    the request it decided."""
    cfg, participants = scripted_team(task, structure, seed=1)
    orch = Orchestrator(cfg, executor_factory=InProcessExecutor)
    orch.start()
    first_seen: dict[tuple[str, str], float] = {}
    seen_later = decisions = 0
    while (turn := orch.next_turn()) is not None:
        obs = turn.observation
        text = obs.editor_text.strip()
        if obs.phase == "work" and text:
            expected = first_seen.setdefault((turn.member, text), turn.time)
            assert obs.editor_seen == expected
            seen_later += obs.editor_seen < turn.time
        else:
            assert obs.editor_seen is None
        requested = {str(e.args.get("request_id")): e.action_type for e in orch.state.events
                     if e.status == "pending"}
        for entry in obs.history:
            if entry.action_type in ("APPROVE", "REJECT"):
                decisions += 1
                assert entry.request_type == requested[entry.summary.split()[0]]
            else:
                assert entry.request_type is None
        orch.submit(participants[turn.member].decide(obs))
    orch.close()
    assert seen_later > 0 and decisions > 0
