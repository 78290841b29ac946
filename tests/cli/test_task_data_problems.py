"""``collabsim run`` on tasks whose data cannot answer their query (run in the test process
through ``collabsim_cli``: exit code and file-descriptor output as a shell sees them).

The good tasks run; the bad ones are listed in ``task_problems.csv`` (file, field, message,
task) with exit code 0; when no task is left the run ends with one line naming
``tasks.root`` and exit code 2, writing nothing.
"""

from __future__ import annotations

import csv
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

ROWS = "age,income,score\n20,1,3\n30,2,5\n40,3,4\n50,5,9\n60,4,8\n"
CONSTANT = "age,income,score\n20,1,7\n30,2,7\n40,3,7\n50,5,7\n"


def _task(root: Path, name: str, table: str) -> Path:
    folder = root / "real" / "test" / name
    folder.mkdir(parents=True)
    (folder / "data.csv").write_text(table, encoding="utf-8")
    columns = [("age", "Age in years"), ("income", "Yearly income"), ("score", "Test score")]
    meta = {"domain": "survey", "workflow_tags": "regression",
            "datasets": [{"name": "data.csv", "description": "survey answers",
                          "columns": {"raw": [{"name": n, "description": d}
                                              for n, d in columns]}}],
            "queries": [[{"qid": 0, "question": "How does income affect score?",
                          "true_hypothesis": "Score rises with income."}]]}
    path = folder / "metadata_0.json"
    path.write_text(json.dumps(meta), encoding="utf-8")
    return path


def _run(
    collabsim: Callable[..., subprocess.CompletedProcess[str]], root: Path, out: Path, cwd: Path
) -> subprocess.CompletedProcess[str]:
    return collabsim("run", "tasks=discoverybench", f"tasks.root={root}", "team=single",
                     "seeds=[0]", "run.progress=false", f"hydra.run.dir={out}", cwd=cwd)


def test_good_task_runs_and_the_unanswerable_one_is_listed_not_scored(tmp_path: Path, collabsim_cli) -> None:
    root = tmp_path / "db"
    _task(root, "good", ROWS)
    bad = _task(root, "flat", CONSTANT)
    out = tmp_path / "out"
    proc = _run(collabsim_cli, root, out, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "1 task problem(s) under tasks.root" in proc.stdout
    with (out / "task_problems.csv").open(encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["path"] == str(bad) and row["field"] == "queries[0][0].question"
    assert row["task_id"] == "flat/0/0" and "'score' is 7 in every row" in row["message"]
    with (out / "sessions.csv").open(encoding="utf-8") as fh:
        sessions = list(csv.DictReader(fh))
    assert [s["task_id"] for s in sessions] == ["good/0/0"]
    assert sessions[0]["Performance"] != ""


def test_a_root_of_only_unanswerable_tasks_is_one_line_exit_2(tmp_path: Path, collabsim_cli) -> None:
    root = tmp_path / "db"
    _task(root, "flat", CONSTANT)
    _task(root, "single", "age,income,score\n20,1,3\n")
    out = tmp_path / "out"
    proc = _run(collabsim_cli, root, out, tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and "tasks.root" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not out.exists()
