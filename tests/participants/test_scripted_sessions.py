"""End to end: scripted teams in the session engine on generated tasks."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.core.coordination import CoordinationSpec
from collabsim.participants.analysis import MistakeModel
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import Task

_AROUND = re.compile(r"\b[Aa]round (\d{1,4}) BCE\b")


def submitted_year(text: str) -> int | None:
    """The claimed year of a submitted hypothesis (our own parsing, not the judge)."""
    match = _AROUND.search(text)
    return -int(match.group(1)) if match else None


def planted_year(task: Task) -> int:
    assert task.reference_workflow_path is not None
    return json.loads(task.reference_workflow_path.read_text())["completion"]["years"][0]


@pytest.fixture(scope="module")
def tasks200(generated_200: Path) -> tuple[Task, ...]:
    return load_tasks(generated_200).tasks


def _solo(task: Task, *, real_sandbox: bool = False, seed: int = 0):  # noqa: ANN202
    config = SessionConfig(task=task, structure=builtin_structure("single"), seed=seed)
    factory = None if real_sandbox else InProcessExecutor
    return run_session_sync(config, {"agent": ScriptedAgent(seed=seed, params=CAREFUL_AGENT)},
                            executor_factory=factory)


@pytest.mark.slow
def test_single_agent_on_200_generated_tasks(tasks200: tuple[Task, ...]) -> None:
    """Acceptance: mistakes off, real sandbox, >= 95% of 200 tasks match the planted event."""
    matches = 0
    for task in tasks200:
        result = _solo(task, real_sandbox=True)
        assert result.status == "finished", (task.task_id, result.error)
        matches += submitted_year(result.submitted_hypothesis) == planted_year(task)
    rate = matches / len(tasks200)
    print(f"end-to-end single scripted agent match rate on 200 tasks: {rate:.3f}")
    assert rate >= 0.95


def test_single_agent_with_the_real_sandbox(tasks200: tuple[Task, ...], tmp_path: Path) -> None:
    for task in tasks200[:9]:
        result = _solo(task, real_sandbox=True)
        assert result.status == "finished", result.error
        assert submitted_year(result.submitted_hypothesis) == planted_year(task)
        assert result.counts["agent"] == {"EDITOR_UPDATE": 1, "EXECUTE_CODE": 2, "FINISH": 1}


# Error-free collaborators that always check (no reaction model): the checking mechanics
# without the behavioural model's own mistakes and free-riding. The agent's patience is long
# enough for every check to come (a slow check that lands after the agent's patience is not
# waited for: patience ends on time).
CAREFUL: dict[str, Any] = {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": None}
PATIENT = 600.0


# The checking mechanics without the coordination costs of a team (tested on their own in
# tests/participants/test_coordination.py)
NO_COSTS = CoordinationSpec.without_costs()


def _team_session(task: Task, structure: str, mistakes: dict[str, float],
                  trace: Path | None = None, collaborator: dict[str, Any] | None = None,
                  coordination: CoordinationSpec = NO_COSTS):  # noqa: ANN202
    team = team_from_dict("DR")
    participants: dict[str, Any] = {"agent": ScriptedAgent(
        seed=0, params={**CAREFUL_AGENT, "patience_seconds": PATIENT}, mistakes=MistakeModel(**mistakes))}
    for profile in team.collaborators:
        participants[profile.key] = ScriptedCollaborator(
            profile, seed=0, params=CAREFUL if collaborator is None else collaborator)
    config = SessionConfig(task=task, team=team, structure=builtin_structure(structure),
                           seed=0, coordination=coordination)
    return run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)


@pytest.mark.parametrize("kind", ["wrong_column_variant", "wrong_ordinal",
                                  "peak_vs_plateau", "wrong_window"])
def test_teammates_catch_forced_mistakes(tasks200: tuple[Task, ...], kind: str) -> None:
    solo_wrong = team_right = ignored_wrong = gated_right = 0
    for task in tasks200[:9]:  # one task of every category
        agent = ScriptedAgent(seed=0, params=CAREFUL_AGENT, mistakes=MistakeModel(**{kind: 1.0}))
        ctx = agent.context(task.brief())
        if ctx.mistaken_plan == ctx.plan:
            continue
        truth = planted_year(task)
        alone = run_session_sync(
            SessionConfig(task=task, structure=builtin_structure("single")), {"agent": agent},
            executor_factory=InProcessExecutor)
        solo_wrong += submitted_year(alone.submitted_hypothesis) != truth
        team = _team_session(task, "default", {kind: 1.0})
        assert team.status == "finished", team.error
        team_right += submitted_year(team.submitted_hypothesis) == truth
        ignoring = _team_session(task, "default", {kind: 1.0, "ignore_teammate": 1.0})
        ignored_wrong += submitted_year(ignoring.submitted_hypothesis) != truth
        gated = _team_session(task, "preassigned_gates", {kind: 1.0, "ignore_teammate": 1.0})
        assert gated.status == "finished", gated.error
        gated_right += submitted_year(gated.submitted_hypothesis) == truth
    assert solo_wrong >= 1
    assert solo_wrong == team_right == ignored_wrong == gated_right


def test_scaffolded_team_builds_memory_and_chooses_gates(tasks200: tuple[Task, ...],
                                                         tmp_path: Path) -> None:
    task = tasks200[1]
    trace = tmp_path / "trace.jsonl"
    fixed = replace(NO_COSTS, chosen_owners=False)  # the agent's configured proposal
    result = _team_session(task, "scaffolded", {}, trace, coordination=fixed)
    assert result.status == "finished", result.error
    assert result.gates == {"EDITOR_UPDATE": "R", "FINISH": "D"}
    assert submitted_year(result.submitted_hypothesis) == planted_year(task)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    kinds = {(e["actor"], e["action_type"]) for e in events}
    assert {("agent", "MEMORY_AGREE"), ("D", "MEMORY_AGREE"), ("R", "MEMORY_AGREE"),
            ("D", "EXECUTE_CODE"), ("R", "APPROVE"), ("D", "APPROVE")} <= kinds
    assert result.counts["agent"]["SEND_TEAMMATE_MESSAGE"] >= 1
