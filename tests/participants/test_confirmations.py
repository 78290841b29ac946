"""What a collaborator says when it takes a draft without objecting must be true: it checks
every draft before reacting, confirms only a draft its check agrees with, and when it adopts
one its check disagrees with (over-reliance) it goes along without claiming agreement (an LLM
agent reading the chat would trust the claim)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.participants.analysis import MistakeModel
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks

PROFILES = Path(__file__).parents[2] / "collabsim" / "participants" / "profiles"


def _chatty(label: str) -> dict[str, Any]:
    """Error-free D params whose every reaction is ``label`` and who always says it agrees."""
    behaviour = copy.deepcopy(yaml.safe_load((PROFILES / "behaviour.yaml").read_text())["behaviour"])
    for key in ("adopt", "modify", "reject"):
        behaviour["reactions"][key]["value"] = 1.0 if key == label else 0.0
    return {"error_in_area": 0.0, "error_outside": 0.0, "message_propensity": 1.0,
            "confirm_propensity": 1.0, "behaviour": behaviour}


def _d_messages(task_root: Path, label: str, agent_mistakes: MistakeModel,
                trace: Path) -> list[str]:
    task = load_tasks(task_root).tasks[0]  # a peak query: peak_vs_plateau changes the year
    team = team_from_dict("D")
    participants: dict[str, Any] = {
        "agent": ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "patience_seconds": 600},
                               mistakes=agent_mistakes),
        "D": ScriptedCollaborator(team.collaborators[0], seed=0, params=_chatty(label)),
    }
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"),
                           seed=0)
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [str(e["args"].get("message", "")) for e in events
            if e["actor"] == "D" and e["action_type"] == "SEND_TEAMMATE_MESSAGE"]


def test_an_adopting_collaborator_claims_no_agreement_with_a_draft_its_check_disputes(
        generated_200: Path, tmp_path: Path) -> None:
    said = _d_messages(generated_200, "adopt", MistakeModel(peak_vs_plateau=1.0),
                       tmp_path / "adopt.jsonl")
    assert any("Fine, go ahead with your draft." in m for m in said)  # it goes along...
    # ...raising nothing, claiming neither agreement nor a recomputation that agrees
    assert not any("[issue" in m for m in said)
    assert not any("recomputed" in m or "same century" in m or "Looks good" in m
                   or "looks right" in m for m in said)


def test_an_adopting_collaborator_that_checked_a_right_draft_says_what_it_checked(
        generated_200: Path, tmp_path: Path) -> None:
    said = _d_messages(generated_200, "adopt", MistakeModel(), tmp_path / "adopt-right.jsonl")
    assert any("I recomputed it on" in m and "same century" in m for m in said)
    assert not any("go ahead with your draft" in m for m in said)


def test_a_reject_of_a_right_draft_replaces_it_without_claiming_an_issue(
        generated_200: Path, tmp_path: Path) -> None:
    # a drawn reject on a right draft: the check finds no issue, and the collaborator does
    # not use the agent's text (the Kolab label) - it writes its own version, with the
    # figures of its own recomputation, and claims no issue it did not find
    said = _d_messages(generated_200, "reject", MistakeModel(), tmp_path / "checked.jsonl")
    replaced = [m for m in said if m.startswith("I will not use the draft")]
    assert replaced and "value" in replaced[0]
    assert not any("[issue" in m or "I found" in m or "Looks good to me." in m for m in said)
