"""Report variants are keyed by every swept setting: sessions of different settings are
never pooled, and the swept setting names the table columns and figures."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers.cli import collabsim_exit_code

from collabsim.reporting.variants import (
    OVERRIDES_COLUMN,
    SETTINGS_COLUMN,
    derive_variants,
    flatten,
)

SETTING = "policy.agent.mistakes.wrong_column_variant"


@pytest.fixture(scope="module")
def setting_sweep(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("setting_sweep")
    code = collabsim_exit_code(["run", "-m", f"{SETTING}=0,1", "team=D", "structure=default",
                                "tasks.limit=3", "seeds=[0,1]", "run.progress=false",
                                "hydra.callbacks.sweep_report.views=false",
                                f"hydra.sweep.dir={root / 'multirun'}"], cwd=root)
    assert code == 0
    return root / "multirun"


def test_a_swept_setting_gives_two_variants_never_pooled(tmp_path, setting_sweep, collabsim_cli):
    """Acceptance: ``run -m policy.agent.mistakes.wrong_column_variant=0,1 team=D
    structure=default`` then ``report``: two variants named by the setting."""
    proc = collabsim_cli("report", str(setting_sweep), "--out", str(tmp_path / "r"),
                         "--no-views", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2 variants" in proc.stdout
    agg = pd.read_csv(tmp_path / "r" / "report_aggregate.csv")
    assert list(agg[SETTING]) == [0, 1]
    for value in (0, 1):
        job = next(j for j in setting_sweep.glob("*/sessions.csv")
                   if f"{SETTING}={value}" in (j.parent / ".hydra" / "overrides.yaml").read_text())
        own = pd.read_csv(job)
        row = agg[agg[SETTING] == value].iloc[0]
        per_task = own.groupby("task_id")["Performance"].mean()
        assert row["Performance_mean"] == pytest.approx(per_task.mean())
        assert row["n_sessions"] == len(own) == 6
    sessions = pd.read_csv(tmp_path / "r" / "report_sessions.csv")
    assert sessions.groupby(SETTING).size().to_dict() == {0: 6, 1: 6}
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert f"| structure | team | {SETTING} |" in text
    assert "2 variant(s)" in text and f"swept setting(s) {SETTING}" in text
    assert (tmp_path / "r" / "figures" / "performance_vs_wrong_column_variant.png").is_file()


def test_the_sweep_callback_report_keeps_the_settings_apart(setting_sweep):
    agg = pd.read_csv(setting_sweep / "report_aggregate.csv")
    assert len(agg) == 2 and SETTING in agg


def _table(settings: list[dict], overrides: list[dict | None]) -> pd.DataFrame:
    return pd.DataFrame({
        "structure": ["default"] * len(settings), "team": ["D"] * len(settings),
        SETTINGS_COLUMN: [json.dumps(s) for s in settings],
        OVERRIDES_COLUMN: ["" if o is None else json.dumps(o) for o in overrides],
    })


def test_a_config_group_override_names_the_variants():
    settings = [{"policy": {"agent": {"deference": d}, "collaborator": {"e": e}}}
                for d, e in ((0.5, 0.1), (0.75, 0.1), (0.5, 0.3), (0.5, 0.3))]
    overrides = [{"sensitivity": n, "note": x} for n, x in (
        ("deference_0.50", "a"), ("deference_0.75", "a"), ("d_error_0.30", "a"),
        ("d_error_0.30", "b"))]  # note differs between jobs of one setting: it names nothing
    table, variants = derive_variants(_table(settings, overrides))
    assert variants.columns == ("sensitivity",)
    assert set(variants.swept) == {"policy.agent.deference", "policy.collaborator.e"}
    assert list(table["sensitivity"]) == ["deference_0.50", "deference_0.75", "d_error_0.30",
                                          "d_error_0.30"]


def test_every_sampled_parameter_of_a_trial_is_a_column():
    settings = [{"policy": {"agent": {"deference": d, "patience_seconds": p}},
                 "structure_overrides": {"preassigned_gates": {"gates": {"FINISH": g}}}}
                for d, p, g in ((0.1, 60, "D"), (0.7, 300, "R"))]
    overrides = [{"policy.agent.deference": d, "policy.agent.patience_seconds": p,
                  "structure.overrides.preassigned_gates.gates.FINISH": g}
                 for d, p, g in ((0.1, 60, "D"), (0.7, 300, "R"))]
    table, variants = derive_variants(_table(settings, overrides))
    assert variants.columns == ("policy.agent.deference", "policy.agent.patience_seconds",
                                "structure.overrides.preassigned_gates.gates.FINISH")
    assert list(table["policy.agent.patience_seconds"]) == [60, 300]


def test_without_overrides_the_differing_settings_are_the_columns():
    settings = [{"policy": {"agent": {"deference": 0.5}}, "max_turns": 40},
                {"policy": {"agent": {"deference": 0.5}}, "max_turns": 20}]
    table, variants = derive_variants(_table(settings, [None, None]))
    assert variants.columns == ("run.max_turns",)
    assert list(table["run.max_turns"]) == [40, 20]


def test_overrides_that_do_not_separate_the_settings_are_not_used():
    settings = [{"a": 1}, {"a": 2}, {"a": 3}]
    table, variants = derive_variants(_table(settings, [{"x": "p"}, {"x": "p"}, {"x": "q"}]))
    assert variants.columns == ("a",)  # x=p holds two settings: they must not be pooled


def test_identical_settings_add_no_column():
    table, variants = derive_variants(_table([{"a": 1}, {"a": 1.0}], [{}, {}]))
    assert variants.columns == () and variants.by == ("structure", "team")


def test_flatten_uses_config_names():
    flat = flatten({"max_turns": 40, "structure_overrides": {"memory": {"x": [1]}},
                    "profiles": {}})
    assert flat == {"run.max_turns": 40, "structure.overrides.memory.x": "[1]",
                    "team.profiles": "{}"}


def test_line_plot_against_a_numeric_setting_with_the_single_agent_as_reference(
        tmp_path, monkeypatch):
    from collabsim.reporting import figures

    agg = pd.DataFrame({
        "structure": ["default"] * 3 + ["single"], "team": ["D"] * 3 + ["single"],
        "rate": [0.0, 0.5, 1.0, 0.0], "n_tasks": [4] * 4,
        "Performance_mean": [0.9, 0.6, 0.2, 0.7], "Performance_se": [0.05, 0.1, 0.1, 0.1],
        "Performance_n": [4] * 4})
    drawn = {}
    original = figures._save

    def keep(fig, path):
        ax = fig.axes[0]
        drawn["lines"] = {ln.get_label(): list(ln.get_ydata()) for ln in ax.get_lines()}
        drawn["ylim"] = ax.get_ylim()
        return original(fig, path)

    monkeypatch.setattr(figures, "_save", keep)
    path = figures.metric_vs_setting(agg, "rate", ["rate"], tmp_path / "perf_vs_rate.png")
    assert path.is_file() and path.with_suffix(".pdf").is_file()
    assert drawn["lines"]["default/D"] == [0.9, 0.6, 0.2]
    assert drawn["lines"]["single agent"] == [0.7, 0.7]
    assert drawn["ylim"] == (0.0, 1.0)
