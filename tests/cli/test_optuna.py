"""Optuna sweeps: the command-line check lets sweeper syntax through, a trial sweep runs and
is reported like any sweep, and experiment=optimize_structure composes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers.cli import collabsim_exit_code

from collabsim.cli.run_app import UserError, _sweep_jobs, compose_config, validate_command_line

PATIENCE = "policy.agent.patience_seconds"


@pytest.mark.parametrize("override, values", [
    (f"{PATIENCE}=interval(30,600)", ["30.0", "600.0"]),
    (f"{PATIENCE}=int(interval(30,600))", ["30", "600"]),
    (f"{PATIENCE}=tag(log, interval(30,600))", ["30.0", "600.0"]),
    (f"{PATIENCE}=range(60,181,60)", ["60", "120", "180"]),
    (f"{PATIENCE}=choice(60,120)", ["60", "120"]),
    (f"{PATIENCE}=shuffle(60,120)", ["60", "120"]),
    ("sensitivity=glob(deference*,exclude=[deference_0.00,deference_0.50,deference_1.00])",
     ["deference_0.25", "deference_0.75"]),
])
def test_sweeper_syntax_is_checked_through_representative_values(override, values):
    jobs = _sweep_jobs(["team=D", override], multirun=True)
    key = override.split("=", 1)[0]
    assert sorted(job[1] for job in jobs) == sorted(f"{key}={v}" for v in values)
    validate_command_line(["-m", "hydra/sweeper=optuna", "hydra.sweeper.n_trials=2",
                           "tasks.limit=1", "team=D", override])


def test_an_interval_reaching_a_bad_value_is_a_one_line_error():
    with pytest.raises(UserError, match="wrong_column_variant"):
        validate_command_line(["-m", "hydra/sweeper=optuna", "tasks.limit=1",
                               "policy.agent.mistakes.wrong_column_variant=interval(0,2)"])


def test_optimize_structure_searches_collaboration_settings():
    cfg = compose_config(["experiment=optimize_structure"])
    assert cfg["team"]["compositions"] == ["DR"]
    from hydra import compose, initialize_config_dir

    from collabsim.cli.run_app import CONFIG_DIR

    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        full = compose(config_name="config", overrides=["experiment=optimize_structure"],
                       return_hydra_config=True)
    sweeper = full.hydra.sweeper
    assert "optuna" in sweeper._target_.lower() and str(sweeper.direction).endswith("maximize")
    params = dict(sweeper.params)
    assert params["structure"].startswith("choice(")
    assert any("gates" in k for k in params) and PATIENCE in params
    assert any(k.endswith("has_memory") for k in params)


@pytest.fixture(scope="module")
def optuna_sweep(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("optuna")
    code = collabsim_exit_code(["run", "-m", "hydra/sweeper=optuna",
                                f"{PATIENCE}=interval(30,600)", "hydra.sweeper.n_trials=4",
                                "team=D", "structure=default", "tasks.limit=2",
                                "run.progress=false", "hydra.callbacks.sweep_report.views=false",
                                f"hydra.sweep.dir={root / 'multirun'}"], cwd=root)
    assert code == 0
    return root / "multirun"


def test_an_optuna_sweep_runs_and_is_reported_by_trial(optuna_sweep):
    """Acceptance: ``run -m hydra/sweeper=optuna 'policy.agent.patience_seconds=interval(30,
    600)' hydra.sweeper.n_trials=4`` runs, and its report keys the trials by the parameter."""
    jobs = sorted(optuna_sweep.glob("*/sessions.csv"))
    assert len(jobs) == 4
    agg = pd.read_csv(optuna_sweep / "report_aggregate.csv")
    sessions = pd.read_csv(optuna_sweep / "report_sessions.csv")
    assert PATIENCE in agg and len(agg) == agg[PATIENCE].nunique() == 4
    assert agg[PATIENCE].between(30, 600).all()
    assert (agg["n_sessions"] == 2).all() and len(sessions) == 8
    text = (optuna_sweep / "report.md").read_text(encoding="utf-8")
    assert "Optuna search: best trial" in text
    assert (optuna_sweep / "figures" / "performance_vs_patience_seconds.png").is_file()
    assert (optuna_sweep / "figures" / "performance_vs_patience_seconds.pdf").is_file()


WRONG_ORDINAL = "policy.agent.mistakes.wrong_ordinal"


@pytest.mark.parametrize("overrides, direction", [
    (["hydra/sweeper=optuna"], "maximize"),
    (["hydra/sweeper=optuna", "hydra.sweeper.direction=minimize"], "minimize"),
    (["experiment=optimize_structure"], "maximize"),
])
def test_an_optuna_search_maximises_performance_unless_told_otherwise(overrides, direction):
    from hydra import compose, initialize_config_dir

    from collabsim.cli.run_app import CONFIG_DIR

    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        full = compose(config_name="config", overrides=overrides, return_hydra_config=True)
    assert str(full.hydra.sweeper.direction).removeprefix("Direction.") == direction


def test_a_search_finds_the_known_best_trial(tmp_path):
    """Acceptance: the agent never misreading an ordinal (0.0) scores higher than always
    misreading it (1.0) on these tasks (1.00 vs 0.25), so the best trial is 0.0 and the
    report names the objective and its direction."""
    import yaml

    root = tmp_path / "multirun"
    code = collabsim_exit_code(["run", "-m", "hydra/sweeper=optuna", "hydra/sweeper/sampler=grid",
                                f"{WRONG_ORDINAL}=choice(0.0,1.0)", "hydra.sweeper.n_trials=2",
                                "team=D", "structure=default", "tasks.limit=4",
                                "run.progress=false", "hydra.callbacks.sweep_report.views=false",
                                f"hydra.sweep.dir={root}"], cwd=tmp_path)
    assert code == 0
    agg = pd.read_csv(root / "report_aggregate.csv").set_index(WRONG_ORDINAL)
    assert agg.loc[0.0, "Performance_mean"] > agg.loc[1.0, "Performance_mean"]
    best = yaml.safe_load((root / "optimization_results.yaml").read_text(encoding="utf-8"))
    assert best["best_params"] == {WRONG_ORDINAL: 0.0}
    assert best["best_value"] == pytest.approx(agg.loc[0.0, "Performance_mean"])
    text = (root / "report.md").read_text(encoding="utf-8")
    assert "Objective: the trial job's mean Performance, direction: maximize." in text
