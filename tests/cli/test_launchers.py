"""Launchers: joblib and submitit_local run a sweep for real; SLURM off a cluster is a
one-line error naming submitit_local; SLURM and Ray configs compose; missing plugins give a
one-line install hint. (A real Ray sweep: tests/cli/test_ray_launcher.py, run by .ci/ray_check.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from collabsim.cli.launchers import SLURM_TARGET, launcher_unusable_here, missing_launcher_hint
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


@pytest.mark.slow
def test_submitit_local_sweep_runs_jobs_and_writes_the_report(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "-m", "launcher=submitit_local",
         "team=D,R", "structure=default", "tasks.limit=1", "run.progress=false",
         "run.show_sessions=false", "hydra.sweep.dir=sweep"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    sweep = tmp_path / "sweep"
    assert (sweep / ".submitit").is_dir(), "the jobs ran through submitit"
    jobs = pd.concat([pd.read_csv(sweep / j / "sessions.csv") for j in ("0", "1")])
    assert sorted(jobs["team"].unique()) == ["D", "R"]
    assert len(pd.read_csv(sweep / "report_sessions.csv")) == len(jobs) == 2
    assert (sweep / "report.md").is_file()


@pytest.mark.parametrize("override", ["launcher=slurm", "hydra/launcher=submitit_slurm"])
def test_slurm_off_a_cluster_is_one_line_naming_submitit_local(tmp_path, override, monkeypatch,
                                                              collabsim_cli):
    # a PATH with the interpreter's folder only: no sbatch/srun, as on a laptop
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    proc = collabsim_cli("run", "-m", override, "team=D,R", "structure=default", "tasks.limit=1",
                         cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "hydra/launcher=submitit_local" in proc.stderr and "sbatch" in proc.stderr
    assert not (tmp_path / "multirun").exists() and not (tmp_path / "outputs").exists()


def test_slurm_launcher_is_usable_where_sbatch_and_srun_exist(tmp_path, monkeypatch):
    for name in ("sbatch", "srun"):
        tool = tmp_path / name
        tool.write_text("#!/bin/sh\n")
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert launcher_unusable_here(SLURM_TARGET) is None
    (tmp_path / "srun").unlink()
    assert "`srun`" in launcher_unusable_here(SLURM_TARGET)
    assert launcher_unusable_here("hydra._internal.core_plugins.basic_launcher.BasicLauncher") \
        is None


def test_joblib_config_composes():
    cfg = composed("launcher=joblib")
    assert cfg.hydra.launcher._target_.endswith("JoblibLauncher")
    assert cfg.hydra.launcher.n_jobs == -1


def test_slurm_config_composes_to_the_submitit_launcher():
    cfg = composed("launcher=slurm", "hydra.launcher.partition=gpu")
    launcher = cfg.hydra.launcher
    assert launcher._target_ == "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"
    assert (launcher.timeout_min, launcher.cpus_per_task, launcher.partition) == (120, 2, "gpu")


def test_submitit_local_config_composes():
    launcher = composed("launcher=submitit_local").hydra.launcher
    assert launcher._target_.endswith("submitit_launcher.LocalLauncher")
    assert (launcher.timeout_min, launcher.cpus_per_task) == (120, 2)


def test_ray_config_composes_to_collabsims_ray_launcher():
    launcher = composed("launcher=ray").hydra.launcher
    assert launcher._target_ == "hydra_plugins.collabsim_launcher.ray_launcher.CollabsimRayLauncher"
    # by default: join a running cluster if there is one, else start a small local Ray
    assert launcher.ray.init.address is None
    assert launcher.local.object_store_memory <= 500_000_000
    assert launcher.ray.remote.num_cpus == 2
    cfg = composed("launcher=ray", "hydra.launcher.ray.init.address=ray://head:10001")
    assert cfg.hydra.launcher.ray.init.address == "ray://head:10001"


def test_hydra_finds_collabsims_ray_launcher_without_importing_ray(tmp_path):
    # Hydra imports every hydra_plugins module when it starts: this one must not need Ray
    # (from another folder: an editable install maps the package through an import hook
    # that Hydra's scan cannot list, which `collabsim run` makes up for)
    script = ("import sys, warnings\n"
              "warnings.simplefilter('error')\n"
              "sys.modules['ray'] = None\n"
              "from collabsim.cli.launchers import expose_collabsim_plugins\n"
              "expose_collabsim_plugins()\n"
              "from hydra.core.plugins import Plugins\n"
              "from hydra.plugins.launcher import Launcher\n"
              "print([p.__name__ for p in Plugins.instance().discover(Launcher)])\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "CollabsimRayLauncher" in proc.stdout and not proc.stderr


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
