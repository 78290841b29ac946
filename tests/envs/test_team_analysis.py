"""The gymnasium environment: API conformance, determinism and rewards from the judge."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import envs  # noqa: F401 - registers the ids
from collabsim.session.actions import format_action


@pytest.fixture()
def single_env():
    env = gym.make("collabsim/TeamAnalysis-v0", team="single", max_turns=8)
    yield env
    env.close()


def test_registered_env_passes_check_env():
    env = gym.make("collabsim/TeamAnalysis-v0", team="DR", structure="scaffolded", max_turns=6)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_reset_is_seeded(single_env):
    first, info_a = single_env.reset(seed=11)
    second, info_b = single_env.reset(seed=11)
    assert first == second
    assert info_a["task_id"] == info_b["task_id"]
    assert "Question:" in first
    assert single_env.observation_space.contains(first)


def test_submitting_the_gold_earns_full_reward_and_terminates(single_env):
    _, info = single_env.reset(seed=5)
    task = next(t for t in single_env.unwrapped.tasks if t.task_id == info["task_id"])
    _, reward, terminated, truncated, _ = single_env.step(
        format_action("EDITOR_UPDATE", text=task.gold_hypothesis)
    )
    assert (reward, terminated, truncated) == (0.0, False, False)
    _, reward, terminated, truncated, info = single_env.step("FINISH()")
    assert terminated and not truncated
    assert info["submitted_hypothesis"] == task.gold_hypothesis
    assert reward == pytest.approx(1.0)


def test_code_output_reaches_the_agent_and_bad_actions_are_errors(single_env):
    single_env.reset(seed=2)
    obs, *_ = single_env.step(format_action("EXECUTE_CODE", code="print(6 * 7)"))
    assert "42" in obs
    obs, reward, terminated, truncated, info = single_env.step("I am not an action")
    assert not terminated and not truncated and reward == 0.0
    assert info["feedback"], "a malformed action must come back as feedback"


def test_wrong_answer_scores_below_gold_and_turn_limit_truncates():
    env = gym.make("collabsim/TeamAnalysis-v0", team="single", max_turns=3)
    try:
        env.reset(seed=5)
        env.step(format_action("EDITOR_UPDATE", text="Nothing happened in 9000 CE."))
        terminated = truncated = False
        steps = 0
        while not (terminated or truncated):
            _, reward, terminated, truncated, _ = env.step("WAIT_TEAMMATE_CONTINUE()")
            steps += 1
            assert steps < 20
        assert truncated and not terminated
        assert reward == 0.0
    finally:
        env.close()
