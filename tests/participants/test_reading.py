"""Reading a task with the facts one holds: the generated suite's decisive facts decide the
plan, readers without them are right only by chance, and the open topics are found from the
brief alone."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from collabsim.core.knowledge import BY_PROFILE, EVERYONE, Fact
from collabsim.core.records import Profile
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.participants.cells import AnalysisResult, compute_cell, parse_result
from collabsim.participants.claims import check_numbers
from collabsim.participants.plan import resolve_plan
from collabsim.participants.query import parse_query
from collabsim.participants.reading import apply_facts, open_topics, read_brief
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.wording import draft_hypothesis
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task, TaskBrief
from tests.helpers.executors import run_cell

D = Profile("D", "data analysis", "check numbers", {"recompute_claims": True})
R = Profile("R", "researcher", "check wording", {"check_wording": True})


@pytest.fixture(scope="module")
def suite120(tmp_path_factory: pytest.TempPathFactory) -> tuple[Task, ...]:
    """The first 120 tasks of the default seed."""
    return load_tasks(generate_suite(tmp_path_factory.mktemp("suite120"), 120, seed=0)).tasks


def _year(task: Task) -> int:
    assert task.reference_workflow_path is not None
    return json.loads(task.reference_workflow_path.read_text())["completion"]["years"][0]


def _solve(task: Task, brief: TaskBrief) -> tuple[int | None, str]:
    """The year a scripted reader of ``brief`` computes (cell run), and its draft."""
    semantics, plan = read_brief(brief)
    result = parse_result(run_cell(compute_cell(plan), task.datasets[0].path.parent))
    return (None if result is None else result.year), draft_hypothesis(result, semantics)


def test_the_fact_decides_and_without_it_the_reader_is_right_only_by_chance(
        suite120: tuple[Task, ...]) -> None:
    """With its fact the scripted computation gives the gold year and the judge scores the
    draft 1.0; the agent under by_profile (no facts) computes the gold year on at most half
    of the tasks, and every wrong reading scores lower."""
    judge = RuleJudge()
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for task in suite120:
        (fact,) = task.facts
        gold = task.gold_hypothesis or ""
        year, draft = _solve(task, task.brief("agent", EVERYONE))
        assert year == _year(task), task.task_id
        assert judge.score(draft, gold, task).performance == 1.0, (task.task_id, draft)
        blind_year, blind_draft = _solve(task, task.brief("agent", BY_PROFILE))
        total[fact.topic] += 1
        if blind_year == year:
            right[fact.topic] += 1
        else:
            assert judge.score(blind_draft, gold, task).performance < 1.0, blind_draft
    share = sum(right.values()) / len(suite120)
    per_topic = {t: f"{right[t]}/{total[t]}" for t in sorted(total)}
    print(f"right without the fact: {share:.3f} of 120 tasks; per topic {per_topic}")
    assert share <= 0.5
    assert total["column"] == 60  # half the tasks have a data convention as decisive fact
    assert right["window"] == 0  # the decoy outside the named period wins
    assert right["column"] <= 0.5 * total["column"]
    assert right["ordinal"] <= 0.5 * total["ordinal"]


def test_every_generated_gold_scores_one_against_itself(generated_200: Path) -> None:
    judge = RuleJudge()
    for task in load_tasks(generated_200).tasks:
        gold = task.gold_hypothesis or ""
        assert judge.score(gold, gold, task).performance == 1.0, task.task_id


def test_open_topics_are_the_withheld_fact_and_nothing_under_everyone(
        suite120: tuple[Task, ...]) -> None:
    for task in suite120:
        (fact,) = task.facts
        for split, holder, expected in (
                (BY_PROFILE, "agent", (fact.topic,)),
                (EVERYONE, "agent", ()),
                (BY_PROFILE, "R", () if fact.kind == "reading" else (fact.topic,)),
                (BY_PROFILE, "D", () if fact.kind == "convention" else (fact.topic,))):
            brief = task.brief(holder, split)
            semantics, plan = read_brief(brief)
            assert open_topics(brief, semantics, plan) == expected, (task.query, holder)


def _brief(query: str, facts: tuple[Fact, ...] = (), columns: tuple[str, ...] = ()
           ) -> TaskBrief:
    names = ("CE", "Amber", "Amber_inter", "Dagger", "Dagger_inter", "pollen_grate",
             "pollen_grate_inter", *columns)
    info = DatasetInfo("data.csv", "", tuple(ColumnInfo(n, "") for n in names),
                       Path("data.csv"))
    return TaskBrief("t/0/0", query, "context", "", "", "", (info,), facts)


def _open(brief: TaskBrief) -> tuple[str, ...]:
    return open_topics(brief, *read_brief(brief))


def test_open_topics_come_from_the_query_and_the_columns() -> None:
    assert _open(_brief("In which century did amber increase for the first time?")) == ()
    assert _open(_brief("In which century did amber increase markedly?")) == ("ordinal",)
    assert _open(_brief("When were the values of amber at their highest?")) == ("relation",)
    assert _open(_brief("In which century did amber reach its highest value?")) == ()
    assert _open(_brief("When did amber begin to show its highest sustained values?")) == ()
    assert _open(_brief("In which century was the growth rate highest during the site's "
                        "main settlement phase?")) == ("window",)
    # a known period or a period with years leaves nothing open
    assert _open(_brief("In which century was the growth rate highest during the Late "
                        "Neolithic?")) == ()
    assert _open(_brief("In which century was the growth rate highest during the phase "
                        "between 2300 and 1800 BCE?")) == ()
    variants = ("Amber_recal", "Amber_recal_inter")
    assert _open(_brief("In which century did amber peak?", columns=variants)) == ("column",)
    held = Fact("convention", "column", "Amber_recal_inter is valid.",
                (("column", "Amber_recal_inter"),))
    assert _open(_brief("In which century did amber peak?", (held,), variants)) == ()


def test_apply_facts_and_a_held_column_fact_set_the_plan() -> None:
    brief = _brief("In which century did amber increase markedly?",
                   columns=("Amber_recal", "Amber_recal_inter"))
    plain = parse_query(brief)
    facts = (Fact("reading", "ordinal", "the third", (("ordinal", "3"),)),
             Fact("reading", "window", "2300-1800 BCE", (("window", "-2300..-1800"),)),
             Fact("reading", "relation", "nonsense", (("relation", "sideways"),)))
    read = apply_facts(plain, facts)
    assert (read.relation, read.ordinal, read.window) == ("rise", 3, (-2300, -1800))
    assert apply_facts(plain, ()) == plain
    assert resolve_plan(brief, plain).columns == ("Amber_inter",)
    column = Fact("convention", "column", "use recal", (("column", "Amber_recal_inter"),))
    held = _brief(brief.query, (column,), ("Amber_recal", "Amber_recal_inter"))
    plan = resolve_plan(held, parse_query(held))
    assert plan.columns == ("Amber_recal_inter",) and plan.raw_columns == ("Amber_recal",)
    # a fact naming a column the data does not have changes nothing
    missing = Fact("convention", "column", "use model", (("column", "Amber_model_inter"),))
    odd = _brief(brief.query, (missing,))
    assert resolve_plan(odd, parse_query(odd)).columns == ("Amber_inter",)


def test_scripted_readers_use_the_facts_of_their_brief(suite120: tuple[Task, ...]) -> None:
    """The agent reads the fact under everyone, not under by_profile; R and D read the
    facts their profile holds (mistakes off)."""
    differ = 0
    for task in suite120[:28]:
        full = read_brief(task.brief())[1]
        agent = ScriptedAgent(seed=0)
        assert agent.context(task.brief("agent", EVERYONE)).plan == full
        blind = ScriptedAgent(seed=0).context(task.brief("agent", BY_PROFILE)).plan
        differ += blind != full
        (fact,) = task.facts
        holder = ScriptedCollaborator(R if fact.kind == "reading" else D, seed=0)
        name = "R" if fact.kind == "reading" else "D"
        assert holder.reading(task.brief(name, BY_PROFILE)).plan == full
    assert differ >= 14


def test_d_objecting_to_the_wrong_dating_variant_does_not_call_it_raw() -> None:
    ours = AnalysisResult("peak", 1, ("Amber_recal_inter",), None, -3200)
    theirs = AnalysisResult("peak", 1, ("Amber_inter",), None, -4100)
    (issue,) = check_numbers("Around 4100 BCE, amber peaked.", ours, theirs)
    assert issue.kind == "wrong_column_variant" and "raw" not in issue.message
    assert "Amber_inter" in issue.message and issue.fix == (("column", "Amber_recal_inter"),)
    raw = AnalysisResult("peak", 1, ("Amber",), None, -4100)
    (issue,) = check_numbers("Around 4100 BCE, amber peaked.", replace(ours, columns=(
        "Amber_inter",)), raw)
    assert "the raw column has gaps" in issue.message
