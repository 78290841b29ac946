"""``collabsim run``: the Hydra app as a user runs it (a real subprocess)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def collabsim(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_run_prints_the_table_and_writes_outputs_under_the_hydra_folder(tmp_path):
    out = tmp_path / "job"
    proc = collabsim(
        "run",
        "tasks.limit=2",
        "run.progress=false",
        f"hydra.run.dir={out}",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "By structure and team" in proc.stdout
    for header in ("W_human", "W_total", "M_team", "H_init,norm", "A_profile", "C_wf", "S_hyp"):
        assert header in proc.stdout
    assert "14 sessions run" in proc.stdout  # 2 tasks x (single + 3 teams x 2 structures)
    assert (out / "sessions.csv").is_file() and (out / "report.txt").is_file()
    assert len(list((out / "sessions").glob("*/trace.jsonl"))) == 14
    assert (out / ".hydra" / "config.yaml").is_file()


def test_run_reports_a_bad_override_clearly(tmp_path):
    proc = collabsim("run", "team=XYZ", f"hydra.run.dir={tmp_path / 'j'}", cwd=tmp_path)
    assert proc.returncode != 0
    assert "team" in proc.stderr and "XYZ" in proc.stderr
