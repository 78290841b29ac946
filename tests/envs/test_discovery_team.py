"""DiscoveryTeam-v1 stepped by hand: API conformance, determinism and rewards from the judge."""

from __future__ import annotations

import threading

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from helpers.participants import ScriptParticipant

import collabsim.envs
from collabsim.core.actions import format_action
from collabsim.participants.scripted import build_scripted
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync

gym.register_envs(collabsim.envs)


@pytest.fixture()
def single_env():
    env = gym.make("collabsim/DiscoveryTeam-v1", team="single", max_turns=8)
    yield env
    env.close()


def test_registered_env_passes_check_env():
    env = gym.make("collabsim/DiscoveryTeam-v1", team="DR", structure="scaffolded", max_turns=6)
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


def test_wrong_answer_scores_below_gold_and_turn_limit_terminates():
    env = gym.make("collabsim/DiscoveryTeam-v1", team="single", max_turns=3)
    try:
        env.reset(seed=5)
        env.step(format_action("EDITOR_UPDATE", text="Nothing happened in 9000 CE."))
        terminated = truncated = False
        steps = 0
        while not (terminated or truncated):
            _, reward, terminated, truncated, _ = env.step("WAIT_TEAMMATE_CONTINUE()")
            steps += 1
            assert steps < 20
        # the turn limit is part of the task: a terminal state (truncation would make RL
        # libraries add a continuation value to the judged reward)
        assert terminated and not truncated
        assert reward == 0.0
    finally:
        env.close()


def test_an_episode_is_the_engine_session_with_the_learner_as_agent():
    """Stepping the env gives what run_session gives for the same agent actions and seed."""
    actions = [
        format_action("EXECUTE_CODE", code="print(6 * 7)"),
        "WAIT_TEAMMATE_CONTINUE()",
        format_action("EDITOR_UPDATE", text="Dagger peaks around 2300 BCE."),
        "WAIT_TEAMMATE_CONTINUE()",
        "FINISH()",
    ]
    env = gym.make("collabsim/DiscoveryTeam-v1", team="DR", structure="default", max_turns=30)
    try:
        _, info = env.reset(seed=4)
        seed = info["session_seed"]
        task_id = info["task_id"]
        inner = env.unwrapped
        for action in actions:
            _, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
    finally:
        env.close()
    task = next(t for t in inner.tasks if t.task_id == task_id)
    participants = {"agent": ScriptParticipant("agent", "agent", actions)}
    for profile in inner.team.collaborators:
        participants[profile.key] = build_scripted(profile.key, "collaborator", profile, seed=seed)
    config = SessionConfig(
        task=task, team=inner.team, structure=inner.structure, seed=seed, max_turns=30
    )
    result = run_session_sync(config, participants)
    assert terminated and not truncated
    assert (info["status"], info["submitted_hypothesis"], info["virtual_seconds"]) == (
        result.status,
        result.submitted_hypothesis,
        result.virtual_seconds,
    )


def test_episodes_run_in_the_callers_thread_and_close_releases_the_sandbox():
    before = threading.active_count()
    env = gym.make("collabsim/DiscoveryTeam-v1", team="D", max_turns=8)
    env.reset(seed=1)
    obs, *_ = env.step(format_action("EXECUTE_CODE", code="print(6 * 7)"))
    assert "42" in obs
    assert threading.active_count() == before
    runner = env.unwrapped._orch.runner
    assert runner.executor is not None and not runner.executor.closed
    env.close()
    assert runner.executor.closed
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step("FINISH()")
