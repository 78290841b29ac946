"""A sweep draws one progress bar for all its jobs; the jobs draw none."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from collabsim.cli.sweep_progress import SweepProgress


def test_a_sweep_draws_one_bar_with_the_planned_total(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "-m", "team=D,R",
         "structure=default", "tasks.limit=2", "hydra.callbacks.sweep_report.views=false",
         f"hydra.sweep.dir={tmp_path / 'multirun'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    frames = [f for f in re.split(r"[\r\n]", proc.stderr) if "session" in f and "|" in f]
    assert frames and all(f.startswith("sweep:") for f in frames)  # no per-job bar
    assert frames[-1].startswith("sweep: 100%") and "4/4" in frames[-1]


def test_the_bar_counts_results_under_the_sweep_and_a_shared_store(tmp_path):
    def finish(folder: Path, name: str) -> None:
        (folder / "sessions" / name).mkdir(parents=True)
        (folder / "sessions" / name / "result.json").write_text("{}")

    sweep, store = tmp_path / "sweep", tmp_path / "store"
    finish(store, "earlier")  # finished before the sweep: not counted
    progress = SweepProgress(sweep, store, total=3).start()
    finish(sweep / "0", "a")
    finish(sweep / "1", "b")
    finish(store, "c")
    progress.stop()
    assert progress.bar.n == 3
