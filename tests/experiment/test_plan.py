"""Planning the session grid and its store keys."""

from __future__ import annotations

import pytest

from collabsim.experiment.plan import plan_sessions, variants
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = generate_suite(tmp_path_factory.mktemp("suite"), n_tasks=3, seed=4)
    return list(load_tasks(root).tasks)


def test_single_agent_runs_once_and_only_under_single():
    pairs = variants(["single", "D", "R", "DR"], ["default", "scaffolded"])
    assert pairs == [
        ("single", "single"),
        ("D", "default"),
        ("D", "scaffolded"),
        ("R", "default"),
        ("R", "scaffolded"),
        ("DR", "default"),
        ("DR", "scaffolded"),
    ]


def test_full_grid_size_matches_the_paper_grid():
    structures = ["default", "memory", "preassigned_gates", "scaffolded"]
    assert len(variants(["single", "D", "R", "DR"], structures)) * 38 * 3 == 1482


def test_unknown_names_are_rejected_with_the_choices():
    with pytest.raises(ValueError, match="unknown team 'X'"):
        variants(["X"], ["default"])
    with pytest.raises(ValueError, match="unknown structure 'gates'"):
        variants(["D"], ["gates"])


def test_keys_are_stable_and_separate_everything_that_changes_an_outcome(tasks):
    settings = {"policy": {"name": "scripted"}}
    first = plan_sessions(tasks, ["DR"], ["default"], [0, 1], settings)
    again = plan_sessions(tasks, ["DR"], ["default"], [0, 1], settings)
    assert [p.key for p in first] == [p.key for p in again]
    assert len({p.key for p in first}) == len(first) == 6
    changed = plan_sessions(tasks, ["DR"], ["default"], [0, 1], {"policy": {"name": "llm"}})
    assert not {p.key for p in first} & {p.key for p in changed}
    assert all(p.slug.endswith(p.key[:10]) and "/" not in p.slug for p in first)
