"""End to end: scripted teams on a small statistical task (issue 21, simulated humans).

A table where the asked predictor's effect is all confounding: ``exam_score`` depends on
``prior_grade`` only, and ``hours_studied`` follows ``prior_grade``. Controlled for prior
grade (as the query asks), hours studied has no significant effect; without the control it
looks strongly positive. An agent that omits the control (``omitted_control``) states the
confounded effect alone; a D collaborator who recomputes with the control objects with the
fix ``controls:prior_grade`` and the team's final plan includes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.core.knowledge import BY_PROFILE, Fact
from collabsim.domain.stats.cell import STATS_MARK, plan_of_cell
from collabsim.participants.analysis import MistakeModel
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task

QUERY = ("How does the number of hours studied affect the exam score, controlling for the "
         "prior grade?")
# error-free collaborators that always check (no reaction model), as in
# test_scripted_sessions: the checking mechanics, not the behavioural model's own draws
CAREFUL: dict[str, Any] = {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": None}


def confounded_task(root: Path, facts: tuple[Fact, ...] = ()) -> Task:
    """The confounded table and its query (see module docstring)."""
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    prior = rng.normal(0.0, 1.0, 300)
    hours = prior + rng.normal(0.0, 0.5, 300)
    score = 2.0 * prior + rng.normal(0.0, 1.0, 300)
    path = root / "students.csv"
    lines = ["hours_studied,exam_score,prior_grade"] + [
        f"{h:.4f},{s:.4f},{p:.4f}" for h, s, p in zip(hours, score, prior, strict=True)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    columns = (ColumnInfo("hours_studied", "Weekly hours studied"),
               ColumnInfo("exam_score", "Final exam score"),
               ColumnInfo("prior_grade", "Grade average of the previous year"))
    return Task("students/0/0", "students", 0, 0, QUERY, "relationship", "education", "", "",
                (DatasetInfo("students.csv", "Students and their exam", columns, path),),
                "discoverybench-synth", facts=facts)


def _agent(mistakes: dict[str, float]) -> ScriptedAgent:
    return ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "patience_seconds": 600.0},
                         mistakes=MistakeModel(**mistakes))


@dataclass(frozen=True)
class Played:
    """A session's submitted hypothesis and the actions of its trace."""

    status: str
    error: str | None
    submitted_hypothesis: str
    events: tuple[dict[str, Any], ...]

    def said(self, who: str) -> list[str]:
        return [e["args"]["message"] for e in self.events
                if e["actor"] == who and e["action_type"] == "SEND_TEAMMATE_MESSAGE"]


def _play(config: SessionConfig, participants: dict[str, Any], trace: Path) -> Played:
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    events = tuple(json.loads(line) for line in trace.read_text().splitlines())
    return Played(result.status, result.error, result.submitted_hypothesis, events)


def _session(task: Task, team: str, mistakes: dict[str, float],
             collaborator: dict[str, Any] | None = None) -> Played:
    participants: dict[str, Any] = {"agent": _agent(mistakes)}
    if team == "single":
        config = SessionConfig(task=task, structure=builtin_structure("single"), seed=0)
    else:
        roster = team_from_dict(team)
        for profile in roster.collaborators:
            participants[profile.key] = ScriptedCollaborator(
                profile, seed=0, params=CAREFUL if collaborator is None else collaborator)
        config = SessionConfig(task=task, team=roster, structure=builtin_structure("default"),
                               seed=0)
    trace = task.datasets[0].path.parent / f"{team}-{'-'.join(sorted(mistakes))}.jsonl"
    return _play(config, participants, trace)


def _final_plan(played: Played):  # noqa: ANN202
    """The plan of the agent's last statistical cell (what the submitted draft rests on)."""
    cells = [e["args"]["code"] for e in played.events if e["actor"] == "agent"
             and e["action_type"] == "EXECUTE_CODE"
             and e["args"]["code"].startswith(STATS_MARK)]
    assert cells, "the agent ran no statistical cell"
    plan = plan_of_cell(cells[-1])
    assert plan is not None
    return plan


def test_d_catches_an_omitted_control_and_the_final_plan_includes_it(tmp_path: Path) -> None:
    task = confounded_task(tmp_path / "students")
    alone = _session(task, "single", {"omitted_control": 1.0})
    assert alone.status == "finished", alone.error
    assert _final_plan(alone).controls == ()  # the agent's mistake, uncorrected
    team = _session(task, "D", {"omitted_control": 1.0})
    assert team.status == "finished", team.error
    assert _final_plan(team).controls == ("prior_grade",)
    assert any("[issue kind=omitted_control fix=controls:prior_grade]" in t
               for t in team.said("D"))
    # the submitted hypothesis states the controlled (non-significant) effect
    assert "no significant" in team.submitted_hypothesis
    assert "no significant" not in alone.submitted_hypothesis
    # without the mistake the agent plans the control itself and D has nothing to object
    right = _session(task, "D", {})
    assert _final_plan(right).controls == ("prior_grade",)
    assert not any("[issue kind=" in t for t in right.said("D"))


def test_r_corrects_a_misread_direction(tmp_path: Path) -> None:
    """The agent words its (correct) result the wrong way round; R, checking the stated
    direction against the shown result, objects, and the submitted text is corrected."""
    task = confounded_task(tmp_path / "students")
    task = Task(task.task_id, task.dataset, 0, 0, "How is the number of hours studied "
                "associated with the exam score?", "relationship", "education", "", "",
                task.datasets, task.source)
    alone = _session(task, "single", {"direction_misread": 1.0})
    assert "negatively" in alone.submitted_hypothesis
    team = _session(task, "R", {"direction_misread": 1.0})
    assert team.status == "finished", team.error
    assert any("[issue kind=direction_misread" in t for t in team.said("R"))
    assert "positively" in team.submitted_hypothesis


@pytest.mark.parametrize("error", [0.0, 1.0])
def test_a_held_control_fact_is_told_when_asked(tmp_path: Path, error: float) -> None:
    """Under by_profile D holds the convention fact naming the control; the agent, whose
    query names none, asks D (ask_propensity 1) and applies the answer - right or, with D's
    error rate 1 for its area, wrong (the last control left out)."""
    fact = Fact("convention", "controls", "In this school the exam score is always analysed "
                "controlling for the prior grade.", (("controls", "prior_grade"),))
    task = confounded_task(tmp_path / "students", (fact,))
    task = Task(task.task_id, task.dataset, 0, 0, "Do hours studied affect the exam score, "
                "controlling for the relevant background?",
                "relationship", "education", "", "", task.datasets, task.source,
                facts=(fact,))
    agent_params = {**CAREFUL_AGENT, "patience_seconds": 600.0, "ask_propensity": 1.0}
    participants: dict[str, Any] = {"agent": ScriptedAgent(seed=0, params=agent_params)}
    roster = team_from_dict("D")
    participants["D"] = ScriptedCollaborator(
        roster.collaborators[0], seed=0,
        params={**CAREFUL, "error_in_area": error, "recompute_claims": False,
                "review_code": False})
    config = SessionConfig(task=task, team=roster, structure=builtin_structure("default"),
                           seed=0, knowledge=BY_PROFILE)
    result = _play(config, participants, tmp_path / "asked.jsonl")
    assert result.status == "finished", result.error
    assert any("[ask topic=controls to=D]" in t for t in result.said("agent"))
    assert any("[fact topic=controls" in t for t in result.said("D"))
    expected = ("prior_grade",) if error == 0.0 else ()
    assert _final_plan(result).controls == expected


def test_d_gating_code_rejects_a_stats_cell_that_leaves_out_its_control(tmp_path: Path
                                                                        ) -> None:
    """D owns EXECUTE_CODE: the agent's cell without the control is rejected with the fix,
    the agent applies it, and the cell it runs next (approved) has the control."""
    from collabsim.domain.stats.cell import stats_cell
    from collabsim.participants.team import load_profile

    task = confounded_task(tmp_path / "students")
    d = ScriptedCollaborator(load_profile("D"), seed=0, params=CAREFUL)
    own = d.reading(task.brief("D")).plan
    assert own.controls == ("prior_grade",)
    wrong = stats_cell(own.with_fix({"controls": "none"}))
    decision = d._decide_code("g1", wrong, own, task.brief("D"))
    assert decision.startswith("REJECT(") and "fix=controls:prior_grade" in decision
    assert d._decide_code("g2", stats_cell(own), own, task.brief("D")).startswith("APPROVE(")
    played = _gated(task)
    assert played.status == "finished", played.error
    assert _final_plan(played).controls == ("prior_grade",)
    assert any(e["action_type"] == "REJECT" and e["actor"] == "D" for e in played.events)


def _gated(task: Task) -> Played:
    roster = team_from_dict("D")
    participants: dict[str, Any] = {"agent": _agent({"omitted_control": 1.0})}
    participants["D"] = ScriptedCollaborator(roster.collaborators[0], seed=0, params=CAREFUL)
    structure = builtin_structure("preassigned_gates")
    config = SessionConfig(task=task, team=roster, structure=structure, seed=0)
    return _play(config, participants, task.datasets[0].path.parent / "gated.jsonl")
