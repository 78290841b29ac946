"""The gym seats on statistical tasks: the generated statistical suite and a DiscoveryBench
folder (the development splits: real/train and synth/dev)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gymnasium.utils.env_checker import check_env

import collabsim.envs
from collabsim.envs.discovery_team import DiscoveryTeamEnv
from collabsim.envs.session_env import select_tasks
from collabsim.tasks.stats_generator import default_stats_suite_root


@pytest.fixture(scope="module")
def stats_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An isolated cache for the built-in statistical suite (generated once here)."""
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLLABSIM_CACHE_DIR", str(cache))
        default_stats_suite_root()
    return cache


@pytest.fixture()
def in_stats_cache(stats_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(stats_cache))
    return stats_cache


def test_tasks_generated_stats_selects_the_builtin_statistical_suite(in_stats_cache: Path) -> None:
    every = select_tasks("generated_stats", "all")
    assert len(every) == 36 and all(t.dataset.startswith("stats_") for t in every)
    train = {t.task_id for t in select_tasks("generated_stats", "train")}
    test = {t.task_id for t in select_tasks("generated_stats", "test")}
    assert train and test and not train & test and train | test == {t.task_id for t in every}


@pytest.mark.slow
@pytest.mark.parametrize("interface", ["text", "macro"])
@pytest.mark.parametrize("make", [collabsim.envs.make_discovery_team,
                                  collabsim.envs.make_collaborator])
def test_check_env_passes_on_the_generated_statistical_suite(make, interface,
                                                             in_stats_cache: Path) -> None:
    env = make(interface=interface, tasks="generated_stats", max_turns=5, cell_cache=True)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("interface", ["text", "macro"])
@pytest.mark.parametrize("make", [collabsim.envs.make_discovery_team,
                                  collabsim.envs.make_collaborator])
def test_check_env_passes_on_a_discoverybench_folder_of_statistical_tasks(
        make, interface, shared_data: Path) -> None:
    root = shared_data / "discoverybench_dev"
    env = make(interface=interface, tasks=root, max_turns=5, cell_cache=True)
    try:
        assert len(env.unwrapped.tasks) >= 150  # real/train and synth/dev
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_a_stats_episode_shows_the_query_and_held_fact_never_the_gold(
        in_stats_cache: Path) -> None:
    """by_profile: the agent seat holds no fact; R (reading) or D (convention) does."""
    env = DiscoveryTeamEnv(tasks="generated_stats", task_ids=["stats_001/0/0"], team="DR",
                           knowledge="by_profile", max_turns=5)
    try:
        obs, _ = env.reset(seed=0)
        (task,) = env.tasks
        (fact,) = task.facts
        assert task.query in obs
        assert fact.text not in obs and task.gold_hypothesis not in obs
        assert env.reference(task) is not None  # rewards can use the reference graph
        reader = task.brief("R", env.knowledge)
        assert reader.facts == (fact,) and fact.topic == "target"
    finally:
        env.close()
