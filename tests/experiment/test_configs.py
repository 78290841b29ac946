"""The packaged configs (configs/): every option of every group composes, validates and builds a job."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.cli.run_app import CONFIG_DIR, compose_config
from collabsim.experiment.job import plan_job, run
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.plan import TEAM_COMPOSITIONS
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.settings import (
    DiscoveryBenchTasks,
    GeneratedStatsTasks,
    GeneratedTasks,
    LLMPolicy,
    NoTracking,
    ScriptedPolicy,
    SettingsError,
    WandbTracking,
    validate_job,
)
from collabsim.session.structures import STRUCTURE_NAMES

# configs/hydra/ holds options of Hydra's own groups (callbacks, launcher plugins), not ours.
GROUPS = sorted(p.name for p in Path(CONFIG_DIR).iterdir() if p.is_dir() and p.name != "hydra")
OPTIONS = [(g, f.stem) for g in GROUPS for f in sorted(Path(CONFIG_DIR, g).glob("*.yaml"))]


def test_every_group_is_covered():
    assert GROUPS == [
        "coordination", "experiment", "expertise", "launcher", "llm", "policy", "sensitivity", "structure",
        "tasks", "team",
        "tracking",
    ]  # fmt: skip
    assert ("experiment", "archaeology") in OPTIONS and ("launcher", "slurm") in OPTIONS
    assert ("experiment", "discoverybench_all") in OPTIONS
    assert ("tasks", "generated_stats") in OPTIONS


@pytest.mark.parametrize(("group", "option"), OPTIONS, ids=[f"{g}={o}" for g, o in OPTIONS])
def test_every_option_composes_validates_and_builds_the_job(
    group, option, tmp_path, discoverybench_root
):
    overrides = [f"{group}={option}", f"llm.cache_dir={tmp_path / 'llm'}"]
    needs_root = (group, option) in {("tasks", "discoverybench"), ("experiment", "archaeology"),
                                     ("experiment", "sensitivity"),
                                     ("experiment", "discoverybench_all"),
                                     ("experiment", "coordination_ablation")}
    if needs_root:
        overrides.append(f"tasks.root={discoverybench_root}")
    else:
        overrides += ["tasks.n_tasks=2", f"tasks.root={tmp_path / 'suite'}"]
    cfg = compose_config(overrides)
    job = plan_job(cfg)
    settings = job.settings
    # each group option became one typed object
    expected_tasks = (DiscoveryBenchTasks if needs_root else
                      GeneratedStatsTasks if (group, option) == ("tasks", "generated_stats")
                      else GeneratedTasks)
    assert isinstance(settings.tasks, expected_tasks)
    assert isinstance(settings.policy, LLMPolicy if option == "llm" else ScriptedPolicy)
    expected_tracking = WandbTracking if (group, option) == ("tracking", "wandb") else NoTracking
    assert isinstance(settings.tracking, expected_tracking)
    assert "launcher" not in cfg  # launcher options configure Hydra only
    assert job.plans and len({p.key for p in job.plans}) == len(job.plans)
    # every variant of the job gets an engine config and its participants
    builder = ParticipantBuilder(job.settings)
    configs = SessionConfigs(job.settings)
    try:
        seen = set()
        for plan in job.plans:
            if (plan.team, plan.structure) in seen:
                continue
            seen.add((plan.team, plan.structure))
            config = configs(plan)
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
    # the scripted policies have one config node: policy=llm composes policy=scripted's
    assert "scripted_agent" not in cfg["llm"] and "scripted_collaborator" not in cfg["llm"]
    llm = compose_config(["policy=llm"])
    assert llm["policy"] == {**cfg["policy"], "name": "llm"}
    assert "finish_by_turn" not in cfg["policy"]["agent"]


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
        *(f"policy.agent.mistakes.{k}=0" for k in (
            "wrong_column_variant", "wrong_ordinal", "peak_vs_plateau", "wrong_window",
            "ignore_teammate",
        )),
    )  # fmt: skip
    assert llm == scripted
    # the mistakes are really on: switching them off changes some answers
    assert llm != no_mistakes


SENSITIVITY_POINTS = sorted(f.stem for f in Path(CONFIG_DIR, "sensitivity").glob("*.yaml"))


@pytest.mark.parametrize("policy", ["scripted", "llm"])
def test_every_sensitivity_point_composes_and_validates_under_both_policies(policy, tmp_path):
    assert len(SENSITIVITY_POINTS) == 16
    for point in SENSITIVITY_POINTS:
        cfg = compose_config([f"sensitivity={point}", f"policy={policy}",
                              "tasks.n_tasks=1", f"tasks.root={tmp_path / 'suite'}"])
        settings = validate_job(cfg)
        assert settings.policy.name == policy, point


def _offline_agent_params(overrides, tmp_path):
    """The parameters the offline provider replays for the agent under ``overrides``."""
    cfg = compose_config([*overrides, "team=single", "structure=default", "tasks.n_tasks=1",
                          f"tasks.root={tmp_path / 'suite'}", f"llm.cache_dir={tmp_path / 'llm'}"])
    job = plan_job(cfg)
    builder = ParticipantBuilder(job.settings)
    try:
        plan = job.plans[0]
        config = SessionConfigs(job.settings)(plan)
        agent = builder.build(plan, config, tmp_path / plan.slug)["agent"]
    finally:
        builder.close()
    return agent.offline_policy["params"]


def test_a_sensitivity_point_reaches_the_offline_providers_agent(tmp_path):
    """`collabsim run sensitivity=deference_0.75 policy=llm` validates and the scripted agent
    the offline provider replays has deference 0.75 (it kept 0.5 from a copy of the
    parameters in the llm group, and the point failed with `policy.agent: unknown setting`)."""
    params = _offline_agent_params(["policy=llm", "sensitivity=deference_0.75"], tmp_path)
    assert params["deference"] == 0.75
    assert _offline_agent_params(["policy=llm"], tmp_path)["deference"] == 0.5


def test_the_agent_finishes_by_the_run_turn_limit_less_its_margin(tmp_path):
    assert _offline_agent_params(["policy=llm"], tmp_path)["finish_by_turn"] == 70
    for policy in ("llm", "scripted"):
        cfg = compose_config([f"policy={policy}", "run.max_turns=20", "tasks.n_tasks=1",
                              f"tasks.root={tmp_path / 'suite'}"])
        builder = ParticipantBuilder(plan_job(cfg).settings)
        assert builder.scripted_params["agent"]["finish_by_turn"] == 10
        assert "finish_margin_turns" not in builder.scripted_params["agent"]
    cfg = compose_config(["policy.agent.finish_margin_turns=5", "tasks.n_tasks=1",
                          f"tasks.root={tmp_path / 'suite'}"])
    assert ParticipantBuilder(plan_job(cfg).settings).scripted_params["agent"]["finish_by_turn"] == 75


@pytest.mark.parametrize(("override", "message"), [
    ("+policy.agent.finish_by_turn=25", "policy.agent: finish_by_turn is derived"),
    ("policy.agent.finish_margin_turns=-1", "policy.agent: finish_margin_turns must be"),
    ("+llm.scripted_agent.deference=0.7", "llm.scripted_agent: unknown setting"),
])
def test_the_turn_margin_is_the_only_way_to_set_when_the_agent_finishes(override, message):
    with pytest.raises(SettingsError, match=f"^{message}"):
        validate_job(compose_config(["policy=llm", override]))


def test_discoverybench_all_plans_every_task_under_the_root_times_13_variants_times_seeds(
    discoverybench_root,
):
    """experiment=discoverybench_all: no dataset filter, the whole team x structure grid."""
    cfg = compose_config(["experiment=discoverybench_all", f"tasks.root={discoverybench_root}"])
    job = plan_job(cfg)
    tasks = {p.task.task_id for p in job.plans}
    variants = {(p.team, p.structure) for p in job.plans}
    assert len(variants) == 13
    assert sorted({p.seed for p in job.plans}) == [0, 1, 2]
    assert len(job.plans) == len(tasks) * 13 * 3
    assert {t.split("/")[0] for t in tasks} == {"archaeology", "worldbank_education_gdp_indicators"}


def _collaborator(overrides: list[str], tmp_path: Path, key: str = "D"):
    cfg = compose_config([*overrides, "tasks.n_tasks=2", f"tasks.root={tmp_path / 'suite'}",
                          "team=DR", "structure=default"])
    job = plan_job(cfg)
    builder = ParticipantBuilder(job.settings)
    try:
        plan = job.plans[0]
        return builder.build(plan, SessionConfigs(job.settings)(plan), tmp_path / plan.slug)[key]
    finally:
        builder.close()


def test_the_expertise_map_has_collaborators_defer_outside_their_area(tmp_path):
    """In `experiment=expertise_map` both collaborators defer outside their own area
    (object_outside 0, with its source); a default run keeps them voicing everything (1)."""
    for key in ("D", "R"):
        mapped = _collaborator(["experiment=expertise_map"], tmp_path, key)
        assert mapped.human.object_outside == 0.0
        assert _collaborator([], tmp_path, key).human.object_outside == 1.0
    cfg = compose_config(["experiment=expertise_map"])
    assert str(cfg["team"]["profiles"]["D"]["params"]["object_outside"]["source"]).startswith(
        "prior:")
