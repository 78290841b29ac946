"""``collabsim report`` and the sweep-report callback, on real scripted sweeps."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from collabsim.experiment.collect import ReportInputError, collect_sessions, find_inputs
from collabsim.experiment.sweep_report import build_report, paired_deltas

ID = ["task_id", "team", "structure", "seed", "policy"]
COMPARED = [*ID, "status", "turns", "W_human", "W_total", "M_team", "H_init_norm", "C_wf",
            "S_hyp", "A_profile", "Performance", "hypothesis"]


def collabsim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "collabsim.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    """A real multirun: single and D under default and scaffolded, 3 tasks x 2 seeds.

    ``team=single`` runs in two jobs (once per structure value), so the same sessions appear
    twice and must be counted once.
    """
    root = tmp_path_factory.mktemp("sweep")
    proc = collabsim("run", "-m", "team=single,D", "structure=default,scaffolded",
                     "tasks.limit=3", "seeds=[0,1]", "run.progress=false",
                     f"hydra.sweep.dir={root / 'multirun'}", cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root / "multirun"


def per_job_tables(sweep: Path) -> pd.DataFrame:
    jobs = sorted(p.parent for p in sweep.glob("*/sessions.csv"))
    assert len(jobs) == 4
    return pd.concat([pd.read_csv(j / "sessions.csv") for j in jobs], ignore_index=True)


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    return df[COMPARED].sort_values(ID).reset_index(drop=True)


def test_multirun_ends_with_the_report_at_the_sweep_root(sweep):
    for name in ("report.md", "report.html", "report_sessions.csv", "report_aggregate.csv",
                 "report_aggregate.tex", "report_deltas.csv"):
        assert (sweep / name).is_file(), name
    combined = per_job_tables(sweep).drop_duplicates(ID)
    assert len(combined) == 3 * 2 * 3  # single, default/D, scaffolded/D x 3 tasks x 2 seeds
    report = pd.read_csv(sweep / "report_sessions.csv")
    pd.testing.assert_frame_equal(canonical(report), canonical(combined))
    assert report["session_key"].is_unique


def test_report_aggregate_is_the_paper_table(sweep):
    from collabsim.reporting.tables import aggregate, format_table

    report = pd.read_csv(sweep / "report_sessions.csv")
    expected = format_table(aggregate(report), "markdown")
    assert expected in (sweep / "report.md").read_text(encoding="utf-8")
    assert r"\begin{tabular}" in (sweep / "report_aggregate.tex").read_text(encoding="utf-8")


def test_figures_are_written_embedded_and_sessions_linked_to_views(tmp_path, sweep):
    report = build_report([sweep], tmp_path / "out")
    assert set(report.figures) == {"performance_by_structure_team", "h_init_by_structure",
                                   "activity", "performance_vs_h_init", "deltas_vs_single"}
    for path in report.figures.values():
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert page.count("src='data:image/png;base64,") == 5
    assert report.views == len(report.sessions) == 18
    for link in report.sessions["view"]:
        assert (tmp_path / "out" / link).is_file()
        assert f"href='{link}'" in page
    assert len(report.deltas) == 2 and set(report.deltas["team"]) == {"D"}


def test_a_store_alone_gives_the_same_rows_as_the_job(tmp_path):
    store = tmp_path / "store"
    proc = collabsim("run", "team=D", "structure=default", "tasks.limit=2", "run.progress=false",
                     f"run.store={store}", f"hydra.run.dir={tmp_path / 'job'}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    inputs = find_inputs([store])
    assert inputs.jobs == () and inputs.stores == (store.resolve(),)
    from_store = collect_sessions([store]).sessions
    from_job = pd.read_csv(tmp_path / "job" / "sessions.csv")
    pd.testing.assert_frame_equal(canonical(from_store), canonical(from_job), check_dtype=False)
    both = collect_sessions([tmp_path / "job", store])
    assert len(both.sessions) == len(from_job)  # the job's rows and the store's are one set


def test_paired_deltas_with_bootstrap_interval():
    rows = []
    for task, (base, var) in enumerate([(0.0, 1.0), (0.5, 1.0), (1.0, 1.0), (0.0, 0.5)]):
        for seed in (0, 1):
            rows.append({"task_id": f"t{task}", "structure": "single", "team": "single",
                         "seed": seed, "Performance": base})
            rows.append({"task_id": f"t{task}", "structure": "default", "team": "D",
                         "seed": seed, "Performance": var})
    rows.append({"task_id": "t9", "structure": "default", "team": "D", "seed": 0,
                 "Performance": 0.0})  # no single-agent run of t9: not paired
    deltas = paired_deltas(pd.DataFrame(rows), n_boot=4000, seed=1)
    row = deltas.iloc[0]
    assert (row["structure"], row["team"], row["n_tasks"]) == ("default", "D", 4)
    assert row["delta"] == pytest.approx(np.mean([1.0, 0.5, 0.0, 0.5]))
    assert 0.0 <= row["ci_low"] < row["delta"] < row["ci_high"] <= 1.0
    no_base = pd.DataFrame([r for r in rows if r["team"] != "single"])
    assert paired_deltas(no_base).empty


def test_report_command_user_errors(tmp_path):
    proc = collabsim("report", str(tmp_path / "missing"), cwd=tmp_path)
    assert proc.returncode == 2 and "missing" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = collabsim("report", str(tmp_path / "empty"), "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert proc.returncode == 2 and "sessions.csv" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()
    with pytest.raises(ReportInputError):
        find_inputs([tmp_path / "empty"])


def test_report_command_over_a_sweep(tmp_path, sweep):
    proc = collabsim("report", str(sweep), "--out", str(tmp_path / "r"), "--no-views",
                     cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "18 sessions" in proc.stdout
    assert not (tmp_path / "r" / "views").exists()
