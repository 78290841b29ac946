"""``collabsim judge``: a CSV of task_id,hypothesis scored against a task root's golds."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from collabsim.cli.main import main
from tests.helpers.tasks import write_clone

GOLD = "Rain raises yield."


def _csv(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_scores_every_row_into_a_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_clone(tmp_path, key=True)
    hyps = _csv(tmp_path / "h.csv", "task_id,hypothesis,agent\n"
                f"farming/0/0,{GOLD},mine\n"
                "farming/0/0,The data do not identify the variables the question asks about.,"
                "mine\n")
    out = tmp_path / "scores.csv"
    assert main(["judge", str(root), str(hyps), "--out", str(out)]) == 0
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["agent"] for r in rows] == ["mine", "mine"]  # the user's columns are kept
    assert float(rows[0]["Performance"]) == 1.0 and float(rows[1]["Performance"]) == 0.0
    assert {"context", "variable_f1", "relation", "rationale"} <= set(rows[0])
    assert "non-answer" in rows[1]["rationale"]
    printed = capsys.readouterr().out
    assert "Performance 0.50 over 2 row(s), 1 task(s)" in printed
    assert "query as hypothesis" in printed


def test_prints_the_scores_without_out(discoverybench_root: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    hyps = _csv(tmp_path / "h.csv", "task_id,hypothesis\narchaeology/27/0,\n")
    assert main(["judge", str(discoverybench_root), str(hyps)]) == 0
    out = capsys.readouterr().out
    assert "archaeology/27/0" in out and "Performance 0.00 over 1 row(s)" in out


@pytest.mark.parametrize(("text", "expected"), [
    ("task,hypothesis\nfarming/0/0,x\n", "no column 'task_id'"),
    ("task_id,hypothesis\nfarming/0/0,x\nfarming/9/0,y\n", "line 3: unknown task id 'farming/9/0'"),
    ("task_id,hypothesis\nfarming/0/0,x,extra\n", "line 2: more fields than the header"),
    ("task_id,hypothesis\n", "no rows to score below the header"),
])
def test_bad_csv_is_one_line_naming_file_and_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str) -> None:
    root = write_clone(tmp_path, key=True)
    hyps = _csv(tmp_path / "h.csv", text)
    out = tmp_path / "scores.csv"
    assert main(["judge", str(root), str(hyps), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(hyps) in err and expected in err, err
    assert not out.exists()  # nothing half-written


def test_a_task_without_gold_or_a_missing_file_is_a_user_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_clone(tmp_path, key=False)
    hyps = _csv(tmp_path / "h.csv", "task_id,hypothesis\nfarming/0/0,x\n")
    assert main(["judge", str(root), str(hyps)]) == 2
    assert "line 2: task farming/0/0 has no gold hypothesis" in capsys.readouterr().err
    assert main(["judge", str(root), str(tmp_path / "none.csv")]) == 2
    assert "none.csv: cannot read" in capsys.readouterr().err
    assert main(["judge", str(tmp_path / "nowhere"), str(hyps)]) == 2
    assert "no task loads" in capsys.readouterr().err


def test_out_inside_the_task_root_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = write_clone(tmp_path, key=True)
    hyps = _csv(tmp_path / "h.csv", f"task_id,hypothesis\nfarming/0/0,{GOLD}\n")
    metadata = next(root.rglob("metadata_0.json"))
    before = metadata.read_bytes()
    assert main(["judge", str(root), str(hyps), "--out", str(metadata)]) == 2
    assert "--out" in capsys.readouterr().err
    assert metadata.read_bytes() == before  # the task's metadata is untouched
