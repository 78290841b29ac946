"""A raw column with no missing bin is its gap-filled series: D does not call it wrong."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.executors import InProcessExecutor, run_cell
from helpers.participants import CAREFUL_AGENT

from collabsim.domain.analysis_helpers import table
from collabsim.participants.analysis import AnalysisResult, MistakeModel, inspect_cell
from collabsim.participants.cells import compute_cell, parse_missing_bins, variants_agree
from collabsim.participants.claims import check_numbers
from collabsim.participants.reading import read_brief
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile, team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.model import Task

EXACT: dict[str, Any] = {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": None}


@pytest.mark.parametrize(("used", "own", "missing", "agree"), [
    (("Dagger",), ("Dagger_inter",), {"Dagger": 0}, True),
    (("Dagger_inter",), ("Dagger",), {"Dagger": 0}, True),  # either side may be the raw one
    (("Dagger", "Amber_inter"), ("Dagger_inter", "Amber_inter"), {"Dagger": 0}, True),
    (("Dagger",), ("Dagger_inter",), {"Dagger": 3}, False),   # gaps: another series
    (("Dagger",), ("Dagger_inter",), {}, False),              # not inspected: not known
    (("Dagger",), ("Dagger_inter",), {"Dagger_inter": 0}, False),  # the raw one decides
    (("Amber_recal_inter",), ("Amber_inter",), {"Amber": 0}, False),  # another dating
    (("Amber",), ("Dagger_inter",), {"Amber": 0}, False),     # another variable
    (("Dagger_inter",), ("Dagger_inter",), {}, False),        # nothing differs
])
def test_variants_agree_only_for_a_gap_free_raw_twin(
        used: tuple[str, ...], own: tuple[str, ...], missing: dict[str, int],
        agree: bool) -> None:
    assert variants_agree(used, own, missing) is agree


def test_missing_bins_are_read_from_an_inspect_cells_output() -> None:
    output = ("rows 3601 bins 37 from -4100 to -500\n"
              "Dagger_inter missing bins: 0 max 1.0 min 0.0\n"
              "Dagger missing bins: 4 max 1.0 min 0.0\n")
    assert parse_missing_bins(output) == {"Dagger_inter": 0, "Dagger": 4}
    assert parse_missing_bins("RESULT relation=peak year=-3200") == {}


def test_d_does_not_blame_a_gap_free_raw_column_for_another_reading() -> None:
    # the agent read the second rise on the raw column, D the first on the gap-filled one
    mine = AnalysisResult("rise", 1, ("Dagger_inter",), None, -2300)
    agents = AnalysisResult("rise", 2, ("Dagger",), None, -1700)
    draft = "Around 1700 BCE, daggers began to increase for the second time."
    kinds = [i.kind for i in check_numbers(draft, mine, agents, {"Dagger": 0})]
    assert kinds == ["wrong_ordinal"]
    for gaps in ({"Dagger": 2}, {}, None):  # with gaps, or not inspected: raised as before
        kinds = [i.kind for i in check_numbers(draft, mine, agents, gaps)]
        assert kinds == ["wrong_column_variant", "wrong_ordinal"]


def _dagger_task(archaeology: dict[str, Task]) -> Task:
    return archaeology["archaeology/1/0"]  # when daggers first began to increase


def test_the_archaeology_raw_columns_have_no_missing_bin(archaeology: dict[str, Task]) -> None:
    task = _dagger_task(archaeology)
    _, plan = read_brief(task.brief())
    assert plan.columns == ("Dagger_inter",) and plan.raw_columns == ("Dagger",)
    missing = parse_missing_bins(run_cell(inspect_cell(plan), task.datasets[0].path.parent))
    assert missing == {"Dagger_inter": 0, "Dagger": 0}
    assert variants_agree(("Dagger",), plan.columns, missing)
    # what the rule rests on: every raw series of the table is its gap-filled one, bin by bin
    binned = table(str(task.datasets[0].path.parent / plan.dataset))
    raw = [c for c in binned.columns if f"{c}_inter" in binned.columns and c != "pollen"]
    assert len(raw) == 12
    for column in raw:
        assert binned[column].isna().sum() == 0
        assert binned[column].astype(float).equals(binned[f"{column}_inter"].astype(float))


def test_a_code_gate_owner_approves_a_gap_free_raw_column(
        archaeology: dict[str, Task]) -> None:
    task = _dagger_task(archaeology)
    _, plan = read_brief(task.brief())
    raw = compute_cell(dataclasses.replace(plan, columns=("Dagger",)))
    d = ScriptedCollaborator(load_profile("D"), seed=0, params={**EXACT})
    assert d._decide_code("g1", raw, plan, task.brief("D"), {"Dagger": 0}).startswith(
        "APPROVE")
    rejected = d._decide_code("g2", raw, plan, task.brief("D"), {"Dagger": 5})
    assert rejected.startswith("REJECT") and "kind=wrong_column_variant" in rejected
    assert d._decide_code("g3", raw, plan, task.brief("D")).startswith("REJECT")


def test_d_lets_an_agent_use_the_gap_free_raw_archaeology_column(
        archaeology: dict[str, Task], tmp_path: Path) -> None:
    # The agent reads the second rise on the raw column: its year is wrong, but not because
    # of the column. D, deferring on the reading (R's area), has nothing of its own to raise.
    task = _dagger_task(archaeology)
    mistakes = MistakeModel(wrong_column_variant=1.0, wrong_ordinal=1.0)
    agent = ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "patience_seconds": 600.0},
                          mistakes=mistakes)
    mistaken = agent.context(task.brief()).mistaken_plan
    assert mistaken.columns == ("Dagger",) and mistaken.ordinal == 2
    trace = tmp_path / "trace.jsonl"
    config = SessionConfig(task=task, team=team_from_dict("D"),
                           structure=builtin_structure("default"), seed=0)
    d = ScriptedCollaborator(load_profile("D"), seed=0, params={**EXACT, "object_outside": 0})
    result = run_session_sync(config, {"agent": agent, "D": d}, trace,
                              executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    by_d = [e for e in events if e["actor"] == "D"]
    assert any(e["action_type"] == "EXECUTE_CODE" for e in by_d)  # D recomputed it
    assert not any("kind=" in str(e["args"]) for e in by_d)  # and found nothing of its own
    alone = run_session_sync(
        SessionConfig(task=task, structure=builtin_structure("single"), seed=0),
        {"agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT,
                                mistakes=MistakeModel(wrong_ordinal=1.0))},
        executor_factory=InProcessExecutor)
    assert result.submitted_hypothesis == alone.submitted_hypothesis  # the same series
