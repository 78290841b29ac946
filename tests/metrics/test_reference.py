"""Reference workflow graphs: schema, validator, packaged archaeology and generated suites."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from collabsim.metrics.reference import (
    load_reference,
    packaged_reference_path,
    run_evidence,
    run_evidence_subprocess,
    validate_reference,
)
from collabsim.sandbox import Sandbox
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import Task


@pytest.fixture(scope="module")
def depot_ref() -> dict[str, Any]:
    return load_reference(packaged_reference_path("archaeology/3/0")).model_dump()


def test_all_38_archaeology_references_exist_and_validate(archaeology: dict[str, Task]) -> None:
    assert len(archaeology) == 38
    files = sorted({d.path for t in archaeology.values() for d in t.datasets})
    with Sandbox(files) as sandbox:
        for task_id, task in sorted(archaeology.items()):
            path = packaged_reference_path(task_id)
            assert path.is_file(), task_id
            assert validate_reference(path, task, sandbox) == [], task_id


def test_generated_suite_references_validate(tmp_path: Path) -> None:
    root = generate_suite(tmp_path / "suite", n_tasks=38, seed=0)  # the default suite
    tasks = load_tasks(root).tasks
    assert len(tasks) == 38
    for task in tasks:
        assert task.reference_workflow_path is not None, task.task_id
        assert validate_reference(task.reference_workflow_path, task) == [], task.task_id


def problems_for(ref: dict[str, Any], task: Task, run_code: bool = False) -> list[str]:
    return validate_reference(ref, task, run_code=run_code)


def test_structure_problems_are_reported(depot_ref: dict[str, Any], archaeology: dict[str, Task]) -> None:
    task = archaeology["archaeology/3/0"]
    assert problems_for(depot_ref, task) == []
    bad = copy.deepcopy(depot_ref)
    bad["edges"].append(["compute", "nowhere"])
    bad["paths"].append(["load", "claim"])
    bad["paths"].append(["load", "ghost"])
    found = " | ".join(problems_for(bad, task))
    assert "unknown node 'nowhere'" in found
    assert "load->claim is not an edge" in found
    assert "unknown node 'ghost'" in found
    dup = copy.deepcopy(depot_ref)
    dup["nodes"].append(dup["nodes"][0])
    assert any("duplicate" in p for p in problems_for(dup, task))


def test_schema_and_task_problems(depot_ref: dict[str, Any], archaeology: dict[str, Task]) -> None:
    task = archaeology["archaeology/3/0"]
    missing = copy.deepcopy(depot_ref)
    del missing["completion"]
    assert problems_for(missing, task)[0].startswith("schema:")
    other = archaeology["archaeology/6/0"]
    assert any("task_id" in p for p in problems_for(depot_ref, other))


def test_completion_must_agree_with_gold(depot_ref: dict[str, Any], archaeology: dict[str, Task]) -> None:
    task = archaeology["archaeology/3/0"]
    ref = copy.deepcopy(depot_ref)
    ref["completion"]["years"] = [-1300]
    ref["completion"]["variables"] = ["Sickle"]
    found = problems_for(ref, task)
    assert any("year -1300" in p for p in found)
    assert any("'Sickle'" in p for p in found)
    ok = copy.deepcopy(depot_ref)
    ok["completion"]["years"] = [-1200]  # one bin off: within tolerance
    assert problems_for(ok, task) == []


def test_evidence_code_must_run_and_print(depot_ref: dict[str, Any], archaeology: dict[str, Task]) -> None:
    task = archaeology["archaeology/3/0"]
    ref = copy.deepcopy(depot_ref)
    ref["nodes"][1]["expected_output"] = ["-1500"]
    ref["nodes"][0]["evidence_code"] = "raise RuntimeError('boom')"
    found = problems_for(ref, task, run_code=True)
    assert any("'load' failed" in p for p in found)
    assert any("does not print '-1500'" in p for p in found)


def test_run_evidence_uses_the_given_sandbox(archaeology: dict[str, Task]) -> None:
    files = [d.path for d in archaeology["archaeology/0/0"].datasets]
    with Sandbox(files) as sandbox:
        runs = run_evidence(["x = 41", "print(x + 1)"], files, sandbox)
    assert runs[1].output.strip() == "42"


def test_subprocess_fallback_runs_with_decimal_comma_files(archaeology: dict[str, Task]) -> None:
    files = [d.path for d in archaeology["archaeology/0/0"].datasets]
    code = "import pandas as pd\nprint(pd.read_csv('capital.csv', decimal=',')['ZHort'].max())"
    runs = run_evidence_subprocess([code, "1/0"], files, 60.0)
    assert runs[0].status == "ok" and "3.38" in runs[0].output
    assert runs[1].status == "error" and "ZeroDivisionError" in (runs[1].error or "")


def test_used_columns_are_the_columns_the_evidence_code_quotes() -> None:
    reference = load_reference(packaged_reference_path("archaeology/3/0"))  # the Depot peak
    names = ["CE", "Depot", "Depot_inter", "Dagger"]
    assert reference.used_columns(names) == frozenset({"CE", "Depot"})
