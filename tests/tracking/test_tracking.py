"""Tracking with the real wandb package, offline: runs are read back from the files wandb
wrote (see tests/helpers/wandb_offline.py for why not through ``wandb.Api``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from collabsim.tracking import (
    NullTracker,
    make_tracker,
    paired_scalars,
    run_config,
    run_identity,
    swept_settings,
    variant_summary,
)
from tests.helpers.wandb_offline import offline_runs

METRICS = ("Performance", "H_init_norm", "H_init_work", "W_human", "M_team", "C_wf", "cost_usd")
SETTING = "policy.agent.mistakes.wrong_column_variant"


@pytest.fixture(scope="module")
def wandb_sweep(tmp_path_factory):
    """Two jobs (the setting 0 and 1), each of two variants (default/D, scaffolded/D)."""
    import subprocess

    root = tmp_path_factory.mktemp("wandb_sweep")
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "-m", "tracking=wandb",
         "tracking.per_session=true", f"{SETTING}=0,1", "team=D",
         "structure=default_and_scaffolded", "tasks.limit=2", "run.progress=false",
         "hydra.callbacks.sweep_report.views=false", f"hydra.sweep.dir={root / 'multirun'}"],
        cwd=root, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root / "multirun", proc


def variant_runs(sweep: Path) -> dict[str, object]:
    runs = {}
    for job in ("0", "1"):
        for run in offline_runs(sweep / job / "wandb"):
            runs[run.name] = run
    return runs


def test_one_run_per_variant_with_scalar_config_keys(wandb_sweep):
    sweep, _ = wandb_sweep
    runs = variant_runs(sweep)
    assert set(runs) == {f"{s}/D wrong_column_variant={v} #{v}"
                         for s in ("default", "scaffolded") for v in (0, 1)}
    run = runs["scaffolded/D wrong_column_variant=1 #1"]
    assert run.config["team"] == "D" and run.config["structure"] == "scaffolded"
    assert run.config[SETTING] == 1 and run.config["swept"] == SETTING
    assert run.config["tasks.limit"] == 2
    assert not any(isinstance(v, list | dict) for v in run.config.values())
    assert not any(k.startswith(("team.compositions", "structure.names")) for k in run.config)


def test_tags_name_only_the_runs_variant(wandb_sweep):
    sweep, _ = wandb_sweep
    run = variant_runs(sweep)["default/D wrong_column_variant=0 #0"]
    assert set(run.tags) == {"structure:default", "team:D", "policy:scripted",
                             "tasks:generated", "wrong_column_variant=0"}
    groups = {r.group for r in variant_runs(sweep).values()}
    assert len(groups) == 1 and groups.pop().startswith("sweep-")
    assert {r.job_type for r in variant_runs(sweep).values()} == {"sweep-job"}


def test_summary_has_the_variants_metrics_with_se(wandb_sweep):
    sweep, _ = wandb_sweep
    job = pd.read_csv(sweep / "1" / "sessions.csv")
    own = job[job["structure"] == "scaffolded"]
    summary = variant_runs(sweep)["scaffolded/D wrong_column_variant=1 #1"].summary
    for metric in METRICS:
        assert metric in summary and f"{metric}_se" in summary
    per_task = own.groupby("task_id")["Performance"].mean()
    assert summary["Performance"] == pytest.approx(per_task.mean())
    assert summary["Performance_se"] == pytest.approx(per_task.std(ddof=1) / 2 ** 0.5)
    assert summary["n_tasks"] == 2 and summary["cost_usd"] == 0.0
    assert summary["sessions/_type"] == "table-file"


def test_the_sweep_report_is_logged_with_its_files_and_figures(wandb_sweep):
    sweep, _ = wandb_sweep
    (report_run,) = offline_runs(sweep / "wandb")
    assert report_run.job_type == "sweep-report"
    assert report_run.group == next(iter(variant_runs(sweep).values())).group
    (artifact,) = [a for a in report_run.artifacts if a["type"] == "report"]
    logged = Path(artifact["files"]["report.md"])
    assert logged.read_text(encoding="utf-8") == (sweep / "report.md").read_text(encoding="utf-8")
    assert "figures/performance_by_structure_team.pdf" in artifact["files"]
    figure = "figures/performance_by_structure_team"
    assert report_run.summary[f"{figure}/_type"] == "image-file"
    image = report_run.folder / "files" / report_run.summary[f"{figure}/path"]
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report_run.summary["paired_differences/_type"] == "table-file"
    assert report_run.summary["variants"] == 4


def test_the_sweep_reports_paired_differences_are_summary_scalars(wandb_sweep):
    sweep, _ = wandb_sweep
    (report_run,) = offline_runs(sweep / "wandb")
    deltas = pd.read_csv(sweep / "report_deltas.csv")
    assert len(deltas) == 2  # scaffolded/D against default/D, one per setting value
    for _, row in deltas.iterrows():
        key = f"paired/scaffolded/D wrong_column_variant={int(row[SETTING])}"
        for field in ("delta", "ci_low", "ci_high"):
            assert report_run.summary[f"{key}/{field}"] == pytest.approx(row[field])
        assert report_run.summary[f"{key}/n_tasks"] == 2


def test_per_session_history_and_no_deprecation(wandb_sweep):
    sweep, proc = wandb_sweep
    history = variant_runs(sweep)["default/D wrong_column_variant=0 #0"].history
    per_session = [h for h in history if "session/Performance" in h]
    assert len(per_session) == 2  # two tasks, one seed
    assert "deprecat" not in (proc.stdout + proc.stderr).lower()


def test_groups_are_unique_per_sweep_and_per_run(tmp_path):
    ids = []
    for sweep in ("a", "b"):
        folder = tmp_path / "2026-12-01" / sweep
        (folder / "0").mkdir(parents=True)
        (folder / "multirun.yaml").write_text("{}")
        ids.append(run_identity({}, folder / "0")["group"])
    assert ids[0] != ids[1]
    # an Optuna sweep writes no multirun.yaml: the sweep folder is passed in
    optuna = run_identity({}, tmp_path / "opt" / "3", sweep_dir=tmp_path / "opt")
    assert optuna["job_type"] == "sweep-job" and optuna["name"].endswith("#3")
    single = run_identity({}, tmp_path / "outputs" / "10-00-00")
    assert single["group"].startswith("run-") and single["job_type"] == "run"
    assert run_identity({"tracking": {"group": "mine"}}, tmp_path / "x")["group"] == "mine"


def test_llm_models_become_tags(tmp_path):
    config = {"policy": {"name": "llm"}, "team": {"compositions": ["DR"]},
              "structure": {"names": ["default"]},
              "llm": {"agent": {"model": "gpt-4o-mini"},
                      "collaborator": {"model": "collabsim/scripted"}}}
    identity = run_identity(config, tmp_path / "job")
    assert identity["name"] == "default/DR"
    assert {"agent:gpt-4o-mini", "collaborator:collabsim/scripted", "policy:llm"} <= set(
        identity["tags"])


def test_swept_settings_come_from_the_overrides_not_the_identifiers():
    config = {"policy": {"agent": {"deference": 0.75}}, "tasks": {"limit": 2}}
    swept = swept_settings(config, ["team=D", "structure=default", "tasks.limit=2",
                                    "policy.agent.deference=0.75", "sensitivity=deference_0.75",
                                    "run.progress=false"],
                           {"sensitivity": "deference_0.75", "team": "D"})
    assert swept == {"policy.agent.deference": 0.75, "sensitivity": "deference_0.75"}
    flat = run_config({"team": {"compositions": ["D", "R"], "profiles": {}}, **config},
                      "default", "R", swept)
    assert flat["team"] == "R" and "team.compositions" not in flat
    assert flat["policy.agent.deference"] == 0.75 and flat["tasks.limit"] == 2


def test_variant_summary_has_means_ses_and_counts():
    row = pd.Series({"Performance_mean": 0.75, "Performance_se": float("nan"), "n_tasks": 1,
                     "n_sessions": 3})
    assert variant_summary(row, ["Performance"]) == {"Performance": 0.75, "n_tasks": 1,
                                                     "n_sessions": 3}


def test_paired_scalars_name_each_variant_and_skip_missing_intervals():
    deltas = pd.DataFrame([
        {"structure": "scaffolded", "team": "DR", "deference": 0.5, "delta": 0.25,
         "ci_low": 0.1, "ci_high": 0.4, "n_tasks": 3, "n_pairs": 6},
        {"structure": "gated", "team": "DR", "deference": 0.5, "delta": -0.5,
         "ci_low": float("nan"), "ci_high": float("nan"), "n_tasks": 1, "n_pairs": 1},
    ])
    assert paired_scalars(deltas, ["deference"]) == {
        "paired/scaffolded/DR deference=0.5/delta": 0.25,
        "paired/scaffolded/DR deference=0.5/ci_low": 0.1,
        "paired/scaffolded/DR deference=0.5/ci_high": 0.4,
        "paired/scaffolded/DR deference=0.5/n_tasks": 3,
        "paired/scaffolded/DR deference=0.5/n_pairs": 6,
        "paired/gated/DR deference=0.5/delta": -0.5,
        "paired/gated/DR deference=0.5/n_tasks": 1,
        "paired/gated/DR deference=0.5/n_pairs": 1,
    }


def test_none_backend_is_a_no_op(tmp_path: Path):
    assert isinstance(make_tracker({"backend": "none"}, {}, tmp_path), NullTracker)


def test_unknown_backend_is_rejected(tmp_path: Path):
    with pytest.raises(ValueError, match="tracking.backend"):
        make_tracker({"backend": "mlflow"}, {}, tmp_path)


def test_missing_wandb_gives_an_install_hint(monkeypatch, tmp_path: Path):
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(RuntimeError, match=r"pip install 'collabsim\[wandb\]'"):
        make_tracker({"backend": "wandb"}, {}, tmp_path)


def test_the_report_noise_floor_is_a_summary_scalar_when_the_seeds_give_one():
    from types import SimpleNamespace

    from collabsim.tracking import report_summary

    empty = pd.DataFrame(columns=["structure", "team", "delta", "ci_low", "ci_high",
                                  "n_tasks", "n_pairs"])
    report = SimpleNamespace(sessions=[1, 2, 3], aggregate=[1], deltas=empty,
                             variants=SimpleNamespace(columns=()), noise_floor=0.308)
    assert report_summary(report) == {"sessions": 3, "variants": 1, "noise_floor": 0.308}
    report.noise_floor = float("nan")  # one seed per task: no floor, no key
    assert "noise_floor" not in report_summary(report)
