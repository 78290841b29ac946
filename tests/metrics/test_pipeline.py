"""The metrics pipeline: members from the team spec / trace, outcome, one row per session."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from collabsim.core.events import TraceEvent
from collabsim.core.records import Profile
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.metrics.pipeline import outcome_score, session_members, session_metrics
from collabsim.participants.team import TeamSpec
from collabsim.tasks.discoverybench import load_task

CLAIM = "Around 2300 BCE, the number of daggers began to increase for the first time."


def _events(members: list[str] | None) -> list[TraceEvent]:
    args = {"members": members} if members is not None else {}
    return [
        TraceEvent(0, 0, 0, "env", "env", "SESSION_START", args),
        TraceEvent(1, 0, 1, "agent", "ai", "EXECUTE_CODE", {"code": "print(1)"}, "ok", "1"),
        TraceEvent(2, 1, 2, "D", "human", "SEND_TEAMMATE_MESSAGE", {"message": "Check the diff."}),
        TraceEvent(3, 2, 3, "agent", "ai", "EDITOR_UPDATE", {"text": CLAIM}),
        TraceEvent(4, 3, 3, "agent", "ai", "FINISH"),
        TraceEvent(5, 3, 3, "env", "env", "SESSION_END", {"status": "finished"}),
    ]


def _result(team: str) -> dict[str, object]:
    return {"task_id": "archaeology/1/0", "team": team, "structure": "default", "seed": 0,
            "policy": "scripted", "status": "finished", "submitted_hypothesis": CLAIM}


def test_members_come_from_the_trace_not_the_team_label() -> None:
    # R is a member (the trace's SESSION_START says so) although it never acted
    assert session_members(_events(["agent", "D", "R"])) == ["agent", "D", "R"]
    # without a recorded member list, only acting team members count
    assert session_members(_events(None)) == ["agent", "D"]
    # env is never a member
    assert "env" not in session_members(_events(["agent"]))


def test_team_spec_overrides_the_trace() -> None:
    team = TeamSpec(collaborators=(Profile("R", "researcher", "wording"),))
    assert session_members(_events(["agent", "D"]), team) == ["agent", "R", "D"]


def test_silent_member_lowers_initiative_entropy() -> None:
    # initiative: agent 2 (code, edit), D 1 (message); entropy over |U| members
    p = [2 / 3, 1 / 3]
    h = -sum(x * math.log(x) for x in p)
    row2 = session_metrics(_result("whatever"), _events(["agent", "D"]))
    row3 = session_metrics(_result("whatever"), _events(["agent", "D", "R"]))
    assert row2["H_init_norm"] == pytest.approx(h / math.log(2))
    assert row3["H_init_norm"] == pytest.approx(h / math.log(3))


def test_outcome_without_gold_is_nan(discoverybench_root: Path) -> None:
    task = load_task(discoverybench_root, "archaeology/1/0")
    score = outcome_score(CLAIM, task, RuleJudge())
    assert score is not None and score.performance == 1.0
    assert outcome_score(CLAIM, None) is None
    row = session_metrics(_result("D"), _events(["agent", "D"]), None)
    assert math.isnan(row["Performance"]) and row["judge"] is None
    assert math.isnan(row["C_wf"]) and math.isnan(row["A_profile"])
    assert (row["W_human"], row["W_total"], row["M_team"]) == (0, 3, 1)


def test_work_phase_initiative_is_a_column_beside_all_events() -> None:
    build = [
        TraceEvent(1, 0, 0, "env", "env", "PHASE_START", {"phase": "build"}),
        TraceEvent(2, 0, 0, "D", "human", "MEMORY_ADD", {"section": "plan", "text": "bins"}),
        TraceEvent(3, 0, 0, "D", "human", "MEMORY_ADD", {"section": "criteria", "text": "raw"}),
        TraceEvent(4, 0, 0, "env", "env", "PHASE_START", {"phase": "work"}),
    ]
    plain = _events(["agent", "D"])
    scaffolded = [plain[0], *build, *(TraceEvent(e.seq + 4, e.t_start, e.t_end, e.actor,
                                                 e.actor_type, e.action_type, e.args)
                                      for e in plain[1:])]
    row = session_metrics(_result("D"), scaffolded)
    # work phase: agent 2 (code, edit), D 1 (message); all events: D's two entries too
    assert row["H_init_work"] == pytest.approx(_entropy([2 / 3, 1 / 3]))
    assert row["H_init_norm"] == pytest.approx(_entropy([2 / 5, 3 / 5]))
    # no build phase: the two columns agree
    same = session_metrics(_result("D"), plain)
    assert same["H_init_work"] == same["H_init_norm"] == pytest.approx(_entropy([2 / 3, 1 / 3]))
    # the study's measure counts the message only: D holds all initiative
    said = session_metrics(_result("D"), scaffolded, initiative_counted="messages")
    assert said["H_init_norm"] == said["H_init_work"] == 0.0


def _entropy(p: list[float]) -> float:
    return -sum(x * math.log(x) for x in p) / math.log(len(p))
