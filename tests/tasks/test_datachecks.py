"""A statistical task whose data cannot answer its query is a listed problem, not a task.

Hand-built DiscoveryBench folders: each bad-data case gives one problem naming the metadata
file and the field, the task is not loaded (so it gets no session and no score), and the
good tasks beside it still load. The checks read the query, the metadata and the tables,
never the gold hypothesis.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from collabsim.domain.stats import runtime
from collabsim.tasks.datachecks import filter_rows
from collabsim.tasks.discoverybench import TaskLoadError, load_task, load_tasks

GOOD_ROWS = "age,income,score\n20,1,3\n30,2,5\n40,3,4\n50,5,9\n"
COLUMNS = [("age", "Age of the respondent in years"),
           ("income", "Yearly income of the respondent"),
           ("score", "Test score of the respondent")]
GOOD_QUERY = "How does income affect score?"
CONSTANT = "age,income,score\n20,1,7\n30,2,7\n40,3,7\n"


def _folder(root: Path, name: str, table: str, query: str, columns=COLUMNS,
            gold: str = "Higher income goes with a higher score.") -> Path:
    """A real/test dataset folder with one table and one query; returns its metadata path."""
    folder = root / "real" / "test" / name
    folder.mkdir(parents=True)
    (folder / "data.csv").write_text(table, encoding="utf-8")
    meta = {"id": 0, "domain": "survey", "workflow_tags": "regression",
            "domain_knowledge": "",
            "datasets": [{"name": "data.csv", "description": "survey answers",
                          "columns": {"raw": [{"name": n, "description": d}
                                              for n, d in columns]}}],
            "queries": [[{"qid": 0, "question_type": "relationship", "question": query,
                          "true_hypothesis": gold}]]}
    path = folder / "metadata_0.json"
    path.write_text(json.dumps(meta), encoding="utf-8")
    return path


# (name, table, query, extra declared column, field, words of the message)
BAD_CASES = [
    ("onerow", "age,income,score\n20,1,3\n", GOOD_QUERY, None,
     "datasets[0].name", "one data row"),
    ("named", GOOD_ROWS, "Is BMI higher when income is higher?", ("BMI", "Body mass index"),
     "queries[0][0].question", "column 'BMI' named by the query is not in data.csv"),
    ("planned", GOOD_ROWS, "How does income affect the years of schooling?",
     ("yrs_sch", "Years of schooling completed"),
     "queries[0][0].question", "column 'yrs_sch' (the target of the query) is not in data.csv"),
    ("allnan", "age,income,score\n20,1,\n30,2,\n40,3,\n", GOOD_QUERY, None,
     "queries[0][0].question", "target column 'score' has no values"),
    ("constant", CONSTANT, GOOD_QUERY, None,
     "queries[0][0].question", "'score' is 7 in every row of data.csv"),
    ("nobody", GOOD_ROWS, "How does income affect score for respondents with age above 90?",
     None, "queries[0][0].question", "no row of data.csv has age > 90"),
]


@pytest.mark.parametrize(("name", "table", "query", "extra", "field", "words"), BAD_CASES,
                         ids=[c[0] for c in BAD_CASES])
def test_bad_task_data_is_one_listed_problem_naming_file_and_field(
        tmp_path: Path, name: str, table: str, query: str, extra: tuple[str, str] | None,
        field: str, words: str) -> None:
    _folder(tmp_path, "good", GOOD_ROWS, GOOD_QUERY)
    columns = [*COLUMNS, extra] if extra else COLUMNS
    bad = _folder(tmp_path, name, table, query, columns)
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["good/0/0"]
    (problem,) = report.problems
    assert (problem.path, problem.field) == (bad, field)
    assert words in problem.message, problem.message
    with pytest.raises(TaskLoadError) as err:
        load_task(tmp_path, f"{name}/0/0")
    assert "metadata_0.json" in str(err.value) and field in str(err.value)


def test_checks_never_read_the_gold(tmp_path: Path) -> None:
    """Whatever the gold says, the same query and data load the same way: a gold naming a
    missing column leaves a good task loaded, a gold claiming a relation leaves a constant
    target a problem."""
    _folder(tmp_path, "a", GOOD_ROWS, GOOD_QUERY, gold="BMI is the same for nobody.")
    _folder(tmp_path, "b", CONSTANT, GOOD_QUERY, gold="")
    _folder(tmp_path, "c", CONSTANT, GOOD_QUERY, gold="Score rises with income.")
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["a/0/0"]
    assert [p.task_id for p in report.problems] == ["b/0/0", "c/0/0"]
    assert report.problems[0].message == report.problems[1].message


def test_a_target_constant_only_within_the_asked_population_is_a_finding(
        tmp_path: Path) -> None:
    """Every respondent older than 35 scoring 9 answers the query (no problem); a score
    that is 7 for everyone cannot relate to anything (a problem)."""
    table = "age,income,score\n20,1,3\n30,2,5\n40,3,9\n50,5,9\n"
    _folder(tmp_path, "sub", table,
            "How does income affect score for respondents with age above 35?")
    _folder(tmp_path, "whole", CONSTANT,
            "How does income affect score for respondents with age above 25?")
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["sub/0/0"]
    (problem,) = report.problems
    assert problem.task_id == "whole/0/0" and "'score' is 7 in every row" in problem.message


def test_time_series_tasks_keep_their_path(tmp_path: Path) -> None:
    """Tables with a year column (archaeology layout) are not checked by the statistical
    rules: a constant series still loads as before, a constant statistical target does
    not."""
    _folder(tmp_path, "series", "CE,depots\n-2000,1\n-1900,1\n-1800,1\n",
            "When did the depots peak?", columns=[("CE", "year"), ("depots", "count")])
    _folder(tmp_path, "stats", CONSTANT, GOOD_QUERY)
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["series/0/0"]
    assert [p.task_id for p in report.problems] == ["stats/0/0"]


@pytest.mark.parametrize("filters", [
    [("age", ">", "35")], [("age", "<=", "30")], [("group", "==", "Lower middle")],
    [("group", "!=", "high")], [("income", ">=", "2"), ("group", "==", "HIGH")],
])
def test_population_rows_are_the_rows_the_stats_cell_keeps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filters: list) -> None:
    """The check's population is the cell's (numbers compared as numbers, text trimmed and
    lower-cased): a population the check finds empty is the one the analysis would find
    empty."""
    frame = pd.DataFrame({"age": [20, 30, 40, 50], "income": [1, 2, 3, 5],
                          "group": [" Lower middle", "high", "High", "low"]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    monkeypatch.chdir(tmp_path)
    plan = {"dataset": "t.csv", "target": "age", "predictors": [], "controls": [],
            "filters": [list(f) for f in filters], "interaction": ""}
    try:
        kept = list(runtime.load(plan).index)
    except ValueError:  # the cell stops on an empty population
        kept = []
    assert list(filter_rows(pd.read_csv(os.fspath(tmp_path / "t.csv")), filters).index) == kept


#: The shared dev queries whose data cannot answer them: the target the query asks about
#: has one value in every row of the synthetic table, or nobody belongs to the population.
UNANSWERABLE_DEV = {
    "ancient-civilizations_0_2/3/51", "ancient-civilizations_0_3/1/38",
    "ancient-history_0_3/1/137", "ancient-history_1_2/1/139", "extreme-sports_0_1/1/692",
    "extreme-sports_0_2/1/678", "extreme-sports_0_3/3/676", "extreme-sports_0_3/5/683",
    "extreme-sports_1_2/1/677", "extreme-sports_2_1/1/690", "jazz-music_0_0/0/974",
    "jazz-music_0_3/3/988", "jazz-music_1_0/0/973", "virtual-concerts_0_0/0/662",
}


def test_no_shared_task_the_data_can_answer_becomes_a_problem(shared_data: Path) -> None:
    dev = load_tasks(shared_data / "discoverybench_dev")
    listed = {p.task_id for p in dev.problems}
    assert listed <= UNANSWERABLE_DEV and len(listed) >= 12
    # nobody follows fewer than 10 influencers (min 11); nobody attended more than 5 events
    assert {"extreme-sports_0_3/3/676", "extreme-sports_0_3/5/683"} <= listed
    assert all("every row" in p.message or "no row of" in p.message for p in dev.problems)
    assert len(dev.tasks) + len(listed) == 178
    assert load_tasks(shared_data / "discoverybench").problems == ()


def test_a_wide_year_table_is_checked_in_the_long_form_the_cell_uses(tmp_path: Path) -> None:
    """A World Bank style table (a column per year) answers a query naming a year and its
    indicator (the file name); an all-empty indicator is a problem. (The first half guards
    against false problems and passes on the code before the checks too.)"""
    years = [str(y) for y in range(1990, 1996)]
    header = "Country Name,Country Group," + ",".join(years)
    rows = ["A,Low income," + ",".join(str(i + j) for j in range(6)) for i in range(4)]
    columns = [("Country Name", "Country"), ("Country Group", "Income group"),
               *((y, f"Value in {y}") for y in years)]
    query = "How did the gdp per capita of low income countries change after 1990?"
    for name, body in (("wide", rows), ("empty", ["A,Low income,,,,,,", "B,Low income,,,,,,"])):
        folder = tmp_path / "real" / "test" / name
        folder.mkdir(parents=True)
        (folder / "gdp_per_capita.csv").write_text("\n".join([header, *body]) + "\n",
                                                   encoding="utf-8")
        meta = {"domain": "economics",
                "datasets": [{"name": "gdp_per_capita.csv", "description": "GDP per capita",
                              "columns": {"raw": [{"name": n, "description": d}
                                                  for n, d in columns]}}],
                "queries": [[{"qid": 0, "question": query}]]}
        (folder / "metadata_0.json").write_text(json.dumps(meta), encoding="utf-8")
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["wide/0/0"]
    (problem,) = report.problems
    assert problem.task_id == "empty/0/0" and "has no values" in problem.message


def test_groups_to_compare_are_no_population(tmp_path: Path) -> None:
    """'Differ between women and men' compares two groups (both present): a task. Women
    older than 90, of whom there are none, are an empty population: a problem."""
    table = ("age,female,income,score\n20,1,1,3\n30,0,2,5\n40,1,3,4\n50,0,5,9\n"
             "60,1,4,8\n70,0,2,6\n")
    columns = [("age", "Age of the respondent in years"),
               ("female", "Sex of the respondent (1 = female, 0 = male)"),
               ("income", "Yearly income of the respondent"),
               ("score", "Test score of the respondent")]
    _folder(tmp_path, "compare", table,
            "Does the relationship between income and score differ between women and men?",
            columns)
    _folder(tmp_path, "nobody", table,
            "How does income affect score in women with age above 90?", columns)
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["compare/0/0"]
    (problem,) = report.problems
    assert problem.task_id == "nobody/0/0" and "no row of data.csv has" in problem.message


def test_a_label_the_data_never_uses_is_the_readings_not_an_empty_population() -> None:
    """``project == Psychology`` where the column holds other project names: the data may
    hold that population under another label, so the task runs (the agent says what it could
    not find); a threshold nobody passes, or two labels that never occur together, are
    problems of the data."""
    from collabsim.domain.stats.model import StatPlan
    from collabsim.tasks.datachecks import population_problems

    frame = pd.DataFrame({"project": ["ML3", "ML3", "RRR", "RRR"], "site": ["a", "b", "a", "b"],
                          "age": [20, 30, 40, 70], "effect": [0.1, 0.2, 0.3, 0.4]})

    def problems(*filters):
        plan = StatPlan("data.csv", "effect", ("age",), filters=tuple(filters))
        return population_problems(plan, frame, "data.csv")

    assert problems(("project", "==", "Psychology")) == []
    assert problems(("age", ">", "90")) == [
        "no row of data.csv has age > 90 (the population the query asks about)"]
    assert problems(("project", "==", "ML3"), ("age", ">", "50")) != []
    assert problems(("project", "==", "ML3"), ("site", "==", "c")) == []
    frame.loc[1, "site"] = "c"
    assert problems(("project", "==", "RRR"), ("site", "==", "c")) != []


def test_a_companion_file_that_is_no_table_leaves_the_task_to_its_table(tmp_path: Path) -> None:
    """A phylogenetic tree (Newick text) beside a usable table: the query may need only the
    table, so the task loads; a metadata file whose only data file is no table is a problem."""
    tree = "((a:0.1,b:0.2):0.3,c:0.4);\n"
    meta_path = _folder(tmp_path, "withtree", GOOD_ROWS, GOOD_QUERY)
    (meta_path.parent / "tree.txt").write_text(tree, encoding="utf-8")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["datasets"].append({"name": "tree.txt", "description": "phylogenetic tree",
                             "columns": {"raw": []}})
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    alone = _folder(tmp_path, "treeonly", tree, GOOD_QUERY)
    report = load_tasks(tmp_path)
    assert [t.task_id for t in report.tasks] == ["withtree/0/0"]
    assert [p.path for p in report.problems] == [alone]
