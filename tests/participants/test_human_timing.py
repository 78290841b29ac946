"""Simulated humans' action durations come from the calibrated timing model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from helpers.executors import InProcessExecutor

from collabsim.participants.human import TIMING_SEQUENCE, HumanModel, _rng
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile, team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks


def test_action_durations_in_the_trace_are_the_timing_models(generated_200: Path,
                                                              tmp_path: Path) -> None:
    task = load_tasks(generated_200).tasks[0]
    team = team_from_dict("D")
    profile = team.collaborators[0]
    participants = {"agent": ScriptedAgent(seed=3),
                    "D": ScriptedCollaborator(profile, seed=3)}
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=3)
    trace = tmp_path / "trace.jsonl"
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    taken = [e["t_end"] - e["t_start"] for e in events
             if e["actor"] == "D" and e["status"] != "approved"]
    assert taken
    # the calibrated model of the packaged profile, sampled as documented
    model = HumanModel.from_params(load_profile("D").params).behaviour
    assert model is not None
    expected = model.timing.sample(TIMING_SEQUENCE, _rng(3, "D", task.task_id, "timing"))
    np.testing.assert_allclose(taken, np.maximum(expected.durations[:len(taken)], 0.5),
                               atol=1e-5)
    # the agent keeps the clock's generic durations
    agent = [e["t_end"] - e["t_start"] for e in events if e["actor"] == "agent"]
    assert not np.allclose(agent[:len(taken)], expected.durations[:len(agent[:len(taken)])])
