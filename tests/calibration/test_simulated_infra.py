"""Sessions that ended with infra_error are not behaviour: fidelity and calibration skip them."""

from __future__ import annotations

import json

import pytest
from helpers.executors import InProcessExecutor

from collabsim.calibration.kolab_sample import CalibrationInputError
from collabsim.calibration.simulated import load_simulated_graphs
from collabsim.participants.scripted import build_scripted
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite


def test_traces_of_infra_error_sessions_are_left_out(tmp_path):
    task = load_tasks(generate_suite(tmp_path / "suite", n_tasks=1, seed=0)).tasks[0]
    team = team_from_dict("D")
    cfg = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0,
                        max_turns=6)
    participants = {m: build_scripted(m, team.role(m), team.profile(m), seed=0)
                    for m in team.members}
    good = tmp_path / "sim" / "a" / "trace.jsonl"
    good.parent.mkdir(parents=True)
    run_session_sync(cfg, participants, good, executor_factory=InProcessExecutor)
    failed = tmp_path / "sim" / "b" / "trace.jsonl"
    failed.parent.mkdir()
    end = {"seq": 1, "t_start": 0.0, "t_end": 0.0, "actor": "env", "actor_type": "env",
           "action_type": "SESSION_END", "args": {"status": "infra_error", "submitted": ""},
           "status": "ok", "observation": "", "refs": []}
    failed.write_text('{"seq": 0}\n' + json.dumps(end) + "\n")  # unreadable if it were read
    assert len(load_simulated_graphs(tmp_path / "sim")) == 1
    good.unlink()
    with pytest.raises(CalibrationInputError, match="infra_error"):
        load_simulated_graphs(tmp_path / "sim")
