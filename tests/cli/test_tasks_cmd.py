"""``collabsim tasks``: lists tasks and problems; exit status reflects whether anything loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collabsim.cli.main import main
from collabsim.tasks.generator import generate_suite


def test_lists_real_tasks_with_gold(discoverybench_root: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "--root", str(discoverybench_root)]) == 0
    out = capsys.readouterr().out
    assert "44 task(s), 0 problem(s)" in out
    line = next(x for x in out.splitlines() if x.startswith("archaeology/27/0 "))
    assert "yes" in line and "simultaneously for the second time" in line


def test_lists_problems_and_fails_only_when_nothing_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "real" / "test" / "broken"
    folder.mkdir(parents=True)
    (folder / "metadata_0.json").write_text(json.dumps({"datasets": [{"name": "gone.csv"}],
                                                        "queries": []}), encoding="utf-8")
    assert main(["tasks", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "0 task(s), 1 problem(s)" in out
    assert "metadata_0.json" in out and "[datasets[0].name]" in out and "gone.csv" in out

    good = tmp_path / "real" / "test" / "fine"
    good.mkdir(parents=True)
    (good / "d.csv").write_text("a\n1\n2\n", encoding="utf-8")
    (good / "metadata_0.json").write_text(json.dumps(
        {"datasets": [{"name": "d.csv", "columns": {"raw": [{"name": "a", "description": "A"}]}}],
         "queries": [[{"qid": 0, "question": "What is a?"}]]}), encoding="utf-8")
    assert main(["tasks", "--root", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["task_id"] for t in data["tasks"]] == ["fine/0/0"]
    assert data["tasks"][0]["has_gold"] is False
    assert data["problems"][0]["field"] == "datasets[0].name"


def test_without_root_lists_the_generated_default_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))
    assert main(["tasks", "--n-tasks", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 task(s), 0 problem(s)" in out
    assert str(tmp_path / "generated") in out
    rows = [x for x in out.splitlines() if x.startswith("gen_")]
    assert len(rows) == 4 and all(" yes " in r for r in rows)
    expected = generate_suite(tmp_path / "direct", 4, seed=1)
    query = json.loads((expected / "real/test/gen_000/metadata_0.json").read_text())[
        "queries"][0][0]["question"]
    assert query in rows[0]


def test_suite_generated_stats_lists_the_builtin_statistical_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path))
    assert main(["tasks", "--suite", "generated_stats", "--n-tasks", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["root"].startswith(str(tmp_path / "generated_stats"))
    assert [t["task_id"] for t in data["tasks"]] == ["stats_000/0/0", "stats_001/0/0",
                                                     "stats_002/0/0"]
    assert all(t["has_gold"] and t["has_reference_workflow"] for t in data["tasks"])
    assert data["problems"] == []


def _one_task(folder: Path, question: str, header: str = "a") -> None:
    folder.mkdir(parents=True)
    (folder / "d.csv").write_text(f"{header}\n1\n2\n", encoding="utf-8")
    (folder / "metadata_0.json").write_text(json.dumps(
        {"datasets": [{"name": "d.csv", "columns": {"raw": [{"name": "a", "description": "A"}]}}],
         "queries": [[{"qid": 0, "question": question}]]}), encoding="utf-8")


@pytest.mark.parametrize("control", ["\x1b[2J\x1b[H", "\x9b2J", "\x1b]8;;http://x\x07",
                                     "\u202e", "\r", "\x08"])
def test_task_text_cannot_drive_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], control: str
) -> None:
    """Issue 38.19: a query with terminal escapes is shown, not executed, in both formats."""
    _one_task(tmp_path / "real" / "test" / "fine", f"What is a?{control}gone")
    assert main(["tasks", "--root", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    assert main(["tasks", "--root", str(tmp_path), "--json"]) == 0
    raw_json = capsys.readouterr().out
    for out in (table, raw_json):
        assert not any(c in out for c in control if not c.isprintable()), repr(out)
    assert "What is a?\\x" in table or "What is a?\\u" in table
    assert json.loads(raw_json)["tasks"][0]["query"] == f"What is a?{control}gone"


def test_a_header_longer_than_one_read_block_is_still_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38.19: a 70 KiB header line is not reported as 'header but no data rows'."""
    header = "a," + ",".join(f"column_{i:05d}" for i in range(6000))
    assert len(header) > 65536
    folder = tmp_path / "real" / "test" / "wide"
    _one_task(folder, "What is a?", header)
    row = ",".join(["1"] * 6001)
    (folder / "d.csv").write_text(f"{header}\n{row}\n{row}\n", encoding="utf-8")
    assert main(["tasks", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 task(s), 0 problem(s)" in out, out[:500]
