"""The packaged configs (configs/): every option of every group composes, validates and builds a job."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.cli.run_app import CONFIG_DIR, compose_config
from collabsim.experiment.job import _session_config, plan_job, run
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.plan import TEAM_COMPOSITIONS
from collabsim.experiment.settings import (
    DiscoveryBenchTasks,
    GeneratedTasks,
    LLMPolicy,
    NoTracking,
    ScriptedPolicy,
    WandbTracking,
)
from collabsim.session.structures import STRUCTURE_NAMES

# configs/hydra/ holds options of Hydra's own groups (callbacks, launcher plugins), not ours.
GROUPS = sorted(p.name for p in Path(CONFIG_DIR).iterdir() if p.is_dir() and p.name != "hydra")
OPTIONS = [(g, f.stem) for g in GROUPS for f in sorted(Path(CONFIG_DIR, g).glob("*.yaml"))]


def test_every_group_is_covered():
    assert GROUPS == [
        "experiment", "launcher", "llm", "policy", "sensitivity", "structure", "tasks", "team",
        "tracking",
    ]  # fmt: skip
    assert ("experiment", "archaeology") in OPTIONS and ("launcher", "slurm") in OPTIONS


@pytest.mark.parametrize(("group", "option"), OPTIONS, ids=[f"{g}={o}" for g, o in OPTIONS])
def test_every_option_composes_validates_and_builds_the_job(
    group, option, tmp_path, discoverybench_root
):
    overrides = [f"{group}={option}", f"llm.cache_dir={tmp_path / 'llm'}"]
    needs_root = (group, option) in {("tasks", "discoverybench"), ("experiment", "archaeology"),
                                     ("experiment", "sensitivity")}
    if needs_root:
        overrides.append(f"tasks.root={discoverybench_root}")
    else:
        overrides += ["tasks.n_tasks=2", f"tasks.root={tmp_path / 'suite'}"]
    cfg = compose_config(overrides)
    job = plan_job(cfg)
    settings = job.settings
    # each group option became one typed object
    assert isinstance(settings.tasks, DiscoveryBenchTasks if needs_root else GeneratedTasks)
    assert isinstance(settings.policy, LLMPolicy if option == "llm" else ScriptedPolicy)
    expected_tracking = WandbTracking if (group, option) == ("tracking", "wandb") else NoTracking
    assert isinstance(settings.tracking, expected_tracking)
    assert "launcher" not in cfg  # launcher options configure Hydra only
    assert job.plans and len({p.key for p in job.plans}) == len(job.plans)
    # every variant of the job gets an engine config and its participants
    builder = ParticipantBuilder(job.config)
    try:
        seen = set()
        for plan in job.plans:
            if (plan.team, plan.structure) in seen:
                continue
            seen.add((plan.team, plan.structure))
            config = _session_config(plan)
            participants = builder.build(plan, config, tmp_path / plan.slug)
            assert set(participants) == set(config.team.members)
            assert config.structure.name == plan.structure
    finally:
        builder.close()


def test_team_and_structure_options_use_the_one_registry_of_names():
    for option in (f.stem for f in Path(CONFIG_DIR, "team").glob("*.yaml")):
        cfg = compose_config([f"team={option}"])
        assert set(cfg["team"]["compositions"]) <= set(TEAM_COMPOSITIONS)
    for option in (f.stem for f in Path(CONFIG_DIR, "structure").glob("*.yaml")):
        cfg = compose_config([f"structure={option}"])
        assert set(cfg["structure"]["names"]) <= set(STRUCTURE_NAMES)


def test_dead_keys_are_gone_and_new_ones_present():
    cfg = compose_config([])
    assert "seed_offset" not in cfg["clock"]
    assert "launcher" not in cfg
    assert cfg["sandbox"]["disk_mb"] == 256
    assert cfg["llm"]["scripted_agent"] == cfg["policy"]["agent"]


def test_the_llm_path_with_the_offline_provider_runs_the_scripted_mistake_model(tmp_path):
    common = [
        "tasks.n_tasks=6",
        f"tasks.root={tmp_path / 'suite'}",
        "team=single",
        "seeds=[0,1]",
        f"llm.cache_dir={tmp_path / 'llm'}",
        "run.progress=false",
        "run.show_sessions=false",
    ]

    def hypotheses(name, *overrides):
        cfg = compose_config([*common, f"run.store={tmp_path / name}", *overrides])
        return list(run(cfg, tmp_path / f"out-{name}").sessions["hypothesis"])

    scripted = hypotheses("scripted", "policy=scripted")
    llm = hypotheses("llm", "policy=llm")
    no_mistakes = hypotheses(
        "llm-clean",
        "policy=llm",
        *(f"llm.scripted_agent.mistakes.{k}=0" for k in (
            "wrong_column_variant", "wrong_ordinal", "peak_vs_plateau", "wrong_window",
            "ignore_teammate",
        )),
    )  # fmt: skip
    assert llm == scripted
    # the mistakes are really on: switching them off changes some answers
    assert llm != no_mistakes
