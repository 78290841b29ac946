"""Held facts shape the statistical reading before the analysis is chosen; readings are
memoised per brief and held facts; moderators; binary outcomes with controls."""

from __future__ import annotations

from dataclasses import dataclass

from helpers_stats import Brief, Col, Data

from collabsim.domain.stats import reading
from collabsim.domain.stats.choice import column_kind, plan_for
from collabsim.domain.stats.reading import read_query


@dataclass(frozen=True)
class Fact:
    """What the reading reads of a held fact (``collabsim.core.knowledge.Fact.fix``)."""

    setting: tuple[tuple[str, str], ...]

    @property
    def fix(self) -> dict[str, str]:
        return dict(self.setting)


LABOUR = Data("data.csv", (
    Col("overtime_hours", "Paid overtime hours per week"),
    Col("job_training_days", "Days of on-the-job training in the last year"),
    Col("job_satisfaction", "Job satisfaction on a 0-10 scale"),
    Col("years_of_schooling", "Years of schooling"),
    Col("quit_within_year", "Left the employer within the following year (1 = yes, 0 = no)"),
    Col("quit_intention", "Intends to leave the employer, as said at the interview "
                          "(1 = yes, 0 = no)"),
    Col("remote_work", "Works from home at least one day a week (1 = yes, 0 = no)"),
    Col("sector_code", "Sector of the employer (code 1, 2 or 3; see the survey codebook)"),
    Col("part_time", "Works part time (1 = yes, 0 = no)"),
    Col("bonus_earnings_k", "Annual bonus payments in thousands of dollars"),
    Col("annual_earnings_k", "Annual earnings from the main job in thousands of dollars"),
))
HEALTH = Data("data.csv", (
    Col("sleep_duration_hours", "Average hours of sleep per night"),
    Col("perceived_stress_score", "Self-reported stress score on the 0-40 perceived stress "
                                  "scale"),
    Col("stress_cortisol_nmol", "Morning salivary cortisol (nmol/L), a physiological stress "
                                "marker"),
    Col("female", "Sex of the respondent (1 = female, 0 = male)"),
    Col("age", "Age of the respondent in years"),
))


def _brief(query: str, data: Data = LABOUR, **fix: str) -> Brief:
    facts = (Fact(tuple(fix.items())),) if fix else ()
    return Brief(query, (data,), facts=facts)


def test_a_held_target_names_the_outcome_before_the_analysis_is_chosen() -> None:
    query = "How does overtime hours relate to the odds of quitting?"
    plan = plan_for(_brief(query, target="quit_intention"))
    assert plan is not None
    assert (plan.target, plan.predictors, plan.analysis) == (
        "quit_intention", ("overtime_hours",), "logit")


def test_a_held_filter_column_is_no_variable() -> None:
    query = "What proportion of public-sector workers report remote work?"
    plan = plan_for(_brief(query, filters="sector_code == 2"))
    assert plan is not None
    assert plan.key() == ("analysis=proportion target=remote_work predictors=none "
                          "controls=none filters=sector_code == 2")


def test_held_predictors_and_controls_are_kept_and_an_analysis_fact_wins() -> None:
    query = "What is the relationship between job training and job satisfaction?"
    held = plan_for(_brief(query, controls="years_of_schooling"))
    assert held is not None and held.controls == ("years_of_schooling",)
    forced = plan_for(_brief(query, analysis="correlation"))
    assert forced is not None and forced.analysis == "correlation"


def test_a_binary_outcome_with_controls_gets_a_logistic_regression() -> None:
    assert column_kind(LABOUR.columns[4]) == "binary"
    assert column_kind(Col("sector_code", "Sector (code 1, 2 or 3; see the codebook)")) == \
        "categorical"
    query = ("Is overtime hours associated with the intention to quit among workers, "
             "controlling for years of schooling?")
    plan = plan_for(_brief(query))
    assert plan is not None
    assert (plan.target, plan.controls, plan.analysis) == (
        "quit_intention", ("years_of_schooling",), "logit")


def test_a_moderator_named_by_the_query_is_an_interaction() -> None:
    change = plan_for(_brief("How does sex change the relationship between sleep duration "
                             "and stress?", HEALTH, target="stress_cortisol_nmol"))
    assert change is not None
    assert (change.predictors, change.interaction) == (("sleep_duration_hours",), "female")
    moderated = plan_for(_brief("Is the association of overtime hours with earnings "
                                "moderated by part-time work?", target="bonus_earnings_k"))
    assert moderated is not None
    assert (moderated.target, moderated.predictors, moderated.interaction) == (
        "bonus_earnings_k", ("overtime_hours",), "part_time")
    groups = read_query(_brief("Does the relationship between sleep duration and stress "
                               "differ between women and men?", HEALTH,
                               target="perceived_stress_score"))
    assert groups.interaction == "female" and groups.filters == ()
    assert groups.phrases["female=1"] == "female" and groups.phrases["female=0"] == "male"


def test_readings_are_memoised_per_brief_and_facts_held() -> None:
    query = "How does overtime hours relate to the odds of quitting?"
    reading._READINGS.clear()
    first = read_query(_brief(query, target="quit_intention"))
    first.phrases["quit_intention"] = "changed by a caller"
    again = read_query(_brief(query, target="quit_intention"))
    assert len(reading._READINGS) == 1
    assert again.phrases.get("quit_intention") != "changed by a caller"
    other = read_query(_brief(query, target="quit_within_year"))
    assert len(reading._READINGS) == 2
    assert (again.target, other.target) == ("quit_intention", "quit_within_year")
    # another table with the same query reads its own columns
    assert read_query(_brief(query, HEALTH)).target != again.target
    for i in range(reading.READING_CACHE_SIZE + 5):
        read_query(_brief(f"Is overtime hours associated with job satisfaction {i}?"))
    assert len(reading._READINGS) == reading.READING_CACHE_SIZE


def test_the_agent_gets_the_reference_plan_of_every_generated_task_with_its_fact(
        tmp_path) -> None:
    """The generated suite's reference workflows record the right plan (read here only to
    evaluate; the reader sees the brief): with the task's decisive fact held, the agent's
    reading (``read_stat_brief``, the scripted agent's path) is that plan for every shape."""
    import json
    from pathlib import Path

    from collabsim.participants.stats_reading import read_stat_brief
    from collabsim.tasks.discoverybench import load_tasks
    from collabsim.tasks.stats_generator import SHAPES, generate_stats_suite

    root = generate_stats_suite(tmp_path / "suite", n_tasks=2 * len(SHAPES), seed=0)
    tasks = load_tasks(root).tasks
    assert len(tasks) == 2 * len(SHAPES)
    wrong = []
    for task in tasks:
        ref = json.loads(Path(task.reference_workflow_path).read_text())["completion"]
        _, plan = read_stat_brief(task.brief())
        if plan.key() != ref["plan"]["key"]:
            wrong.append((ref["shape"], plan.key(), ref["plan"]["key"]))
    assert wrong == []
