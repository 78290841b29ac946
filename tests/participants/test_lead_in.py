"""A simulated human may open the session alone (the calibrated lead-in): it says so, looks at
the data, then asks the agent to start; the scripted agent leaves it the opening, so the
session's workflow graph has a solo lead-in as the real Kolab sessions do."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT, ScriptParticipant

from collabsim.core.actions import format_action
from collabsim.graphs.from_trace import graph_from_trace_file
from collabsim.metrics.dynamics import solo_lead_in
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import Task

PROFILES = Path(__file__).parents[2] / "collabsim" / "participants" / "profiles"


def _params(probability: float, actions_mean: float) -> dict[str, Any]:
    behaviour = copy.deepcopy(yaml.safe_load((PROFILES / "behaviour.yaml").read_text())["behaviour"])
    behaviour["lead_in"]["probability"]["value"] = probability
    behaviour["lead_in"]["actions_mean"]["value"] = actions_mean
    return {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": behaviour}


@pytest.fixture(scope="module")
def task(generated_200: Path) -> Task:
    return load_tasks(generated_200).tasks[0]


def _run(task: Task, params: dict[str, Any], lead_patience: float, trace: Path
         ) -> list[dict[str, Any]]:
    team = team_from_dict("D")
    d = ScriptedCollaborator(team.collaborators[0], seed=0, params=params)
    agent = ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "deference": 0.5,
                                          "lead_patience_seconds": lead_patience})
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)
    result = run_session_sync(config, {"agent": agent, "D": d}, trace,
                              executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    return [json.loads(line) for line in trace.read_text().splitlines()]


def _first(events: list[dict[str, Any]], actor: str) -> dict[str, Any]:
    return next(e for e in events if e["actor"] == actor and e["actor_type"] != "env")


def test_a_leading_human_opens_alone_and_the_agent_starts_on_its_go(
        task: Task, tmp_path: Path) -> None:
    # mean 6: this seed draws K = 11 (shortened to 3: say so, one look, the go)
    events = _run(task, _params(1.0, 6.0), 1830.0, tmp_path / "lead.jsonl")
    d = [e for e in events if e["actor"] == "D"]
    said = [e["args"].get("message", "") for e in d if e["action_type"] == "SEND_TEAMMATE_MESSAGE"]
    assert "[lead]" in said[0] and "[kickoff]" in said[1]  # say so, look, ask the agent
    kickoff = next(e for e in d if "[kickoff]" in e["args"].get("message", ""))
    assert d[1]["action_type"] == "EXECUTE_CODE" and d[1]["seq"] < kickoff["seq"]
    agent = _first(events, "agent")
    assert agent["t_start"] >= kickoff["t_end"]  # the agent waited for the go
    assert solo_lead_in(graph_from_trace_file(tmp_path / "lead.jsonl")) > 0


def test_without_a_lead_in_nobody_waits_for_a_go(task: Task, tmp_path: Path) -> None:
    events = _run(task, _params(0.0, 2.0), 1830.0, tmp_path / "none.jsonl")
    messages = [e["args"].get("message", "") for e in events
                if e["action_type"] == "SEND_TEAMMATE_MESSAGE"]
    assert not any("[lead]" in m or "[kickoff]" in m for m in messages)
    # the agent only leaves its teammate the first move: it starts once D's first action landed
    agent, d = _first(events, "agent"), _first(events, "D")
    assert agent["t_start"] <= d["t_end"] + 10.0
    # and an agent that does not wait at all (lead_patience_seconds 0) starts at once
    events = _run(task, _params(1.0, 6.0), 0.0, tmp_path / "eager.jsonl")
    assert _first(events, "agent")["t_start"] == 0.0


def test_the_agent_leaves_a_slow_teammate_the_first_move(task: Task, tmp_path: Path) -> None:
    # In every Kolab session a human acts first: a teammate whose first action comes only
    # after the agent's patience for checks (120 s) still gets the first move, up to
    # lead_patience_seconds; with a shorter lead patience the agent starts alone.
    team = team_from_dict("D")
    slow = ScriptParticipant("D", "collaborator", [
        "WAIT_TEAMMATE_CONTINUE(max_seconds=400)",
        format_action("SEND_TEAMMATE_MESSAGE", message="I had a first look at the data."),
    ])
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)

    def first_agent_start(lead_patience: float, name: str) -> tuple[float, float]:
        slow.observations.clear()
        agent = ScriptedAgent(seed=0, params={**CAREFUL_AGENT,
                                              "lead_patience_seconds": lead_patience})
        run_session_sync(config, {"agent": agent, "D": slow}, tmp_path / name,
                         executor_factory=InProcessExecutor)
        events = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        return _first(events, "agent")["t_start"], _first(events, "D")["t_end"]

    agent_start, d_end = first_agent_start(1830.0, "slow.jsonl")
    assert agent_start >= d_end > 400
    agent_start, _ = first_agent_start(200.0, "short.jsonl")
    assert agent_start == pytest.approx(200.0, abs=0.01)
