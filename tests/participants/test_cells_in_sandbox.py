"""Analysis cells run in the real sandbox: the worker imports the domain's table helpers."""

from __future__ import annotations

import json
from pathlib import Path

from collabsim.participants.cells import compute_cell, inspect_cell, parse_result
from collabsim.participants.reading import read_brief
from collabsim.sandbox import Sandbox
from collabsim.tasks.discoverybench import load_tasks


def test_inspect_then_compute_in_one_sandbox(generated_200: Path) -> None:
    task = next(t for t in load_tasks(generated_200).tasks if t.task_id.startswith("gen_004/"))
    assert task.reference_workflow_path is not None
    planted = json.loads(task.reference_workflow_path.read_text())["completion"]
    _, plan = read_brief(task.brief())
    with Sandbox([d.path for d in task.datasets]) as sb:
        inspect = sb.execute(inspect_cell(plan))
        assert inspect.status == "ok", inspect
        assert inspect.output.startswith("rows ")
        compute = sb.execute(compute_cell(plan))
        assert compute.status == "ok", compute
        result = parse_result(compute.output)
        assert result is not None and result.year == planted["years"][0]
        assert result.columns == plan.columns
        # the compute cell reused the table the inspect cell read and binned
        cached = sb.execute(
            "from collabsim.domain import analysis_helpers as h\nprint(len(h._TABLES))")
        assert cached.output.strip() == "1"
