"""Simulated humans' action durations come from the calibrated timing model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.core.tags import draft_fingerprint
from collabsim.participants.human import TIMING_SEQUENCE, HumanModel
from collabsim.participants.plan import seeded_rng
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
    participants = {"agent": ScriptedAgent(seed=3, params=CAREFUL_AGENT),
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
    expected = model.timing.sample(TIMING_SEQUENCE, seeded_rng(3, "D", task.task_id, "timing"))
    np.testing.assert_allclose(taken, np.maximum(expected.durations[:len(taken)], 0.5),
                               atol=1e-5)
    # the agent keeps the clock's generic durations
    agent = [e["t_end"] - e["t_start"] for e in events if e["actor"] == "agent"]
    assert not np.allclose(agent[:len(taken)], expected.durations[:len(agent[:len(taken)])])


def test_a_collaborators_reaction_starts_at_its_drawn_think_time(generated_200: Path,
                                                                  tmp_path: Path) -> None:
    # the collaborator reads a draft from when it first sees it in the editor (or its
    # announcement, if that comes first) and waits out its think time with a bounded wait,
    # so its reaction starts when the think time is over - not at once when the draft lands
    # unannounced, and not at the next landing or 10-s wake-up after it (R: D recomputes a
    # draft before it reacts, so its reply comes after that computation instead)
    task = load_tasks(generated_200).tasks[0]
    team = team_from_dict("R")
    model = HumanModel.from_params(load_profile("R").params).behaviour
    assert model is not None
    # the seeds (of 60 tried) whose session has the case: an announced draft R replies to
    # when its think time is over, R not busy with its own action then (in most sessions R
    # agrees silently, checks before the announcement, or is still at work)
    for seed in (2, 25, 53):
        participants = {"agent": ScriptedAgent(seed=seed, params=CAREFUL_AGENT),
                        "R": ScriptedCollaborator(team.collaborators[0], seed=seed)}
        config = SessionConfig(task=task, team=team, structure=builtin_structure("default"),
                               seed=seed)
        trace = tmp_path / f"trace{seed}.jsonl"
        result = run_session_sync(config, participants, trace,
                                  executor_factory=InProcessExecutor)
        assert result.status == "finished", result.error
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        said = [e for e in events if e["action_type"] == "SEND_TEAMMATE_MESSAGE"]
        announce = next((e for e in said if e["actor"] == "agent" and "[draft=" in
                         e["args"]["message"]), None)
        assert announce is not None, seed
        fp = announce["args"]["message"].split("[draft=")[1].split("]")[0]
        reply = [e for e in said if e["actor"] == "R" and f"draft={fp}" in e["args"]["message"]]
        assert reply, seed
        edit = next(e for e in events if e["actor"] == "agent"
                    and e["action_type"] == "EDITOR_UPDATE"
                    and draft_fingerprint(e["args"]["text"]) == fp)
        # R sees the draft at the editor's landing, or when its own action then in flight ends
        seen = max([edit["t_end"]] + [e["t_end"] for e in events if e["actor"] == "R"
                                      and e["t_start"] < edit["t_end"] < e["t_end"]])
        think = model.timing.sample(TIMING_SEQUENCE, seeded_rng(seed, "R", task.task_id,
                                                          "timing")).think[0]
        ready = min(seen, announce["t_end"]) + think
        busy = max(e["t_end"] for e in events if e["actor"] == "R"
                   and e["t_start"] < reply[0]["t_start"])
        assert busy < ready, seed
        assert ready <= reply[0]["t_start"] <= ready + 0.0011, (seed, ready, reply[0])
