"""DiscoveryBench loaders: the shared real subset, quirks, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collabsim.tasks.discoverybench import (
    PACKAGED_REFERENCE_DIR,
    TaskLoadError,
    load_task,
    load_tasks,
    read_table,
)


def _metadata(datasets: list[dict], queries: list | None = None, **extra: object) -> dict:
    data: dict = {"id": 0, "domain": "test", "workflow_tags": "tags",
                  "domain_knowledge": "knowledge", "datasets": datasets}
    if queries is not None:
        data["queries"] = queries
    data.update(extra)
    return data


def _dataset(name: str, columns: list[tuple[str, str]]) -> dict:
    return {"name": name, "description": f"file {name}",
            "columns": {"raw": [{"name": n, "description": d} for n, d in columns]}}


def _write(path: Path, data: dict | str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    path.write_bytes(text.encode(encoding))
    return path


def test_real_archaeology_and_worldbank_load(discoverybench_root: Path) -> None:
    report = load_tasks(discoverybench_root)
    assert report.problems == ()
    arch = [t for t in report.tasks if t.dataset == "archaeology"]
    world = [t for t in report.tasks if t.dataset == "worldbank_education_gdp_indicators"]
    assert len(arch) == 38
    assert {t.metadata_id for t in arch} == set(range(38))
    assert len(world) == 6  # metadata_0 has two queries
    for task in report.tasks:
        assert task.source == "discoverybench-real"
        assert task.query and task.datasets and task.gold_hypothesis
        assert task.task_id == f"{task.dataset}/{task.metadata_id}/{task.query_id}"
        for info in task.datasets:
            assert info.path.is_file()
            assert info.columns and all(c.name for c in info.columns)
    t27 = next(t for t in arch if t.task_id == "archaeology/27/0")
    assert "second time" in t27.query
    assert t27.gold_hypothesis.startswith("Around 1000 BCE, house sizes and daggers")
    ts = next(d for d in t27.datasets if d.name == "time_series_data.csv")
    descriptions = {c.name: c.description for c in ts.columns}
    assert descriptions["Dagger_inter"] == "Interpolated z value for Daggers"
    w01 = next(t for t in world if t.task_id == "worldbank_education_gdp_indicators/0/1")
    assert w01.question_type == "relationship"


def test_load_task_by_id_and_reference_path(discoverybench_root: Path) -> None:
    task = load_task(discoverybench_root, "archaeology/3/0")
    assert task.gold_hypothesis == "Around 1100 BCE, the Depots peaked."
    packaged = PACKAGED_REFERENCE_DIR / "archaeology" / "3" / "0.json"
    assert task.reference_workflow_path == (packaged if packaged.is_file() else None)
    with pytest.raises(TaskLoadError) as err:
        load_task(discoverybench_root, "archaeology/99/0")
    assert err.value.field == "task_id"
    with pytest.raises(TaskLoadError):
        load_task(discoverybench_root, "not-an-id")


def test_read_table_decimal_commas(discoverybench_root: Path, tmp_path: Path) -> None:
    folder = discoverybench_root / "real" / "test" / "archaeology"
    capital = read_table(folder / "capital.csv")
    assert capital["ZDolch"].dtype.kind == "f"
    assert capital.loc[capital["BCE"] == 4300, "ZAxtSchwert"].iloc[0] == pytest.approx(-0.44)
    pollen = read_table(folder / "pollen_openness_score_Belau_Woserin_Feeser_et_al_2019.csv")
    assert pollen["Belau_PC1_inter"].dtype.kind == "f"
    series = read_table(folder / "time_series_data.csv")
    assert series["Dagger_inter"].dtype.kind == "f"
    assert series["CE"].iloc[0] == -4100
    handmade = tmp_path / "comma.csv"
    handmade.write_text('year,value,label\n1,"-0,44",a\n2,"1,5",b\n', encoding="utf-8")
    df = read_table(handmade)
    assert list(df["value"]) == [pytest.approx(-0.44), pytest.approx(1.5)]
    semicolon = tmp_path / "semi.csv"
    semicolon.write_text("year;value\n1;2,25\n", encoding="utf-8")
    assert read_table(semicolon)["value"].iloc[0] == pytest.approx(2.25)
    with pytest.raises(TaskLoadError):
        read_table(tmp_path / "missing.csv")


def test_cp1252_metadata_loads(tmp_path: Path) -> None:
    folder = tmp_path / "real" / "test" / "cafe"
    (folder / "data.csv").parent.mkdir(parents=True)
    (folder / "data.csv").write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    meta = _metadata([_dataset("data.csv", [("a", "Caf\u00e9 visits \u2013 per day")])],
                     [[{"qid": 0, "question_type": "context", "question": "Na\u00efve query?"}]],
                     domain_knowledge="Beyonc\u00e9 \u2019s caf\u00e9")
    _write(folder / "metadata_0.json", meta, encoding="cp1252")
    report = load_tasks(tmp_path)
    assert report.problems == ()
    (task,) = report.tasks
    assert task.query == "Na\u00efve query?"
    assert task.datasets[0].columns[0].description == "Caf\u00e9 visits \u2013 per day"
    assert "\u2019" in task.domain_knowledge


def test_missing_csv_is_a_problem_naming_file_and_field(tmp_path: Path) -> None:
    folder = tmp_path / "real" / "test" / "broken"
    folder.mkdir(parents=True)
    (folder / "present.csv").write_text("a\n1\n2\n", encoding="utf-8")
    good = _metadata([_dataset("present.csv", [("a", "A")])],
                     [[{"qid": 0, "question_type": "context", "question": "ok?"}]])
    bad = _metadata([_dataset("present.csv", [("a", "A")]), _dataset("absent.csv", [])],
                    [[{"qid": 0, "question_type": "context", "question": "bad?"}]])
    _write(folder / "metadata_0.json", good)
    bad_path = _write(folder / "metadata_1.json", bad)
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["broken/0/0"]
    (problem,) = report.problems
    assert problem.path == bad_path
    assert problem.field == "datasets[1].name"
    assert "absent.csv" in problem.message
    with pytest.raises(TaskLoadError) as err:
        load_task(tmp_path, "broken/1/0")
    assert "metadata_1.json" in str(err.value) and "datasets[1].name" in str(err.value)


def test_query_facts_load_and_a_bad_fact_is_a_problem_naming_file_and_field(
        tmp_path: Path) -> None:
    folder = tmp_path / "real" / "test" / "site"
    folder.mkdir(parents=True)
    (folder / "data.csv").write_text("CE,a,a_inter\n-2000,1,1\n", encoding="utf-8")
    columns = [("CE", "year"), ("a", "raw"), ("a_inter", "gap-filled")]
    fact = {"kind": "convention", "topic": "column", "text": "a_inter is valid here.",
            "setting": {"column": "a_inter"}}
    cases = [([fact], None), ([{**fact, "kind": "rumour"}], "facts[0]"),
             ([{**fact, "setting": {"column": "b_inter"}}], "facts[0].setting"),
             ([{**fact, "setting": {"ordinal": "second"}}], "facts[0].setting"),
             ([{**fact, "setting": {"window": "2300 to 1800"}}], "facts[0].setting"),
             ([{"kind": "reading", "topic": "ordinal"}], "facts[0]"),
             (["a string"], "facts[0]"), ({"kind": "reading"}, "facts")]
    for n, (facts, _) in enumerate(cases):
        query = {"qid": 0, "question_type": "context", "question": "Which?", "facts": facts}
        _write(folder / f"metadata_{n}.json",
               _metadata([_dataset("data.csv", columns)], [[query]]))
    report = load_tasks(tmp_path)
    (task,) = report.tasks
    assert task.task_id == "site/0/0"
    assert [(f.kind, f.topic, f.fix) for f in task.facts] == [
        ("convention", "column", {"column": "a_inter"})]
    problems = sorted(report.problems, key=lambda p: p.path.name)
    assert [(p.path.name, p.field) for p in problems] == [
        (f"metadata_{n}.json", f"queries[0][0].{field}") for n, (_, field) in
        enumerate(cases) if field is not None]
    assert all(p.message for p in problems)


def test_missing_queries_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "real" / "test" / "noq"
    folder.mkdir(parents=True)
    (folder / "d.csv").write_text("a\n1\n2\n", encoding="utf-8")
    path = _write(folder / "metadata_0.json", _metadata([_dataset("d.csv", [("a", "A")])]))
    _write(folder / "metadata_1.json", "{not json")
    report = load_tasks(tmp_path)
    assert report.tasks == ()
    problems = {p.path.name: p for p in report.problems}
    assert problems["metadata_0.json"].field == "queries"
    assert problems["metadata_0.json"].path == path
    assert problems["metadata_1.json"].field is None
    assert "invalid JSON" in problems["metadata_1.json"].message
    with pytest.raises(TaskLoadError) as err:
        load_task(tmp_path, "noq/0/0")
    assert err.value.field == "queries" and err.value.path == path


def test_synth_layout_with_answer_key(tmp_path: Path) -> None:
    folder = tmp_path / "synth" / "test" / "farming_3_2"
    folder.mkdir(parents=True)
    (folder / "data.csv").write_text("rain,yield\n1,2\n3,4\n", encoding="utf-8")
    meta = _metadata(
        [_dataset("data.csv", [("rain", "Rainfall"), ("yield", "Crop yield")])],
        [[{"qid": 0, "question_type": "relationship", "question": "Rain vs yield?"},
          {"qid": 1, "question_type": "context", "question": "Where?"}]],
    )
    _write(folder / "metadata_2.json", meta)
    _write(tmp_path / "eval" / "answer_key_synth.csv",
           "dataset,metadataid,query_id,gold_hypo\nfarming_3_2,2,1,\"Everywhere, mostly.\"\n")
    report = load_tasks(tmp_path)
    assert report.problems == ()
    assert [t.task_id for t in report.tasks] == ["farming_3_2/2/0", "farming_3_2/2/1"]
    first, second = report.tasks
    assert first.source == second.source == "discoverybench-synth"
    assert first.gold_hypothesis is None
    assert second.gold_hypothesis == "Everywhere, mostly."
    assert [c.name for c in first.datasets[0].columns] == ["rain", "yield"]


def test_root_without_layout_reports_problem(tmp_path: Path) -> None:
    report = load_tasks(tmp_path)
    assert report.tasks == ()
    assert "no real/ or synth/" in report.problems[0].message
    assert load_tasks(tmp_path / "nope").problems[0].path == tmp_path / "nope"


def test_stata_files_load_as_tables_and_other_binary_files_stay_problems(
        tmp_path: Path) -> None:
    """The immigration queries of real/train use Stata ``.dta`` tables: they load (with
    their columns readable); a binary file that is no Stata file is still bad data."""
    import pandas as pd

    folder = tmp_path / "real" / "train" / "econ"
    folder.mkdir(parents=True)
    pd.DataFrame({"year": [2000, 2001], "share": [0.1, 0.2]}).to_stata(
        folder / "jobs.dta", write_index=False)
    (folder / "blob.dta").write_bytes(b"\x00\x01garbage" * 10)
    query = {"qid": 0, "question": "How does the year affect the share?",
             "true_hypothesis": "h"}
    _write(folder / "metadata_0.json", _metadata(
        [_dataset("jobs.dta", [("year", "y"), ("share", "s")])], [[query]]))
    _write(folder / "metadata_1.json", _metadata(
        [_dataset("blob.dta", [("year", "y")])], [[query]]))
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["econ/0/0"]
    assert len(report.problems) == 1 and "binary" in report.problems[0].message
    table = read_table(report.tasks[0].datasets[0].path)
    assert list(table["share"]) == [0.1, 0.2]


def test_dev_immigration_queries_load(shared_data: Path) -> None:
    report = load_tasks(shared_data / "discoverybench_dev")
    immigration = [t for t in report.tasks
                   if t.dataset == "immigration_offshoring_effect_on_employment"]
    assert len(immigration) == 4
    assert not [p for p in report.problems if "immigration" in str(p.path)]


@pytest.mark.parametrize(("qid", "message"), [
    ("1e400", "not an integer: inf"),
    ("9" * 5000, "invalid JSON"),
    ("3.5", "not an integer: 3.5"),
    ("true", "not an integer: True"),
    ('"12a"', "not an integer"),
    ("1" + "0" * 200, "longer than 100 digits"),
], ids=["1e400", "5000 digits", "fraction", "bool", "text", "201 digits"])
def test_a_hostile_qid_is_a_problem_naming_file_and_field(
    tmp_path: Path, qid: str, message: str
) -> None:
    """Issue 38.14: no traceback for a qid that is no integer, however it is written."""
    folder = tmp_path / "real" / "test" / "odd"
    folder.mkdir(parents=True)
    (folder / "d.csv").write_text("a\n1\n2\n", encoding="utf-8")
    text = json.dumps(_metadata([_dataset("d.csv", [("a", "A")])],
                                [[{"qid": 0, "question": "What is a?"}]]))
    path = _write(folder / "metadata_0.json", text.replace('"qid": 0', f'"qid": {qid}'))
    report = load_tasks(tmp_path)
    assert report.tasks == ()
    (problem,) = report.problems
    assert problem.path == path and message in problem.message
    assert problem.field == ("queries[0][0].qid" if message != "invalid JSON" else None)


def test_metadata_nested_beyond_the_recursion_limit_is_a_problem(tmp_path: Path) -> None:
    """Issue 38.14: a 100,000-deep metadata file is reported, not a RecursionError."""
    path = _write(tmp_path / "real" / "test" / "deep" / "metadata_0.json",
                  '{"datasets": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (problem,) = load_tasks(tmp_path).problems
    assert problem.path == path and "nested too deeply" in problem.message


def _gold_root(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "db"
    folder = root / "real" / "test" / "leaky"
    folder.mkdir(parents=True)
    (folder / "d.csv").write_text("a\n1\n2\n", encoding="utf-8")
    key = root / "eval" / "answer_key_real.csv"
    key.parent.mkdir()
    key.write_text("dataset,metadataid,query_id,gold_hypo\nleaky,0,0,THE GOLD\nx,1,1,y\n",
                   encoding="utf-8")
    return root, folder, key


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "symlinked folder", "copy"])
def test_task_data_never_reaches_outside_its_folder_or_to_the_gold(tmp_path: Path,
                                                                   how: str) -> None:
    """Issue 38.1: the answer key cannot become a data file, however it is named."""
    root, folder, key = _gold_root(tmp_path)
    if how == "dotdot":
        name = "../../../eval/answer_key_real.csv"
    elif how == "absolute":
        name = str(key)
    elif how == "symlink":
        (folder / "data.csv").symlink_to(key)
        name = "data.csv"
    elif how == "symlinked folder":
        (folder / "sub").symlink_to(key.parent, target_is_directory=True)
        name = "sub/answer_key_real.csv"
    else:
        (folder / "answer_key_real.csv").write_text(key.read_text(), encoding="utf-8")
        name = "answer_key_real.csv"
    _write(folder / "metadata_0.json", _metadata(
        [_dataset("d.csv", [("a", "A")]), _dataset(name, [("dataset", "Dataset")])],
        [[{"qid": 0, "question": "What is a?"}]]))
    report = load_tasks(root)
    assert report.tasks == ()
    (problem,) = report.problems
    assert problem.field == "datasets[1].name"
    assert any(why in problem.message for why in (
        "outside its dataset folder", "answer key or a reference workflow")), problem.message


def test_a_symlink_within_the_dataset_folder_is_still_data(tmp_path: Path) -> None:
    root, folder, _ = _gold_root(tmp_path)
    (folder / "alias.csv").symlink_to(folder / "d.csv")
    _write(folder / "metadata_0.json", _metadata([_dataset("alias.csv", [("a", "A")])],
                                                 [[{"qid": 0, "question": "What is a?"}]]))
    (task,) = load_tasks(root).tasks
    assert task.datasets[0].path == folder / "alias.csv"
