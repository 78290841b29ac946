"""A job on DiscoveryBench tasks: answer keys found beside a clone's task folder, a run whose
tasks have no gold saying so in one line, and the chance baselines beside Performance."""

from __future__ import annotations

import math
from pathlib import Path

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run
from collabsim.metrics.baselines import BASELINE_COLUMNS
from tests.helpers.tasks import write_clone


def _run(tmp_path: Path, root: Path):
    cfg = compose_config(["tasks=discoverybench", f"tasks.root={root}", "team=single",
                          "seeds=[0]", f"run.store={tmp_path / 'store'}", "run.progress=false"])
    return run(cfg, tmp_path / "out")


def test_a_clones_answer_key_scores_the_sessions(tmp_path: Path) -> None:
    outcome = _run(tmp_path, write_clone(tmp_path, key=True))
    assert not outcome.sessions["Performance"].isna().any()
    assert "no gold hypothesis" not in outcome.report
    line = next(ln for ln in outcome.report.splitlines() if ln.startswith("Chance baselines"))
    assert "query as hypothesis" in line and "canned non-answer 0.00" in line
    for column in BASELINE_COLUMNS:
        assert column in outcome.sessions
    # the only task of its dataset: no other gold to paste in
    assert math.isnan(outcome.sessions["chance_other_gold"].iloc[0])


def test_a_run_without_golds_says_so_in_one_line(tmp_path: Path) -> None:
    outcome = _run(tmp_path, write_clone(tmp_path, key=False))
    assert outcome.sessions["Performance"].isna().all()
    lines = [ln for ln in outcome.report.splitlines() if "gold hypothesis" in ln]
    assert len(lines) == 1 and lines[0].startswith("No task of this run has a gold"), lines
    assert "eval/answer_key_" in lines[0]
    assert not any(ln.startswith("Chance baselines") for ln in outcome.report.splitlines())
