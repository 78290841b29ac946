"""experiments/train_agent.py: a short PPO run end to end, and its user errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "train_agent.py"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


def test_a_missing_real_task_folder_is_one_line_and_exit_2(tmp_path):
    done = _run("--real-tasks", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"),
                cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--real-tasks" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_short_training_run_writes_curve_evaluation_and_cis(tmp_path):
    out = tmp_path / "run"
    done = _run("--timesteps", "256", "--eval-seeds", "1", "--no-real", "--team", "D",
                "--max-turns", "8", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ppo - random (paired)" in done.stdout and "95% CI" in done.stdout
    for name in ("learning_curve.png", "evaluation.csv", "summary.json", "model.zip"):
        assert (out / name).exists(), name
    summary = json.loads((out / "summary.json").read_text())
    held = summary["held-out generated"]["performance"]
    assert held["n_episodes"] == 10
    for policy in ("ppo", "random", "scripted"):
        lo, hi = held[policy]["ci95"]
        assert 0.0 <= lo <= held[policy]["mean"] <= hi <= 1.0
    assert held["scripted"]["mean"] > held["random"]["mean"], "the scripted agent beats chance"
