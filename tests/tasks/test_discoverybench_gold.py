"""Gold hypotheses of DiscoveryBench tasks: answer key first, else the metadata's
``true_hypothesis`` (the development splits keep their golds there); never in a brief."""

from __future__ import annotations

import csv
import json
from dataclasses import fields
from pathlib import Path

from collabsim.domain.tables import decode_text
from collabsim.tasks.discoverybench import load_task, load_tasks
from collabsim.tasks.model import TaskBrief
from tests.helpers.tasks import write_clone


def _suite(root: Path, key_rows: str | None) -> None:
    folder = root / "synth" / "dev" / "farming_0_0"
    folder.mkdir(parents=True)
    (folder / "data.csv").write_text("rain,yield\n1,2\n3,4\n", encoding="utf-8")
    meta = {"id": 0, "domain": "farming", "datasets": [
        {"name": "data.csv", "description": "crops",
         "columns": [{"name": "rain", "description": "Rainfall"},
                     {"name": "yield", "description": "Crop yield"}]}],
        "queries": [
            {"qid": 0, "question": "Rain vs yield?", "true_hypothesis": "Rain raises yield."},
            {"qid": 1, "question": "Where?", "true_hypothesis": "  "},
            {"qid": 2, "question": "How much?", "true_hypothesis": "From the metadata."}]}
    (folder / "metadata_0.json").write_text(json.dumps(meta), encoding="utf-8")
    if key_rows is not None:
        (root / "eval").mkdir()
        (root / "eval" / "answer_key_synth.csv").write_text(
            "dataset,metadataid,query_id,gold_hypo\n" + key_rows, encoding="utf-8")


def test_gold_from_metadata_when_no_answer_key(tmp_path: Path) -> None:
    _suite(tmp_path, None)
    golds = {t.query_id: t.gold_hypothesis for t in load_tasks(tmp_path).tasks}
    assert golds == {0: "Rain raises yield.", 1: None, 2: "From the metadata."}
    assert load_task(tmp_path, "farming_0_0/0/0").gold_hypothesis == "Rain raises yield."


def test_answer_key_row_wins_over_metadata(tmp_path: Path) -> None:
    _suite(tmp_path, 'farming_0_0,0,2,"From the key."\n')
    golds = {t.query_id: t.gold_hypothesis for t in load_tasks(tmp_path).tasks}
    assert golds == {0: "Rain raises yield.", 1: None, 2: "From the key."}


def test_dev_splits_have_their_metadata_golds_and_briefs_hide_them(shared_data: Path) -> None:
    root = shared_data / "discoverybench_dev"
    report = load_tasks(root)
    assert len(report.tasks) >= 160  # 14 queries its data cannot answer are problems
    for task in report.tasks:
        meta = json.loads(decode_text(task.metadata_path.read_bytes()))
        queries = [q for group in meta["queries"]
                   for q in (group if isinstance(group, list) else [group])]
        query = next(q for q in queries if int(q["qid"]) == task.query_id)
        assert task.gold_hypothesis == query["true_hypothesis"].strip(), task.task_id
        brief = task.brief()
        assert "gold_hypothesis" not in {f.name for f in fields(TaskBrief)}
        assert all(task.gold_hypothesis not in str(getattr(brief, f.name))
                   for f in fields(TaskBrief)), task.task_id


def test_answer_key_root_keeps_its_golds(discoverybench_root: Path) -> None:
    with (discoverybench_root / "eval" / "answer_key_real.csv").open(encoding="utf-8") as fh:
        key = {f"{r['dataset']}/{r['metadataid']}/{r['query_id']}": r["gold_hypo"]
               for r in csv.DictReader(fh)}
    tasks = load_tasks(discoverybench_root).tasks
    assert {t.task_id: t.gold_hypothesis for t in tasks} == key


def test_answer_key_beside_a_clones_task_folder(tmp_path: Path) -> None:
    root = write_clone(tmp_path, key=True)
    assert [t.gold_hypothesis for t in load_tasks(root).tasks] == ["Rain raises yield."]
    assert load_task(root, "farming/0/0").gold_hypothesis == "Rain raises yield."


def test_a_key_under_the_root_wins_over_the_one_beside(tmp_path: Path) -> None:
    root = write_clone(tmp_path, key=True)
    (root / "eval").mkdir()
    (root / "eval" / "answer_key_real.csv").write_text(
        'dataset,metadataid,query_id,gold_hypo\nfarming,0,0,"Inside."\n', encoding="utf-8")
    assert [t.gold_hypothesis for t in load_tasks(root).tasks] == ["Inside."]
