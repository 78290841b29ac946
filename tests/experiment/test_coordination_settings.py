"""The ``coordination`` settings: the config group, command-line overrides, their one-line
errors, and where the spec goes (session configs, store keys, the gym envs)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
from helpers.tasks import make_task

from collabsim.cli.run_app import UserError, compose_config
from collabsim.core.coordination import CoordinationSpec
from collabsim.experiment.plan import SessionPlan, outcome_settings, session_key
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.settings import SettingsError, validate_job

OPTIONS = {
    "no_misapplication": {"misapplication": 0.0, "misapplication_per_message": 0.0},
    "no_attention": {"attention_messages": 0},
    "no_loafing": {"loafing": 0.0},
    "no_unrouted_advice": {"unrouted_advice": False},
    "no_lost_updates": {"lost_updates": False},
    "no_costs": {"misapplication": 0.0, "misapplication_per_message": 0.0,
                 "attention_messages": 0, "loafing": 0.0, "unrouted_advice": False,
                 "lost_updates": False},
    "no_transactive_memory": {"transactive_memory": False},
    "no_gate_checks": {"gate_checks": False},
    "no_single_owner": {"single_owner": False},
    "no_chosen_owners": {"chosen_owners": False},
}


def test_the_default_is_the_specs_own():
    settings = validate_job(compose_config([]))
    assert settings.coordination == CoordinationSpec()
    assert compose_config([])["coordination"] == asdict(CoordinationSpec())


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_each_ablation_option_changes_only_its_switches(option):
    settings = validate_job(compose_config([f"coordination={option}"]))
    assert settings.coordination == CoordinationSpec().with_values(OPTIONS[option])


def test_no_yaml_file_restates_a_default():
    """The numbers live in CoordinationSpec: default.yaml sets none, each option only its own."""
    import yaml

    folder = Path(__file__).parents[2] / "configs" / "coordination"
    assert {p.stem for p in folder.glob("*.yaml")} == {"default", *OPTIONS}
    for path in folder.glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        values = {k: v for k, v in data.items() if k != "defaults"}
        assert values == OPTIONS.get(path.stem, {}), path.name


def test_an_override_by_name_reaches_the_session_config(tmp_path):
    settings = validate_job(compose_config(["coordination=no_loafing",
                                            "coordination.lost_updates=false"]))
    assert settings.coordination == CoordinationSpec(loafing=0.0, lost_updates=False)
    task = make_task(tmp_path)
    config = SessionConfigs(settings)(SessionPlan(task, "DR", "default", 0))
    assert config.coordination == CoordinationSpec(loafing=0.0, lost_updates=False)


@pytest.mark.parametrize(("override", "line"), [
    ("coordination.loafing=1.5", "coordination.loafing: must lie in [0, 1], got 1.5"),
    ("coordination.misapplication=-0.1", "coordination.misapplication: must lie in [0, 1]"),
    ("coordination.attention_messages=-1", "coordination.attention_messages: must be >= 0"),
    ("coordination.attention_messages=1.5", "coordination.attention_messages: Input should "),
    ("coordination.loafing=abc", "coordination.loafing: Input should be a valid number"),
    ("coordination.lost_updates=maybe", "coordination.lost_updates: Input should be a valid "
                                        "boolean"),
    ("+coordination.loafng=0", "coordination.loafng: unknown setting"),
])
def test_a_bad_value_is_refused_in_one_line_naming_it(override, line):
    with pytest.raises(SettingsError) as err:
        validate_job(compose_config([override]))
    assert str(err.value).startswith(line), str(err.value)
    assert "\n" not in str(err.value)


def test_a_misspelt_key_or_option_is_refused_by_the_composition():
    with pytest.raises(UserError, match="coordination.loafng"):
        compose_config(["coordination.loafng=0"])
    with pytest.raises(UserError, match="coordination/no_such"):
        compose_config(["coordination=no_such"])


def test_a_bad_value_ends_the_run_with_exit_2_and_writes_nothing(tmp_path, collabsim_cli):
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "out"
    proc = collabsim_cli("run", "coordination.loafing=2", "tasks.n_tasks=3",
                         f"tasks.root={tmp_path / 'suite'}", f"run.store={tmp_path / 'store'}",
                         f"hydra.run.dir={out}", cwd=work)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == ("collabsim run: coordination.loafing: must lie in [0, 1], "
                                   "got 2.0")
    assert not out.exists() and not (tmp_path / "store").exists()
    assert list(work.iterdir()) == []


def test_store_keys_differ_between_coordination_settings_and_the_default_keeps_its_key(
        tmp_path):
    default_cfg = validate_job(compose_config([])).model_dump()
    loafing = validate_job(compose_config(["coordination=no_loafing"])).model_dump()
    half = validate_job(compose_config(["coordination.loafing=0.5"])).model_dump()
    older = {k: v for k, v in default_cfg.items() if k != "coordination"}  # before the spec
    assert outcome_settings(default_cfg) == outcome_settings(older)
    assert outcome_settings(loafing)["coordination"] == {"loafing": 0.0}
    task = make_task(tmp_path)
    keys = {session_key(task, "DR", "default", 0, outcome_settings(c))
            for c in (default_cfg, loafing, half)}
    assert len(keys) == 3


def test_the_gym_envs_take_a_coordination_spec():
    from collabsim.envs.session_env import SessionEnv

    spec = CoordinationSpec(loafing=0.0)
    env = SessionEnv(team="D", max_turns=4, tasks="generated", task_ids=None, coordination=spec)
    try:
        assert env.coordination == spec
        env.reset(seed=0)
        assert env.last_observation is not None
        assert env.last_observation.coordination == spec
    finally:
        env.close()
    assert SessionEnv(team="D", max_turns=4, coordination={"lost_updates": False}
                      ).coordination == CoordinationSpec(lost_updates=False)
    assert SessionEnv(team="D", max_turns=4).coordination == CoordinationSpec()
    with pytest.raises(ValueError, match="loafng"):
        SessionEnv(team="D", max_turns=4, coordination={"loafng": 0.0})
