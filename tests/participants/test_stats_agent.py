"""The scripted agent on statistical tasks: it computes in the (real) sandbox and submits a
statistical hypothesis, never the time-series fallback; bad data gives a noted answer."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers.executors import InProcessExecutor
from helpers.participants import CAREFUL_AGENT

from collabsim.domain.stats.model import StatPlan
from collabsim.domain.stats.reading import StatQuery
from collabsim.participants.plan import MistakeModel
from collabsim.participants.scripted import ScriptedAgent
from collabsim.participants.scripted_common import task_context
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task

CANNED = "standard time-series check"
DEV_TASKS = ("nls_bmi/1/0", "nls_bmi/2/0", "evolution_freshwater_fish/0/0",
             "immigration_offshoring_effect_on_employment/0/1",
             "sustainable-fashion_0_3/1/461", "jazz-music_0_2/1/984")


@pytest.fixture(scope="module")
def dev_tasks(shared_data: Path) -> dict[str, Task]:
    report = load_tasks(shared_data / "discoverybench_dev")
    return {t.task_id: t for t in report.tasks}


def _solo(task: Task, *, real_sandbox: bool = True):  # noqa: ANN202
    config = SessionConfig(task=task, structure=builtin_structure("single"), seed=0)
    return run_session_sync(config, {"agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT)},
                            executor_factory=None if real_sandbox else InProcessExecutor)


@pytest.mark.parametrize("task_id", DEV_TASKS)
def test_single_agent_submits_a_statistical_hypothesis(dev_tasks: dict[str, Task],
                                                       task_id: str) -> None:
    result = _solo(dev_tasks[task_id])
    assert result.status == "finished", result.error
    text = result.submitted_hypothesis
    assert CANNED not in text
    assert "p < 0.001" in text or "p = " in text or "%" in text or "mean of" in text, text


def test_hispanic_men_coefficients_match_the_reference_fit(dev_tasks: dict[str, Task]) -> None:
    """OLS of BMI on the two savings proxies among Hispanic men (the workflow of the
    metadata, re-fit here by the agent): the coefficients DiscoveryBench reports."""
    text = _solo(dev_tasks["nls_bmi/1/0"]).submitted_hypothesis
    assert "in Hispanic men" in text
    assert "0.9826 (p = 0.038)" in text and "1.58 (p < 0.001)" in text


def test_statistical_tasks_read_as_stats_plans(dev_tasks: dict[str, Task],
                                               archaeology: dict[str, Task]) -> None:
    ctx = task_context(dev_tasks["nls_bmi/2/0"].brief(), 0, MistakeModel())
    assert isinstance(ctx.semantics, StatQuery)
    assert isinstance(ctx.plan, StatPlan) and ctx.mistaken_plan == ctx.plan
    assert ctx.plan.filters == (("GENDER", "==", "FEMALE"), ("BLACK", "==", "1"))
    arch = task_context(next(iter(archaeology.values())).brief(), 0, MistakeModel())
    assert not isinstance(arch.plan, StatPlan)


def _table_task(tmp_path: Path, frame: pd.DataFrame, query: str,
                columns: list[tuple[str, str]]) -> Task:
    """A task on bad data, handed to the agent directly: the loader lists such a task as a
    problem (tests/tasks/test_datachecks.py), the agent still answers without a traceback
    when one reaches it (a teammate's plan, a task built by code)."""
    folder = tmp_path / "real" / "train" / "toy"
    folder.mkdir(parents=True)
    frame.to_csv(folder / "toy.csv", index=False)
    meta = {"id": 0, "domain": "toy", "workflow_tags": "regression", "domain_knowledge": "",
            "datasets": [{"name": "toy.csv", "description": "toy",
                          "columns": {"raw": [{"name": n, "description": d}
                                              for n, d in columns]}}],
            "queries": [[{"qid": 0, "question": query, "true_hypothesis": "gold"}]]}
    (folder / "metadata_0.json").write_text(json.dumps(meta))
    report = load_tasks(tmp_path)
    assert report.tasks == () and [p.path.name for p in report.problems] == ["metadata_0.json"]
    return Task(task_id="toy/0/0", dataset="toy", metadata_id=0, query_id=0, query=query,
                question_type="", domain="toy", domain_knowledge="",
                workflow_tags="regression",
                datasets=(DatasetInfo("toy.csv", "toy",
                                      tuple(ColumnInfo(n, d) for n, d in columns),
                                      folder / "toy.csv"),),
                source="discoverybench-real", gold_hypothesis="gold")


@pytest.mark.parametrize("frame, note", [
    (pd.DataFrame({"age": [30, 40, 50], "bmi": [None, None, None]}), "has no values"),
    (pd.DataFrame({"age": [30], "bmi": [22.0]}), "only 1 complete rows"),
])
def test_bad_data_gives_a_noted_answer_not_a_traceback(tmp_path: Path, frame: pd.DataFrame,
                                                      note: str) -> None:
    task = _table_task(tmp_path, frame, "How does age affect BMI?",
                       [("age", "age in years"), ("bmi", "body mass index")])
    result = _solo(task, real_sandbox=False)
    assert result.status == "finished", result.error
    text = result.submitted_hypothesis
    assert note in text and CANNED not in text and "Traceback" not in text


def test_a_column_named_in_the_metadata_but_missing_from_the_data(tmp_path: Path) -> None:
    task = _table_task(tmp_path, pd.DataFrame({"age": [30, 40, 50, 60], "x": [1, 2, 3, 4]}),
                       "How does age affect BMI?",
                       [("age", "age in years"), ("bmi", "body mass index"), ("x", "other")])
    result = _solo(task, real_sandbox=False)
    assert result.status == "finished"
    assert "not in the data: bmi" in result.submitted_hypothesis
