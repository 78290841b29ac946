"""``collabsim report`` and the sweep-report callback, on real scripted sweeps.

The sweep and ``collabsim report`` run in the test process (``collabsim_cli``: exit code and
file-descriptor output as a shell sees them); tests/cli/test_sweep_progress.py and
tests/tracking/test_tracking.py run multiruns through a real subprocess.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.cli import collabsim_exit_code

from collabsim.experiment.collect import ReportInputError, collect_sessions, find_inputs
from collabsim.experiment.sweep_report import build_report
from collabsim.reporting.paired import paired_differences
from collabsim.viewer import write_view

ID = ["task_id", "team", "structure", "seed", "policy"]
COMPARED = [*ID, "status", "turns", "W_human", "W_total", "M_team", "H_init_norm", "H_init_work", "C_wf",
            "S_hyp", "A_profile", "Performance", "hypothesis"]


N_SESSIONS = 3 * 2 * (1 + 3 * 2)  # 3 tasks x 2 seeds x (single + D, R, DR x 2 structures)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    """A real multirun: the single agent and D, R, DR under default and scaffolded, 3 tasks
    x 2 seeds.

    ``team=single`` runs in two jobs (once per structure value), so the same sessions appear
    twice and must be counted once.
    """
    root = tmp_path_factory.mktemp("sweep")
    code = collabsim_exit_code(["run", "-m", "team=single,D,R,DR", "structure=default,scaffolded",
                                "tasks.limit=3", "seeds=[0,1]", "run.progress=false",
                                f"hydra.sweep.dir={root / 'multirun'}"], cwd=root)
    assert code == 0
    return root / "multirun"


def per_job_tables(sweep: Path) -> pd.DataFrame:
    jobs = sorted(p.parent for p in sweep.glob("*/sessions.csv"))
    assert len(jobs) == 8
    return pd.concat([pd.read_csv(j / "sessions.csv") for j in jobs], ignore_index=True)


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    return df[COMPARED].sort_values(ID).reset_index(drop=True)


def test_multirun_ends_with_the_report_at_the_sweep_root(sweep):
    for name in ("report.md", "report.html", "report_sessions.csv", "report_aggregate.csv",
                 "report_aggregate.tex", "report_deltas.csv"):
        assert (sweep / name).is_file(), name
    combined = per_job_tables(sweep).drop_duplicates(ID)
    assert len(combined) == N_SESSIONS
    report = pd.read_csv(sweep / "report_sessions.csv")
    pd.testing.assert_frame_equal(canonical(report), canonical(combined))
    assert report["session_key"].is_unique


def test_report_aggregate_is_the_paper_table(sweep):
    from collabsim.reporting.tables import aggregate, format_table

    report = pd.read_csv(sweep / "report_sessions.csv")
    expected = format_table(aggregate(report), "markdown").strip()
    assert expected in (sweep / "report.md").read_text(encoding="utf-8")
    assert r"\begin{tabular}" in (sweep / "report_aggregate.tex").read_text(encoding="utf-8")


def test_figures_are_written_embedded_and_sessions_linked_to_views(tmp_path, sweep):
    report = build_report([sweep], tmp_path / "out", views=write_view)
    assert set(report.figures) == {"performance_by_structure_team", "h_init_by_structure",
                                   "activity", "performance_vs_h_init", "paired_differences"}
    for path in report.figures.values():
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert page.count("src='data:image/png;base64,") == 5
    assert report.views == len(report.sessions) == N_SESSIONS
    for link in report.sessions["view"]:
        assert (tmp_path / "out" / link).is_file()
        assert f"href='{link}'" in page


def test_figures_are_200_dpi_with_performance_bounded_by_one(sweep, monkeypatch, tmp_path):
    from PIL import Image

    from collabsim.reporting import figures

    for name in ("performance_by_structure_team", "paired_differences"):
        dpi = Image.open(sweep / "figures" / f"{name}.png").info["dpi"]
        assert min(dpi) >= 199.9
    limits = {}
    original = figures._save

    def keep(fig, path):
        limits[path.stem] = [ax.get_ylim() for ax in fig.axes]
        lines = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_label() == "single agent"]
        limits["reference"] = [ln.get_ydata()[0] for ln in lines]
        return original(fig, path)

    monkeypatch.setattr(figures, "_save", keep)
    agg = pd.read_csv(sweep / "report_aggregate.csv")
    figures.performance_by_structure_team(agg, tmp_path / "perf.png")
    assert limits["perf"] == [(0.0, 1.0)]
    single = agg[agg["team"] == "single"]["Performance_mean"].iloc[0]
    assert limits["reference"] == [pytest.approx(single)]
    # initiative: one [0, 1] panel over all events, one over the work phase
    figures.h_init_by_structure(agg, tmp_path / "h.png")
    assert limits["h"] == [(0.0, 1.0), (0.0, 1.0)]
    figures.h_init_by_structure(agg.drop(columns=["H_init_work_mean"]), tmp_path / "h1.png")
    assert limits["h1"] == [(0.0, 1.0)]


def test_scaffolded_minus_default_per_team_with_bootstrap_intervals(sweep):
    """Acceptance: team=D,R,DR structure=default,scaffolded -> a table and a figure of
    scaffolded - default per team with CIs, paired by task and seed."""
    deltas = pd.read_csv(sweep / "report_deltas.csv")
    vs_default = deltas[deltas["reference"] == "structure=default"]
    assert sorted(vs_default["team"]) == ["D", "DR", "R"]
    assert set(vs_default["structure"]) == {"scaffolded"}
    sessions = pd.read_csv(sweep / "report_sessions.csv")
    for _, row in vs_default.iterrows():
        team = sessions[sessions["team"] == row["team"]]
        wide = team.pivot_table(index=["task_id", "seed"], columns="structure",
                                values="Performance")
        per_task = (wide["scaffolded"] - wide["default"]).groupby(level="task_id").mean()
        assert row["delta"] == pytest.approx(per_task.mean())
        assert (row["n_tasks"], row["n_pairs"]) == (3, 6)
        assert row["ci_low"] <= row["delta"] <= row["ci_high"]
        assert per_task.min() - 1e-9 <= row["ci_low"] and row["ci_high"] <= per_task.max() + 1e-9
    vs_single = deltas[deltas["reference"] == "single agent"]
    assert len(vs_single) == 6  # every team variant against the single agent
    text = (sweep / "report.md").read_text(encoding="utf-8")
    assert "| structure=default | scaffolded | DR | 3 | 6 |" in text
    assert "![paired_differences](figures/paired_differences.png)" in text
    assert (sweep / "figures" / "paired_differences.pdf").is_file()


def test_baseline_option_chooses_the_reference(tmp_path, sweep, collabsim_cli):
    proc = collabsim_cli("report", str(sweep), "--out", str(tmp_path / "r"), "--no-views",
                         "--baseline", "structure=scaffolded", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    deltas = pd.read_csv(tmp_path / "r" / "report_deltas.csv")
    assert set(deltas["reference"]) == {"structure=scaffolded"}
    assert sorted(deltas["team"]) == ["D", "DR", "R"] and set(deltas["structure"]) == {"default"}
    proc = collabsim_cli("report", str(sweep), "--out", str(tmp_path / "bad"), "--no-views",
                         "--baseline", "structure=memory", cwd=tmp_path)
    assert proc.returncode == 2 and "--baseline structure=memory" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "bad").exists()


def test_a_store_alone_gives_the_same_rows_as_the_job(tmp_path, collabsim_cli):
    store = tmp_path / "store"
    proc = collabsim_cli("run", "team=D", "structure=default", "tasks.limit=2",
                         "run.progress=false", f"run.store={store}",
                         f"hydra.run.dir={tmp_path / 'job'}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    inputs = find_inputs([store])
    assert inputs.jobs == () and inputs.stores == (store.resolve(),)
    from_store = collect_sessions([store]).sessions
    from_job = pd.read_csv(tmp_path / "job" / "sessions.csv")
    pd.testing.assert_frame_equal(canonical(from_store), canonical(from_job), check_dtype=False)
    both = collect_sessions([tmp_path / "job", store])
    assert len(both.sessions) == len(from_job)  # the job's rows and the store's are one set


def test_paired_differences_pair_by_task_and_seed_with_bootstrap_interval():
    rows = []
    for task, (base, var) in enumerate([(0.0, 1.0), (0.5, 1.0), (1.0, 1.0), (0.0, 0.5)]):
        for seed in (0, 1):
            rows.append({"task_id": f"t{task}", "structure": "single", "team": "single",
                         "seed": seed, "Performance": base})
            rows.append({"task_id": f"t{task}", "structure": "default", "team": "D",
                         "seed": seed, "Performance": var})
    rows.append({"task_id": "t9", "structure": "default", "team": "D", "seed": 0,
                 "Performance": 0.0})  # no single-agent run of t9: not paired
    rows.append({"task_id": "t0", "structure": "default", "team": "D", "seed": 5,
                 "Performance": 0.0})  # no single-agent run of t0 with seed 5: not paired
    single = {"team": "single", "structure": "single"}
    deltas = paired_differences(pd.DataFrame(rows), ["structure", "team"], single,
                                n_boot=4000, seed=1)
    row = deltas.iloc[0]
    assert (row["structure"], row["team"], row["n_tasks"], row["n_pairs"]) == (
        "default", "D", 4, 8)
    assert row["delta"] == pytest.approx(np.mean([1.0, 0.5, 0.0, 0.5]))
    assert 0.0 <= row["ci_low"] < row["delta"] < row["ci_high"] <= 1.0
    no_base = pd.DataFrame([r for r in rows if r["team"] != "single"])
    assert paired_differences(no_base, ["structure", "team"], single).empty


def test_report_command_user_errors(tmp_path, collabsim_cli):
    proc = collabsim_cli("report", str(tmp_path / "missing"), cwd=tmp_path)
    assert proc.returncode == 2 and "missing" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = collabsim_cli("report", str(tmp_path / "empty"), "--out", str(tmp_path / "r"),
                         cwd=tmp_path)
    assert proc.returncode == 2 and "sessions.csv" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()
    with pytest.raises(ReportInputError):
        find_inputs([tmp_path / "empty"])


def test_report_command_over_a_sweep(tmp_path, sweep, collabsim_cli):
    proc = collabsim_cli("report", str(sweep), "--out", str(tmp_path / "r"), "--no-views",
                         cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{N_SESSIONS} sessions" in proc.stdout
    assert not (tmp_path / "r" / "views").exists()


def test_report_over_two_task_suites_splits_rows_counts_tasks_and_warns(
        tmp_path, discoverybench_root, capfd):
    """A generated and an archaeology run of the same team and structure: two rows, never one
    pooled row; every row says its task count; the command warns in one line."""
    common = ["team=D", "structure=default", "seeds=[0,1]", "run.progress=false"]
    assert collabsim_exit_code(["run", *common, "tasks.limit=2",
                                f"hydra.run.dir={tmp_path / 'gen'}"], cwd=tmp_path) == 0
    assert collabsim_exit_code(["run", *common, "tasks=discoverybench",
                                f"tasks.root={discoverybench_root}", "tasks.datasets=[archaeology]",
                                "tasks.limit=3", f"hydra.run.dir={tmp_path / 'arch'}"],
                               cwd=tmp_path) == 0
    capfd.readouterr()
    assert collabsim_exit_code(["report", str(tmp_path / "gen"), str(tmp_path / "arch"),
                                "--out", str(tmp_path / "rep"), "--no-views"],
                               cwd=tmp_path) == 0
    printed = capfd.readouterr().out
    warnings_printed = [line for line in printed.splitlines() if line.startswith("warning:")]
    assert len(warnings_printed) == 1 and "2 different task suites" in warnings_printed[0]
    assert "(2 tasks)" in warnings_printed[0] and "(3 tasks)" in warnings_printed[0]
    agg = pd.read_csv(tmp_path / "rep" / "report_aggregate.csv")
    assert len(agg) == 2 and sorted(agg["n_tasks"]) == [2, 3]
    assert agg["task_suite"].str.startswith("generated").sum() == 1
    assert agg["task_suite"].str.startswith("discoverybench").sum() == 1
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "| structure | team | task_suite | tasks |" in md
    assert md.count("2 different task suites") == 1
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "<th>tasks</th>" in html or ">tasks<" in html


def test_report_shows_seed_sd_noise_floor_and_pass_k(sweep):
    """The sweep's report (2 seeds) has the seed section, report_noise.csv and marks."""
    md = (sweep / "report.md").read_text(encoding="utf-8")
    assert "Seed-to-seed variance, noise floor and pass^k" in md
    noise = pd.read_csv(sweep / "report_noise.csv")
    assert {"seed_sd", "noise_floor", "pass^1", "pass^2"} <= set(noise.columns)
    assert (noise["seeds_max"] == 2).all() and noise["pass^2"].le(noise["pass^1"]).all()
    deltas = pd.read_csv(sweep / "report_deltas.csv")
    floor = noise["noise_floor"].max()
    assert list(deltas["below_noise_floor"]) == list(deltas["delta"].abs() < floor)


def test_report_prints_the_chance_baselines_beside_performance(sweep):
    md = (sweep / "report.md").read_text(encoding="utf-8")
    line = next(ln for ln in md.splitlines() if "Chance baselines" in ln)
    assert "query as hypothesis" in line and "another gold of the dataset" in line
    assert "canned non-answer" in line and "over 3 task(s)" in line
