"""The coordination ablation table and the scaffolded-vs-preassigned owner tables, on hand-built
session records and traces (the differences computed by hand), and both sections in a real
sweep's report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers.cli import collabsim_exit_code

from collabsim.reporting.ablation import (
    ABLATION_COLUMN,
    ablation_figure,
    ablation_options,
    ablation_table,
    settings_label,
    table_rows,
)
from collabsim.reporting.owner_tables import owner_pairs, owner_summary, summary_text, work_gates
from collabsim.reporting.variants import SETTINGS_COLUMN, Variants

# (option, structure, team, task, seed) -> Performance
PERFORMANCE = {
    # default: single 0.5 / 0.5; default/D t1 seeds 0.3 and 0.1 (mean 0.2), t2 0.5;
    # scaffolded/D t1 0.6 / 0.2 (mean 0.4), t2 0.5
    ("default", "single", "single", "t1", 0): 0.5, ("default", "single", "single", "t1", 1): 0.5,
    ("default", "single", "single", "t2", 0): 0.5,
    ("default", "default", "D", "t1", 0): 0.3, ("default", "default", "D", "t1", 1): 0.1,
    ("default", "default", "D", "t2", 0): 0.5,
    ("default", "scaffolded", "D", "t1", 0): 0.6, ("default", "scaffolded", "D", "t1", 1): 0.2,
    ("default", "scaffolded", "D", "t2", 0): 0.5,
    # no_loafing: no loss, scaffolding +0.5 on t2
    ("no_loafing", "single", "single", "t1", 0): 0.5,
    ("no_loafing", "single", "single", "t1", 1): 0.5,
    ("no_loafing", "single", "single", "t2", 0): 0.5,
    ("no_loafing", "default", "D", "t1", 0): 0.5, ("no_loafing", "default", "D", "t1", 1): 0.5,
    ("no_loafing", "default", "D", "t2", 0): 0.5,
    ("no_loafing", "scaffolded", "D", "t1", 0): 0.5,
    ("no_loafing", "scaffolded", "D", "t1", 1): 0.5,
    ("no_loafing", "scaffolded", "D", "t2", 0): 1.0,
}
# hand-computed: per task the seed mean of the differences, then the mean over tasks
EXPECTED = {
    ("default", "default - single"): ((0.2 - 0.5) + (0.5 - 0.5)) / 2,  # -0.15
    ("default", "scaffolded - default"): ((0.4 - 0.2) + (0.5 - 0.5)) / 2,  # +0.10
    ("no_loafing", "default - single"): 0.0,
    ("no_loafing", "scaffolded - default"): ((0.5 - 0.5) + (1.0 - 0.5)) / 2,  # +0.25
}
VARIANTS = Variants(("coordination",), ("coordination.loafing",))


def sessions_table() -> pd.DataFrame:
    rows = [{"coordination": o, "structure": s, "team": t, "task_id": task, "seed": seed,
             "status": "finished", "Performance": p}
            for (o, s, t, task, seed), p in PERFORMANCE.items()]
    return pd.DataFrame(rows)


def test_ablation_table_has_the_hand_computed_differences_per_option_and_team():
    sessions = sessions_table()
    table = ablation_table(sessions, VARIANTS, ablation_options(sessions, VARIANTS))
    assert len(table) == 4
    got = {(r[ABLATION_COLUMN], r["difference"]): r for _, r in table.iterrows()}
    assert set(got) == set(EXPECTED)
    for key, delta in EXPECTED.items():
        row = got[key]
        assert row["team"] == "D"
        assert row["delta"] == pytest.approx(delta)
        assert row["n_tasks"] == 2
        assert row["ci_low"] <= row["delta"] + 1e-12 <= row["ci_high"] + 2e-12
    # two tasks: the bootstrap resamples lie between the two per-task differences
    assert got[("default", "default - single")]["ci_low"] == pytest.approx(-0.3)
    assert got[("default", "default - single")]["ci_high"] == pytest.approx(0.0)
    assert got[("no_loafing", "default - single")][["ci_low", "ci_high"]].tolist() == [0, 0]
    assert not got[("no_loafing", "default - single")]["excludes_zero"]
    header, rows = table_rows(table, [])
    assert header == ["option", "team", "default - single", "scaffolded - default"]
    assert [r[:2] for r in rows] == [["default", "D"], ["no_loafing", "D"]]
    assert rows[0][2].startswith("-0.150 [-0.300, +0.000]")
    assert rows[1][3].startswith("+0.250 [+0.000, +0.500]")


def test_one_coordination_setting_gives_no_ablation_table():
    sessions = sessions_table()
    one = sessions[sessions["coordination"] == "default"]
    assert ablation_table(one, VARIANTS, ablation_options(one, VARIANTS)).empty


def test_store_only_sessions_are_labelled_by_their_coordination_settings():
    assert settings_label("") == "default"
    assert settings_label(json.dumps({"policy": {}})) == "default"
    assert settings_label(json.dumps({"coordination": {"loafing": 0.0,
                                                       "lost_updates": False}})) == (
        "loafing=0, lost_updates=false")
    sessions = pd.DataFrame({SETTINGS_COLUMN: ["", json.dumps({"coordination":
                                                                {"attention_messages": 0}})]})
    labels = ablation_options(sessions, Variants(("coordination.attention_messages",), ()))
    assert labels.tolist() == ["default", "attention_messages=0"]


def test_ablation_figure_is_written_as_png_and_pdf(tmp_path):
    sessions = sessions_table()
    table = ablation_table(sessions, VARIANTS, ablation_options(sessions, VARIANTS))
    path = ablation_figure(table, tmp_path / "coordination_ablation.png")
    assert path is not None and path.stat().st_size > 0
    assert path.with_suffix(".pdf").stat().st_size > 0
    assert ablation_figure(table.iloc[0:0], tmp_path / "none.png") is None


def write_trace(folder: Path, phases: list[tuple[str, dict[str, str]]]) -> Path:
    folder.mkdir(parents=True)
    lines = []
    for seq, (phase, gates) in enumerate(phases):
        lines.append(json.dumps({"seq": seq, "t_start": 0.0, "t_end": 0.0, "actor": "env",
                                 "actor_type": "env", "action_type": "PHASE_START",
                                 "args": {"phase": phase, "gates": gates}, "status": "ok",
                                 "observation": "", "refs": []}))
    (folder / "trace.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


PRESET = {"EDITOR_UPDATE": "R", "FINISH": "D"}


def test_work_gates_are_those_of_the_work_phase(tmp_path):
    chosen = write_trace(tmp_path / "a", [("build", {}), ("work", {"FINISH": "R"})])
    assert work_gates(chosen / "trace.jsonl") == {"FINISH": "R"}
    assert work_gates(write_trace(tmp_path / "b", [("build", {})]) / "trace.jsonl") is None
    assert work_gates(tmp_path / "missing.jsonl") is None


def test_owner_tables_of_paired_sessions_are_compared_with_their_performance(tmp_path):
    rows = []
    specs = [  # task, seed, structure, work gates, Performance
        ("t1", 0, "scaffolded", {"FINISH": "R", "EDITOR_UPDATE": "R"}, 0.8),  # differs
        ("t1", 0, "preassigned_gates", PRESET, 0.5),
        ("t2", 0, "scaffolded", dict(PRESET), 0.5),  # same table, same Performance
        ("t2", 0, "preassigned_gates", PRESET, 0.5),
        ("t3", 0, "scaffolded", dict(PRESET), 1.0),  # same table, Performance differs
        ("t3", 0, "preassigned_gates", PRESET, 0.0),
        ("t4", 0, "scaffolded", {"FINISH": "D"}, 0.5),  # no preassigned partner
    ]
    for task, seed, structure, gates, perf in specs:
        folder = write_trace(tmp_path / f"{task}-{structure}",
                             [*([("build", {})] if structure == "scaffolded" else []),
                              ("work", gates)])
        rows.append({"task_id": task, "team": "DR", "structure": structure, "seed": seed,
                     "status": "finished", "Performance": perf, "session_dir": str(folder),
                     ABLATION_COLUMN: "default"})
    pairs = owner_pairs(pd.DataFrame(rows), ["structure", "team", ABLATION_COLUMN])
    assert sorted(pairs["task_id"]) == ["t1", "t2", "t3"]
    by_task = pairs.set_index("task_id")
    assert by_task["tables_differ"].to_dict() == {"t1": True, "t2": False, "t3": False}
    assert by_task["performance_differs"].to_dict() == {"t1": True, "t2": False, "t3": True}
    assert json.loads(by_task.loc["t1", "chosen_gates"]) == {"EDITOR_UPDATE": "R",
                                                             "FINISH": "R"}
    total = owner_summary(pairs)
    assert total.iloc[0].tolist() == [3, 1, 2, 1]
    assert summary_text(total).startswith(
        "The owner table a scaffolded team chose (the gates of its work-phase PHASE_START) "
        "differs from the preassigned one in 1 of 3 pairs")
    assert "Performance differs in 2 of 3 pairs, 1 of them with differing owner tables" in (
        summary_text(total))
    per_team = owner_summary(pairs, ["team"])
    assert per_team.iloc[0].tolist() == ["DR", 3, 1, 2, 1]


def test_a_coordination_sweep_reports_the_ablation_and_the_owner_tables(tmp_path):
    """A real two-option multirun: the report has both sections and their files."""
    root = tmp_path / "multirun"
    code = collabsim_exit_code(
        ["run", "-m", "coordination=default,no_loafing", "team=single,D",
         "structure.names=[default,scaffolded,preassigned_gates]", "tasks.n_tasks=2",
         f"tasks.root={tmp_path / 'suite'}", "seeds=[0]", "run.progress=false",
         "hydra.callbacks.sweep_report.views=false", f"hydra.sweep.dir={root}"], cwd=tmp_path)
    assert code == 0
    text = (root / "report.md").read_text(encoding="utf-8")
    assert "## Coordination ablation" in text
    assert "## Owner tables: scaffolded vs preassigned gates" in text
    table = pd.read_csv(root / "report_ablation.csv")
    assert set(table[ABLATION_COLUMN]) == {"default", "no_loafing"}
    assert set(table["difference"]) == {"default - single", "scaffolded - default"}
    pairs = pd.read_csv(root / "report_owner_tables.csv")
    assert len(pairs) == 2 * 2  # 2 tasks x 2 options, team D, one seed
    assert (root / "figures" / "coordination_ablation.png").is_file()
    assert (root / "report_ablation.tex").read_text(encoding="utf-8").startswith(
        r"\begin{tabular}")
