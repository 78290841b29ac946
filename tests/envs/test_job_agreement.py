"""The gym and a job with the same settings run the same session."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cli import collabsim_in_process

from collabsim.envs.discovery_team import DiscoveryTeamEnv
from collabsim.experiment.agent_turns import agent_params
from collabsim.participants.scripted import build_scripted

# a long session: the agent still waits for its teammates where a shorter turn budget would
# have it finish (finish_by_turn follows the budget)
TASK, TEAM, STRUCTURE, SEED = "gen_031/0/0", "DR", "scaffolded", 0


def _gym_trace() -> list[str]:
    env = DiscoveryTeamEnv(team=TEAM, structure=STRUCTURE, task_ids=[TASK],
                           text_observations=False)
    # the learner's seat is played by the job's scripted agent (decisions are pure functions
    # of observation, seed and parameters)
    agent = build_scripted("agent", "agent", seed=SEED, params=agent_params(None, env.max_turns))
    try:
        env.reset(options={"task_id": TASK, "session_seed": SEED})
        done = False
        while not done:
            assert env.last_observation is not None
            _, _, terminated, truncated, _ = env.step(agent.decide(env.last_observation))
            done = terminated or truncated
        return [e.to_json() for e in env.last_events]
    finally:
        env.close()


def test_the_gym_and_a_job_with_the_same_settings_write_the_same_trace(
        tmp_path: Path, capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "job"
    proc = collabsim_in_process(
        ["run", f"tasks.ids=[{TASK}]", f"team={TEAM}", f"structure={STRUCTURE}",
         f"seeds=[{SEED}]", "run.show_sessions=false", "run.progress=false",
         f"hydra.run.dir={job}"], cwd=tmp_path, capfd=capfd, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    (trace,) = job.glob("sessions/*/trace.jsonl")
    assert _gym_trace() == trace.read_text(encoding="utf-8").splitlines()
