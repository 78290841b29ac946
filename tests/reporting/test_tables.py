"""Results tables: per-session rows, seed-then-task aggregation, printed layouts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from helpers.participants import CAREFUL_AGENT

from collabsim.core.events import TraceEvent
from collabsim.metrics.initiative import initiative_counts
from collabsim.metrics.reference import load_reference, packaged_reference_path
from collabsim.reporting.tables import (
    METRIC_COLUMNS,
    aggregate,
    format_table,
    metrics_table,
    session_metrics_row,
)
from collabsim.tasks.discoverybench import load_task


def hand_example() -> pd.DataFrame:
    """2 tasks x 2 seeds for (default, D); 1 task x 2 seeds for (single, solo)."""
    rows = [
        # structure, team, task, seed, W_total, Performance, A_profile
        ("default", "D", "t1", 0, 4, 0.0, 0.5),
        ("default", "D", "t1", 1, 6, 1.0, 0.7),
        ("default", "D", "t2", 0, 10, 1.0, 0.9),
        ("default", "D", "t2", 1, 12, 1.0, 0.9),
        ("single", "single", "t1", 0, 3, 0.5, math.nan),
        ("single", "single", "t1", 1, 5, 1.0, math.nan),
    ]
    df = pd.DataFrame(rows, columns=["structure", "team", "task_id", "seed", "W_total",
                                     "Performance", "A_profile"])
    for m in METRIC_COLUMNS:
        if m not in df:
            df[m] = 1.0
    return df


def test_aggregate_averages_seeds_first_then_se_over_tasks() -> None:
    agg = aggregate(hand_example())
    d = agg[(agg.structure == "default") & (agg.team == "D")].iloc[0]
    # per-task seed means: W_total t1 = 5, t2 = 11 -> mean 8, SE = std([5, 11]) / sqrt(2) = 3
    assert d["W_total_mean"] == pytest.approx(8.0)
    assert d["W_total_se"] == pytest.approx(3.0)  # pooled sessions would give 1.826
    # Performance t1 = 0.5, t2 = 1.0 -> 0.75, SE = 0.25
    assert d["Performance_mean"] == pytest.approx(0.75)
    assert d["Performance_se"] == pytest.approx(0.25)
    assert d["A_profile_mean"] == pytest.approx(0.75)  # (0.6 + 0.9) / 2
    assert d["n_tasks"] == 2 and d["n_sessions"] == 4
    s = agg[agg.structure == "single"].iloc[0]
    assert s["W_total_mean"] == pytest.approx(4.0)
    assert math.isnan(s["W_total_se"])  # one task: SE undefined
    assert math.isnan(s["A_profile_mean"]) and s["A_profile_n"] == 0
    assert list(agg.structure) == ["single", "default"]  # design order


def test_text_layout() -> None:
    text = format_table(aggregate(hand_example()))
    lines = text.splitlines()
    header = lines[0].split("  ")
    assert [h.strip() for h in header if h.strip()] == [
        "structure", "team", "tasks", "W_human", "W_total", "M_team", "H_init,norm",
        "H_init,norm (work)", "A_profile", "C_wf", "S_hyp", "Performance"]
    assert set(lines[1]) <= {"-", " "}
    single, default = lines[2], lines[3]
    assert single.startswith("single") and "4.0 (–)" in single
    assert default.startswith("default") and "8.0 (3.0)" in default and "0.75 (0.25)" in default
    # every row says how many tasks it averages over
    agg = aggregate(hand_example())
    assert [line.split()[2] for line in (single, default)] == [str(n) for n in agg["n_tasks"]]
    assert len({len(line) for line in lines[:2]}) == 1


def test_structure_printed_once_per_group() -> None:
    df = pd.concat([hand_example(), hand_example().assign(team="R")])
    lines = format_table(aggregate(df[df.structure == "default"])).splitlines()[2:]
    assert lines[0].startswith("default") and lines[1].startswith(" ")
    assert lines[1].split()[0] == "R"


def test_markdown_latex_csv() -> None:
    agg = aggregate(hand_example())
    md = format_table(agg, "markdown").splitlines()
    assert md[0].startswith("| structure | team | tasks | W_human") and md[1].startswith("|:---")
    assert "| default | D |" in md[3] and "0.75 (0.25)" in md[3]
    tex = format_table(agg, "latex")
    assert tex.startswith(r"\begin{tabular}{llrrrrrrrrrr}") and r"\midrule" in tex
    assert r"$H_\mathrm{init,norm}^\mathrm{work}$" in tex
    assert "single & single" in tex and "(--)" in tex
    csv_text = format_table(agg, "csv").splitlines()
    assert csv_text[0].startswith("structure,team,n_tasks,W_human_mean,W_human_se")
    rows = {line.split(",")[0]: line.split(",") for line in csv_text[1:]}
    header = csv_text[0].split(",")
    default = dict(zip(header, rows["default"], strict=True))
    assert float(default["W_total_mean"]) == pytest.approx(8.0)
    assert float(default["W_total_se"]) == pytest.approx(3.0)
    assert float(default["Performance_mean"]) == pytest.approx(0.75)


def test_session_metrics_row(discoverybench_root: Path) -> None:
    task = load_task(discoverybench_root, "archaeology/1/0")
    ref = load_reference(packaged_reference_path(task.task_id))
    claim = "Around 2300 BCE, the number of daggers began to increase for the first time."
    events = [
        TraceEvent(0, 0, 0, "env", "env", "SESSION_START"),
        TraceEvent(1, 0, 1, "D", "human", "SEND_TEAMMATE_MESSAGE",
                   {"message": "Please compute the first rise of the Dagger column with diff."}),
        TraceEvent(2, 1, 2, "agent", "ai", "EXECUTE_CODE",
                   {"code": "d = b['Dagger'].diff()\nprint('first rise:', int(d[d > 0].index[0]))"},
                   "ok", "Dagger first rise: -2300"),
        TraceEvent(3, 2, 3, "agent", "ai", "EDITOR_UPDATE", {"text": claim}),
        TraceEvent(4, 3, 3, "agent", "ai", "FINISH"),
        TraceEvent(5, 3, 3, "env", "env", "SESSION_END", {"status": "finished"}),
    ]
    result = {"task_id": task.task_id, "team": "D", "structure": "default", "seed": 0,
              "policy": "scripted", "status": "finished", "submitted_hypothesis": claim}
    row = session_metrics_row(result, events, task, ref)
    assert (row["W_human"], row["W_total"], row["M_team"]) == (0, 3, 1)
    assert row["Performance"] == 1.0 and row["context_recall"] == 1.0
    assert row["H_init_norm"] == pytest.approx(-(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3)) / math.log(2))
    assert row["C_wf"] == 1.0 and row["S_hyp"] == 1.0 and row["A_profile"] == 1.0
    solo = session_metrics_row({**result, "team": "single", "structure": "single"}, events[2:], task, ref)
    assert math.isnan(solo["H_init_norm"]) and math.isnan(solo["A_profile"])
    assert set(METRIC_COLUMNS) <= set(row)


def test_rows_from_a_real_engine_session(tmp_path: Path) -> None:
    from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
    from collabsim.participants.team import team_from_dict
    from collabsim.session.config import SessionConfig
    from collabsim.session.engine import run_session_sync
    from collabsim.session.structures import builtin_structure
    from collabsim.tasks.discoverybench import load_tasks
    from collabsim.tasks.generator import generate_suite

    task = load_tasks(generate_suite(tmp_path / "suite", n_tasks=1, seed=5)).tasks[0]
    team = team_from_dict("DR")
    participants = {"agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT)}
    # error-free collaborators that always check and confirm (no behavioural model), so the
    # counts below are the protocol's, not a draw of who stays silent
    careful = {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": None,
               "message_propensity": 1.0}
    participants.update({p.key: ScriptedCollaborator(p, seed=0, params=careful)
                         for p in team.collaborators})
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)
    trace = tmp_path / "trace.jsonl"
    result = run_session_sync(config, participants, trace)
    events = [TraceEvent.from_dict(json.loads(line))
              for line in trace.read_text().splitlines()]
    assert task.reference_workflow_path is not None
    row = session_metrics_row(result, events, task, load_reference(task.reference_workflow_path))
    assert row["status"] == "finished" and row["team"] == "DR"
    assert row["Performance"] == 1.0  # the scripted agent without mistakes is right
    # The task asks where amber's highest sustained values begin (3900 BCE). The agent runs an
    # inspect and a compute cell, drafts, announces and finishes; D recomputes; D and R
    # confirm: W_total = 4 agent actions + D's cell, M_team = 3 messages.
    assert (row["W_human"], row["W_total"], row["M_team"]) == (1, 5, 3)
    # D recomputes once the draft is there, so its cell repeats the agent's compute cell (no
    # initiative; when D computed alongside the agent, its cell came first and was the new one)
    counts = initiative_counts(events, ["agent", "D", "R"])
    assert counts == {"agent": 4, "D": 1, "R": 1}
    p = [4 / 6, 1 / 6, 1 / 6]
    assert row["H_init_norm"] == pytest.approx(-sum(x * math.log(x) for x in p) / math.log(3))
    # every reference node is met: Amber_inter selected and printed, the rolling minimum
    # printed at -3900, "sustained" and "3900" in the draft
    assert row["C_wf"] == 1.0 and row["S_hyp"] == 1.0 and row["A_profile"] == 1.0
    non_messages = sum(n for actor in result.counts.values() for a, n in actor.items()
                       if a != "SEND_TEAMMATE_MESSAGE")
    assert row["W_total"] == non_messages
    table = metrics_table([result], {task.task_id: task})  # reads the trace file itself
    assert table.iloc[0][list(METRIC_COLUMNS)].tolist() == pytest.approx(
        [row[m] for m in METRIC_COLUMNS])


def test_aggregate_leaves_infra_error_sessions_out():
    """Every aggregate (tables, report, wandb summary) is built by ``aggregate``: a session
    whose sandbox failed (status infra_error) counts in none of them (issue 23, item 4)."""
    import pandas as pd

    from collabsim.reporting.tables import aggregate

    sessions = pd.DataFrame({
        "task_id": ["t1", "t2", "t3"], "structure": ["default"] * 3, "team": ["D"] * 3,
        "status": ["finished", "finished", "infra_error"], "Performance": [1.0, 0.0, 0.0]})
    row = aggregate(sessions, metrics=["Performance"]).iloc[0]
    assert (row["n_sessions"], row["n_tasks"], row["Performance_mean"]) == (2, 2, 0.5)
