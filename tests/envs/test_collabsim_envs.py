"""DiscoveryTeam-v1 / Collaborator-v1: registration, API conformance, interfaces, rewards."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import collabsim.envs
from collabsim.envs.collaborator import CollaboratorEnv
from collabsim.envs.discovery_team import DiscoveryTeamEnv
from collabsim.envs.macro import AGENT_MACROS, COLLABORATOR_MACROS, N_FEATURES, MacroActions
from collabsim.envs.session_env import select_tasks

gym.register_envs(collabsim.envs)
WAIT = "WAIT_TEAMMATE_CONTINUE()"


def test_registration_works_from_an_empty_folder_with_a_shadowing_envs_dir(tmp_path):
    """A user's own ``envs/`` package must not break the documented import."""
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "__init__.py").write_text("raise ImportError('user envs')\n")
    script = textwrap.dedent("""
        import gymnasium as gym
        import collabsim.envs
        gym.register_envs(collabsim.envs)
        for env_id in ("collabsim/DiscoveryTeam-v1", "collabsim/Collaborator-v1"):
            spec = gym.spec(env_id)
            assert spec.max_episode_steps == 100, spec
        env = gym.make("collabsim/DiscoveryTeam-v1", team="D", max_turns=4)
        obs, info = env.reset(seed=0)
        assert "Question:" in obs
        env.close()
        print("OK", collabsim.envs.__file__)
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("OK")
    # no import at all: the module prefix of the id imports the package
    script2 = ("import gymnasium as gym\n"
               "env = gym.make('collabsim.envs:collabsim/DiscoveryTeam-v1', interface='macro')\n"
               "print(env.action_space)")
    done = subprocess.run([sys.executable, "-c", script2], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"Discrete({len(AGENT_MACROS)})" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("interface", ["text", "macro"])
@pytest.mark.parametrize("make", [collabsim.envs.make_discovery_team,
                                  collabsim.envs.make_collaborator])
def test_gymnasium_check_env_passes(make, interface):
    env = make(interface=interface, max_turns=5, cell_cache=True)
    try:
        assert isinstance(env, MacroActions) == (interface == "macro")
        check_env(env, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("make", [collabsim.envs.make_discovery_team,
                                  collabsim.envs.make_collaborator])
def test_gymnasium_check_env_passes_for_the_macro_form_under_by_profile(make):
    """With the teammates holding the facts (ask and answer macros in play)."""
    env = make(interface="macro", max_turns=5, cell_cache=True, knowledge="by_profile")
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("role", ["D", "R"])
def test_stable_baselines3_check_env_passes_for_the_macro_form(role):
    """SB3 needs numeric spaces: only the macro form is checked (text spaces are refused)."""
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    for env in (MacroActions(DiscoveryTeamEnv(max_turns=5, cell_cache=True)),
                MacroActions(CollaboratorEnv(role=role, max_turns=5, cell_cache=True))):
        try:
            sb3_check_env(env, warn=True)
        finally:
            env.close()


def test_train_and_test_splits_are_disjoint_and_cover_the_suite():
    train = {t.task_id for t in select_tasks("generated", "train")}
    test = {t.task_id for t in select_tasks("generated", "test")}
    every = {t.task_id for t in select_tasks("generated", "all")}
    assert train and test and not train & test and train | test == every
    assert len(test) == round(0.25 * len(every))
    with pytest.raises(ValueError, match="split"):
        select_tasks("generated", "validation")


def test_observations_never_show_the_gold_hypothesis():
    env = DiscoveryTeamEnv(team="DR", max_turns=6)
    collab = CollaboratorEnv(role="R", max_turns=6)
    try:
        for e in (env, collab):
            obs, _ = e.reset(seed=3)
            gold = e.task.gold_hypothesis
            assert gold and gold not in obs
            assert "Question:" in obs
    finally:
        env.close()
        collab.close()


def test_macro_policy_of_analyse_update_finish_earns_the_judges_performance():
    env = gym.make("collabsim/DiscoveryTeam-v1", interface="macro", team="DR", max_turns=10)
    try:
        obs, info = env.reset(seed=0)
        assert obs.shape == (N_FEATURES,) and env.observation_space.contains(obs)
        mask = info["action_mask"]
        assert mask[AGENT_MACROS.index("finish")] and mask[AGENT_MACROS.index("wait")]
        assert not mask[AGENT_MACROS.index("update_editor")], "nothing computed yet"
        plan = ["analyse_variant_0", "update_editor", "finish"]
        rewards = []
        for name in plan:
            obs, reward, terminated, truncated, info = env.step(AGENT_MACROS.index(name))
            assert info["macro_valid"], name
            rewards.append(reward)
        assert terminated and not truncated
        assert rewards[:2] == [0.0, 0.0]
        assert rewards[-1] == pytest.approx(info["metrics"]["Performance"]) == 1.0
    finally:
        env.close()


def test_an_invalid_macro_is_played_as_wait_and_flagged():
    env = gym.make("collabsim/DiscoveryTeam-v1", interface="macro", team="D", max_turns=10)
    try:
        _, info = env.reset(seed=1)
        update = AGENT_MACROS.index("update_editor")
        assert not info["action_mask"][update]
        _, reward, terminated, truncated, info = env.step(update)
        assert info["macro_valid"] is False and reward == 0.0 and not (terminated or truncated)
    finally:
        env.close()


def test_collaborator_env_rewards_team_performance_plus_alignment():
    env = gym.make("collabsim/Collaborator-v1", interface="macro", role="D", max_turns=20)
    try:
        assert env.action_space.n == len(COLLABORATOR_MACROS)
        _, info = env.reset(seed=2)
        recompute = COLLABORATOR_MACROS.index("recompute")
        assert info["action_mask"][recompute]
        done, total, steps = False, 0.0, 0
        action = recompute
        while not done:
            _, reward, terminated, truncated, info = env.step(action)
            action = COLLABORATOR_MACROS.index("confirm_draft") if (
                info["action_mask"][COLLABORATOR_MACROS.index("confirm_draft")]) else 0
            total += reward
            done = terminated or truncated
            steps += 1
            assert steps < 100
        metrics = info["metrics"]
        alignment = 0.0 if np.isnan(metrics["A_profile"]) else metrics["A_profile"]
        assert total == pytest.approx(metrics["Performance"] + 0.25 * alignment)
        assert metrics["A_profile"] > 0, "recomputing is what a D collaborator should do"
    finally:
        env.close()


def test_shaped_terms_are_switchable():
    costly = DiscoveryTeamEnv(team="D", max_turns=5, reward={"turn_cost": 0.1,
                                                             "message_cost": 0.5})
    try:
        costly.reset(seed=0)
        _, reward, *_ = costly.step(WAIT)
        assert reward == pytest.approx(-0.1)
        _, reward, *_ = costly.step('SEND_TEAMMATE_MESSAGE(message="hi")')
        assert reward == pytest.approx(-0.6)
    finally:
        costly.close()
    with pytest.raises(ValueError, match="unknown reward terms"):
        DiscoveryTeamEnv(reward={"bonus": 1.0})


class _AsyncWaiter:
    """An opponent whose ``act`` really suspends (as an LLM policy's does)."""

    name = "D"
    role = "collaborator"

    def __init__(self) -> None:
        self.calls = 0

    async def act(self, observation) -> str:
        import asyncio

        await asyncio.sleep(0)
        self.calls += 1
        return WAIT


def test_an_asynchronous_opponent_policy_is_played_on_the_envs_event_loop():
    waiter = _AsyncWaiter()
    env = DiscoveryTeamEnv(team="D", max_turns=4, opponents={"D": waiter})
    try:
        env.reset(seed=0)
        for _ in range(2):
            env.step(WAIT)
        assert waiter.calls >= 2
    finally:
        env.close()


class _Failing:
    """An opponent policy that raises: the session ends with status ``error``."""

    def decide(self, obs):
        raise RuntimeError("policy failure")


def test_a_judged_turn_limit_ending_is_terminated_and_a_failed_session_truncated():
    """The turn limit is part of the task (observed, and the judged reward is paid on that
    step): truncation would make SB3 add a continuation value to it and learn never to
    FINISH. Only a failed session is truncated."""
    macro = AGENT_MACROS.index("analyse_variant_0"), AGENT_MACROS.index("update_editor")
    env = gym.make("collabsim/DiscoveryTeam-v1", interface="macro", team="D", max_turns=4)
    try:
        _, info = env.reset(seed=3)
        for action in (*macro, 0, 0):
            _, reward, terminated, truncated, info = env.step(action)
        assert info["status"] == "max_turns" and terminated and not truncated
        assert reward == info["performance"] == 1.0  # the draft was judged
    finally:
        env.close()
    env = gym.make("collabsim/DiscoveryTeam-v1", team="D", max_turns=4,
                   opponents={"D": _Failing()})
    try:
        env.reset(seed=3)
        _, _, terminated, truncated, info = env.step(WAIT)
        assert info["status"] == "error" and truncated and not terminated
    finally:
        env.close()


@pytest.mark.parametrize(("env_id", "kwargs", "min_valid"), [
    ("DiscoveryTeam-v1", {"team": "DR", "structure": "scaffolded"}, 7),
    # with the facts held by the teammates the ask macros come into play
    ("DiscoveryTeam-v1", {"team": "DR", "knowledge": "by_profile"}, 10),
    # the scripted agent asks R whenever its query leaves a reading open: `answer` is valid
    ("Collaborator-v1", {"role": "R", "team": "DR", "structure": "preassigned_gates",
                         "knowledge": "by_profile",
                         "opponent_params": {"agent": {"ask_propensity": 1.0}}},
     len(COLLABORATOR_MACROS)),
])
def test_the_action_mask_marks_exactly_the_macros_that_expand_to_an_action(
    env_id, kwargs, min_valid
):
    """The mask is computed without building the actions' text and kept across steps while
    its inputs are unchanged (so are the features): both must agree with a fresh wrapper's."""
    env = gym.make(f"collabsim/{env_id}", interface="macro", max_turns=15, **kwargs)
    wrapper = env
    while not isinstance(wrapper, MacroActions):
        wrapper = wrapper.env
    rng = np.random.default_rng(0)
    ever_valid = np.zeros(env.action_space.n, dtype=bool)
    try:
        features, info = env.reset(seed=3)
        for _ in range(80):
            obs = wrapper.base.last_observation
            fresh = MacroActions(wrapper.base)  # no memo of earlier observations
            expanded = [fresh.expand(obs, i) for i in range(env.action_space.n)]
            assert info["action_mask"].tolist() == [valid for _, valid in expanded]
            assert all(text for text, valid in expanded if valid)
            assert np.array_equal(features, fresh.features(obs))
            ever_valid |= info["action_mask"]
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            features, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                features, info = env.reset()
    finally:
        env.close()
    never = [m for m, v in zip(wrapper.macros, ever_valid, strict=True) if not v]
    assert ever_valid.sum() >= min_valid, never


@pytest.mark.parametrize("action", [999, len(AGENT_MACROS), -1, 2.5, "finish", None])
def test_an_action_outside_the_macro_space_is_a_clear_error(action) -> None:
    """Issue 38.18: not an IndexError (nor a silent macro from the end of the list)."""
    env = gym.make("collabsim/DiscoveryTeam-v1", interface="macro", team="D", max_turns=4)
    try:
        env.reset(seed=0)
        with pytest.raises(ValueError, match=r"not in the action space Discrete\(\d+\)"):
            env.step(action)
        _, _, _, _, info = env.step(np.int64(AGENT_MACROS.index("wait")))
        assert info["macro"] == "wait", "the env is still usable after the refusal"
    finally:
        env.close()
