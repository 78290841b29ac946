"""Episodes of one env share a sandbox worker, and each episode still starts clean."""

from __future__ import annotations

import gymnasium as gym
import pytest

import collabsim.envs
from collabsim.core.actions import format_action

gym.register_envs(collabsim.envs)
WRITE = format_action(
    "EXECUTE_CODE",
    code="import os\nmarker = 'episode 1'\nopen('notes.txt', 'w').write(marker)\n"
         "print('wrote', os.getpid())")
LOOK = format_action(
    "EXECUTE_CODE",
    code="import os\nprint('LOOK', sorted(os.listdir('.')), 'marker' in globals(), os.getpid())")


def _code_output(obs: str, tag: str) -> str:
    return next(line for line in obs.splitlines() if line.lstrip().startswith(tag))


def test_a_file_and_a_variable_of_episode_1_are_gone_in_episode_2() -> None:
    env = gym.make("collabsim/DiscoveryTeam-v1", team="single", max_turns=6)
    try:
        env.reset(seed=0)
        obs, *_ = env.step(WRITE)
        wrote_pid = _code_output(obs, "wrote").split()[-1]
        obs, *_ = env.step(LOOK)
        assert "'notes.txt'" in _code_output(obs, "LOOK") and "True" in _code_output(obs, "LOOK")
        env.reset(seed=1)
        obs, *_ = env.step(LOOK)
        look = _code_output(obs, "LOOK")
        assert "notes.txt" not in look and "True" not in look
        assert look.split()[-1] == wrote_pid  # the same worker process served both episodes
    finally:
        env.close()
    pool = env.unwrapped._sandboxes
    assert pool._closed and not pool._idle  # close ended the shared sandbox


@pytest.mark.parametrize("reuse", [True, False])
def test_seeded_episodes_are_identical_with_and_without_reuse(reuse: bool) -> None:
    def episode_texts(env: gym.Env, seed: int) -> list[str]:
        texts = [env.reset(seed=seed)[0]]
        for _ in range(12):
            obs, _, terminated, truncated, _ = env.step("WAIT_TEAMMATE_CONTINUE()")
            texts.append(obs)
            if terminated or truncated:
                break
        return texts

    reused = gym.make("collabsim/DiscoveryTeam-v1", team="DR", max_turns=12, reuse_sandbox=reuse)
    fresh = gym.make("collabsim/DiscoveryTeam-v1", team="DR", max_turns=12, reuse_sandbox=False)
    try:
        first = [episode_texts(reused, seed) for seed in (3, 4, 3)]
        assert first[0] == first[2]
        assert first[1] == episode_texts(fresh, 4)
    finally:
        reused.close()
        fresh.close()


def test_without_reuse_every_episode_gets_a_fresh_worker_and_the_old_one_ends() -> None:
    env = gym.make("collabsim/DiscoveryTeam-v1", team="single", max_turns=6, reuse_sandbox=False)
    sandboxes, worker_pids = [], []
    try:
        assert env.unwrapped._sandboxes is None
        for seed in (0, 1, 0):
            env.reset(seed=seed)
            obs, *_ = env.step(LOOK)
            worker_pids.append(_code_output(obs, "LOOK").split()[-1])
            sandbox = env.unwrapped._orch.runner.executor
            assert not sandbox.closed
            sandboxes.append(sandbox)
            if len(sandboxes) > 1:  # the previous episode's sandbox ended with it
                assert sandboxes[-2].closed
    finally:
        env.close()
    assert len(set(worker_pids)) == 3, worker_pids  # a reused worker would repeat its pid
    assert sandboxes[-1].closed
