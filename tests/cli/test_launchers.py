"""Launchers: joblib runs a sweep for real; SLURM and Ray configs compose; missing plugins
give a one-line install hint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from collabsim.cli.launchers import missing_launcher_hint
from collabsim.cli.run_app import CONFIG_DIR


def composed(*overrides: str):
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        return compose("config", overrides=list(overrides), return_hydra_config=True)


def test_joblib_sweep_runs_jobs_in_worker_processes_and_writes_the_report(tmp_path):
    sweep = tmp_path / "multirun"
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "-m", "launcher=joblib",
         "hydra.launcher.n_jobs=2", "team=D,R", "structure=default", "tasks.limit=2",
         "run.progress=false", f"hydra.sweep.dir={sweep}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Joblib.Parallel(n_jobs=2" in proc.stdout + proc.stderr
    jobs = pd.concat([pd.read_csv(sweep / j / "sessions.csv") for j in ("0", "1")])
    assert sorted(jobs["team"].unique()) == ["D", "R"]
    report = pd.read_csv(sweep / "report_sessions.csv")
    assert len(report) == len(jobs) == 4
    assert (sweep / "report.md").is_file()


def test_joblib_config_composes():
    cfg = composed("launcher=joblib")
    assert cfg.hydra.launcher._target_.endswith("JoblibLauncher")
    assert cfg.hydra.launcher.n_jobs == -1


def test_slurm_config_composes_to_the_submitit_launcher():
    cfg = composed("launcher=slurm", "hydra.launcher.partition=gpu")
    launcher = cfg.hydra.launcher
    assert launcher._target_ == "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"
    assert (launcher.timeout_min, launcher.cpus_per_task, launcher.partition) == (120, 2, "gpu")


def test_ray_config_composes_to_the_ray_launcher():
    cfg = composed("launcher=ray", "hydra.launcher.ray.init.address=ray://head:10001")
    launcher = cfg.hydra.launcher
    assert launcher._target_ == "hydra_plugins.hydra_ray_launcher.ray_launcher.RayLauncher"
    assert launcher.ray.init.address == "ray://head:10001"
    assert launcher.ray.remote.num_cpus == 2


def test_sweep_report_callback_is_configured():
    cfg = composed()
    assert cfg.hydra.callbacks.sweep_report._target_ == (
        "collabsim.cli.sweep_callback.SweepReportCallback")


@pytest.mark.parametrize("override, extra", [
    ("launcher=slurm", "collabsim[slurm]"),
    ("hydra/launcher=submitit_slurm", "collabsim[slurm]"),
    ("launcher=ray", "collabsim[ray]"),
])
def test_missing_plugin_gives_a_one_line_install_hint(tmp_path, override, extra):
    plugin = ("hydra_plugins.hydra_ray_launcher" if "ray" in override
              else "hydra_plugins.hydra_submitit_launcher")
    # a None entry in sys.modules makes the import fail exactly as an absent package does
    script = (f"import sys; sys.modules[{plugin!r}] = None\n"
              "from collabsim.cli.main import main\n"
              f"raise SystemExit(main(['run', '-m', {override!r}, 'team=D']))\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2
    assert extra in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (Path(tmp_path) / "multirun").exists()


def test_installed_or_unrelated_launchers_need_no_hint():
    assert missing_launcher_hint(["launcher=joblib", "team=D"]) is None
    assert missing_launcher_hint(["launcher=local", "structure=default"]) is None
