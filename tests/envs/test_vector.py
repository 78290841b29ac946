"""Vector envs: async (shared memory, the default) gives exactly what sync gives."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

import collabsim.envs
from collabsim.core.actions import format_action
from collabsim.envs.macro import AGENT_MACROS
from collabsim.envs.session_env import CHARSET
from collabsim.envs.text_space import SharedText

gym.register_envs(collabsim.envs)


def test_shared_text_round_trips_through_shared_memory():
    space = SharedText(max_length=64, charset=CHARSET)
    memory = create_shared_memory(space, n=2)
    texts = ["x = 10\n00", ""]
    for i, text in enumerate(texts):
        write_to_shared_memory(space, i, text, memory)
    view = read_from_shared_memory(space, memory, n=2)
    assert tuple(view) == tuple(texts)
    write_to_shared_memory(space, 1, "later", memory)
    assert copy.deepcopy(view) == ("x = 10\n00", "later"), "a live view, snapshotted by deepcopy"


def _rollout(mode: str, interface: str, actions: list) -> list:
    vec = gym.make_vec("collabsim/DiscoveryTeam-v1", num_envs=4, vectorization_mode=mode,
                       interface=interface, team="DR", max_turns=30, cell_cache=True)
    try:
        obs, _ = vec.reset(seed=0)  # sub-env seeds 0, 1, 2, 3
        seen = [obs]
        for action in actions:
            obs, reward, terminated, truncated, _ = vec.step(action)
            seen.append((obs, reward, terminated, truncated))
        return seen
    finally:
        vec.close()


@pytest.mark.slow
def test_async_equals_sync_text_observations_for_seeds_0_to_3_over_10_steps():
    steps = [format_action("EXECUTE_CODE", code=f"print({i} * 1000)") if i % 3 == 0
             else "WAIT_TEAMMATE_CONTINUE()" for i in range(10)]
    actions = [tuple([s] * 4) for s in steps]
    sync, async_ = _rollout("sync", "text", actions), _rollout("async", "text", actions)
    assert len(sync) == len(async_) == 11
    assert tuple(sync[0]) == tuple(async_[0])
    assert all(len(o) < 60_000 for o in async_[0]), "no shared-memory padding"
    for (o_s, r_s, t_s, u_s), (o_a, r_a, t_a, u_a) in zip(sync[1:], async_[1:], strict=True):
        assert tuple(o_s) == tuple(o_a)
        np.testing.assert_array_equal(r_s, r_a)
        np.testing.assert_array_equal(t_s, t_a)
        np.testing.assert_array_equal(u_s, u_a)
    assert any("3000" in o for o in async_[4][0]), "the code output reached the observation"


@pytest.mark.slow
def test_async_equals_sync_macro_observations_for_seeds_0_to_3_over_10_steps():
    names = ["inspect_data", "analyse_variant_0", "wait", "update_editor", "ask_check",
             "wait", "analyse_variant_2", "wait", "wait", "finish"]
    actions = [np.full(4, AGENT_MACROS.index(n)) for n in names]
    sync, async_ = _rollout("sync", "macro", actions), _rollout("async", "macro", actions)
    np.testing.assert_array_equal(sync[0], async_[0])
    for a, b in zip(sync[1:], async_[1:], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
