"""The statistical family's mistakes, checks, facts and asking (issue 21, simulated humans).

Tiny hand-built plans, results and briefs: what a user relies on is that a drawn mistake
changes the plan or the statement the way its name says, that the draws leave the
time-series draws alone, and that a collaborator's check names each difference with a fix
the agent can apply.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.core.knowledge import FACT_TOPICS, STAT_TOPIC_KIND, STAT_TOPICS, Fact
from collabsim.core.tags import parse_facts, parse_issues
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief
from collabsim.domain.stats.model import Effect, StatPlan, StatResult
from collabsim.participants.asking import (
    believed_setting,
    fact_expertise,
    statement,
    topic_kind,
    whom_to_ask,
)
from collabsim.participants.human import AREAS, HumanModel, area_of
from collabsim.participants.plan import MISTAKE_KINDS, MistakeModel
from collabsim.participants.scripted_params import AgentParams
from collabsim.participants.stat_claims import (
    READING_TOPICS,
    check_plan,
    check_statement,
    stated_direction,
    stated_significance,
)
from collabsim.participants.stat_facts import (
    apply_stat_facts,
    held_fix,
    normalize_filters,
    stat_open_topics,
    usable_fix,
)
from collabsim.participants.stat_mistakes import (
    STAT_MISTAKE_KINDS,
    agent_stat_mistakes,
    apply_stat_mistakes,
    misread_result,
    similar_columns,
)

COLUMNS = (
    ColumnInfo("ba_degree", "Whether the respondent completed a BA degree (1 = yes)"),
    ColumnInfo("ses", "Socioeconomic status index of the family"),
    ColumnInfo("ses_parent", "Socioeconomic status index of the parents"),
    ColumnInfo("gpa", "High-school grade point average"),
    ColumnInfo("sex", "Sex of the respondent (1 = male, 2 = female)"),
    ColumnInfo("age", "Age in years"),
)
TABLE = DatasetInfo("nls.csv", "Survey panel", COLUMNS, Path("nls.csv"))


def brief(query: str = "Is SES a significant predictor of BA degree completion among women "
          "when GPA is controlled?", facts: tuple[Fact, ...] = ()) -> TaskBrief:
    return TaskBrief("nls/0/0", query, "relationship", "sociology", "", "", (TABLE,), facts,
                     "by_profile")


PLAN = StatPlan("nls.csv", "ba_degree", ("ses",), ("gpa",), (("sex", "==", "2"),), "logit")


def result(estimate: float = 0.4, p: float = 0.001, plan: StatPlan = PLAN) -> StatResult:
    return StatResult(plan.analysis, plan.target, plan.predictors, plan.controls,
                      plan.filters, n=500, effects=(Effect("ses", estimate, p, estimate - 0.1,
                                                           estimate + 0.1),))


# ---------------------------------------------------------------------- the mistakes
def test_each_plan_mistake_corrupts_the_part_it_names() -> None:
    b = brief()
    assert apply_stat_mistakes(PLAN, {"wrong_variable"}, b).predictors == ("ses_parent",)
    assert apply_stat_mistakes(PLAN, {"omitted_control"}, b).controls == ()
    assert apply_stat_mistakes(PLAN, {"wrong_subgroup"}, b).filters == ()
    assert apply_stat_mistakes(PLAN, {"linear_for_binary"}, b).analysis == "ols"
    # the wording kinds leave the plan alone; no mistake leaves it unchanged
    assert apply_stat_mistakes(PLAN, {"direction_misread", "significance_ignored"}, b) == PLAN
    # a mistake that does not apply has no effect (no controls to omit, ols stays ols)
    bare = StatPlan("nls.csv", "gpa", ("age",), analysis="ols")
    assert apply_stat_mistakes(bare, {"omitted_control", "wrong_subgroup",
                                      "linear_for_binary"}, b) == bare


def test_similar_columns_are_the_similar_sounding_ones() -> None:
    assert similar_columns("ses", brief(), "nls.csv")[0] == "ses_parent"
    assert similar_columns("age", brief(), "nls.csv") == ()


def test_wording_mistakes_change_what_is_stated() -> None:
    r = result(0.4, 0.2)  # positive, not significant
    flipped = misread_result(r, {"direction_misread"})
    assert flipped.effects[0].estimate == pytest.approx(-0.4)
    assert (flipped.effects[0].ci_low, flipped.effects[0].ci_high) == pytest.approx((-0.5, -0.3))
    assert misread_result(r, {"significance_ignored"}).effects[0].significant()
    assert not misread_result(result(0.4, 0.001), {"significance_ignored"}).effects[0].significant()
    assert misread_result(r, {"wrong_variable"}) == r


def test_stat_draws_leave_the_time_series_draws_unchanged() -> None:
    """The agent's and a person's time-series draws are those of a model without the
    statistical kinds; the statistical kinds are drawn at their rates."""
    old = MistakeModel(wrong_column_variant=0.15, wrong_ordinal=0.15, peak_vs_plateau=0.15,
                       wrong_window=0.1, ignore_teammate=0.2)
    new = AgentParams().mistakes
    assert new.omitted_control > 0
    for seed in range(40):
        assert new.draw(seed, f"t{seed}") == old.draw(seed, f"t{seed}")
    rates = MistakeModel(**{k: 1.0 for k in STAT_MISTAKE_KINDS})
    assert agent_stat_mistakes(rates, 3, "x") == frozenset(STAT_MISTAKE_KINDS)
    assert agent_stat_mistakes(MistakeModel(), 3, "x") == frozenset()
    assert not set(MISTAKE_KINDS) & set(STAT_MISTAKE_KINDS)
    # a collaborator's: in-area kinds at error_in_area, the others at error_outside
    human = HumanModel("computation", 1.0, 0.0, 1, 1, 1, 0, 0.5)
    assert human.draw_stat_mistakes(0, "D", "x") == {
        "omitted_control", "linear_for_binary", "significance_ignored"}
    assert human.draw_mistakes(0, "D", "x") == HumanModel(
        "computation", 1.0, 0.0, 1, 1, 1, 0, 0.5).draw_mistakes(0, "D", "x")


def test_areas_of_the_stat_kinds() -> None:
    for kind in ("omitted_control", "linear_for_binary", "significance_ignored"):
        assert area_of(kind) == "computation"
    for kind in ("wrong_variable", "wrong_subgroup", "direction_misread"):
        assert area_of(kind) == "semantics"
    assert set(STAT_MISTAKE_KINDS) <= AREAS["computation"] | AREAS["semantics"]


def test_rates_accept_a_documented_source() -> None:
    model = MistakeModel.from_mapping({"omitted_control": {"value": 0.2, "source": "prior:x"},
                                       "wrong_ordinal": 0.1})
    assert model.omitted_control == 0.2 and model.wrong_ordinal == 0.1


# ----------------------------------------------------------------------- the checks
def test_d_names_each_difference_of_the_plans_with_a_fix_the_agent_can_apply() -> None:
    shown = result(plan=StatPlan("nls.csv", "ba_degree", ("ses",), (), (), "ols"))
    issues = check_plan(PLAN, shown)
    assert [i.kind for i in issues] == ["omitted_control", "wrong_subgroup",
                                        "linear_for_binary"]
    # the fixes travel in chat tags and give back my plan
    tags = parse_issues(" ".join(i.tag() for i in issues))
    fixed = StatPlan("nls.csv", "ba_degree", ("ses",), analysis="ols")
    for _, fix in tags:
        fixed = fixed.with_fix(fix)
    assert fixed == PLAN
    assert check_plan(PLAN, result()) == ()


def test_r_checks_only_what_the_query_means() -> None:
    shown = result(plan=StatPlan("nls.csv", "ba_degree", ("ses_parent",), (), (), "ols"))
    kinds = [i.kind for i in check_plan(PLAN, shown, READING_TOPICS)]
    assert kinds == ["wrong_variable", "wrong_subgroup"]
    assert dict(check_plan(PLAN, shown, READING_TOPICS)[0].fix) == {"predictors": "ses"}


def test_stated_direction_and_significance_are_read_from_the_draft() -> None:
    assert stated_direction("Higher SES is associated with a higher likelihood.") == "positive"
    assert stated_direction("SES is negatively associated with BA completion.") == "negative"
    assert stated_direction("SES relates to BA completion.") is None
    assert stated_significance("SES is a statistically significant predictor.") is True
    assert stated_significance("SES is not a significant predictor.") is False
    assert stated_significance("There is no evidence that SES matters.") is False
    assert stated_significance("SES relates to BA completion.") is None


def test_the_statement_is_checked_against_the_result() -> None:
    draft = "Higher SES is significantly associated with lower odds of a BA degree."
    assert [i.kind for i in check_statement(draft, result(0.4, 0.001), True, False)] == [
        "direction_misread"]
    assert check_statement(draft, result(-0.4, 0.001), True, True) == ()
    kinds = [i.kind for i in check_statement(draft, result(-0.4, 0.3), True, True)]
    assert kinds == ["significance_ignored"]
    none = "SES is not a significant predictor of a BA degree."
    assert [i.kind for i in check_statement(none, result(0.4, 0.001), False, True)] == [
        "significance_ignored"]


# ------------------------------------------------------------------ facts and asking
def test_stat_topics_are_fact_topics_with_their_areas() -> None:
    assert set(STAT_TOPICS) <= set(FACT_TOPICS)
    assert whom_to_ask("controls", ("D", "R"))[0] == "D"
    assert whom_to_ask("analysis", ("R", "D"))[0] == "D"
    assert whom_to_ask("filters", ("D", "R"))[0] == "R"
    assert whom_to_ask("target", ("D", "R"))[0] == "R"
    assert topic_kind("controls") == "omitted_control"
    for topic, kind in STAT_TOPIC_KIND.items():
        fact = Fact(kind, topic, "x", ((topic, "none"),))  # type: ignore[arg-type]
        area = "computation" if topic in ("controls", "analysis") else "semantics"
        assert fact_expertise(fact) == area


def test_a_holder_applies_states_and_misstates_stat_facts() -> None:
    controls = Fact("convention", "controls", "Always adjust for GPA and age.",
                    (("controls", "gpa+age"),))
    women = Fact("reading", "filters", "The question is about women (sex == 2).",
                 (("filters", "sex == 2"),))
    ghost = Fact("reading", "target", "Use the other outcome.", (("target", "nope"),))
    b = brief(facts=(controls, women, ghost))
    bare = StatPlan("nls.csv", "ba_degree", ("ses",), analysis="logit")
    plan = apply_stat_facts(bare, b.facts, b)
    assert plan.controls == ("gpa", "age") and plan.filters == (("sex", "==", "2"),)
    assert plan.target == "ba_degree"  # a column the table lacks is ignored
    said = statement(b, "filters")
    assert said.startswith("The question is about women")
    assert parse_facts(said) == (("filters", {"filters": "sex == 2"}),)
    # stated wrongly (error rate 1): the last control left out, no filter
    assert dict(believed_setting(controls, b, 1.0, 0, "D")) == {"controls": "gpa"}
    assert dict(believed_setting(women, b, 1.0, 0, "R")) == {"filters": "none"}
    wrong = statement(b, "filters", lambda f: (("filters", "none"),))
    assert "whole table" in wrong


def test_open_topics_of_a_stats_query() -> None:
    bare = StatPlan("nls.csv", "ba_degree", ("ses",), analysis="ols")
    assert stat_open_topics(brief(), bare) == ("predictors", "controls", "filters",
                                                "analysis")
    settled = brief(facts=(Fact("convention", "controls", "x", (("controls", "gpa"),)),))
    assert "controls" not in stat_open_topics(settled, bare)
    assert stat_open_topics(brief("What is the mean age?"),
                            StatPlan("nls.csv", "age", (), analysis="summary")) == ()


def test_gold_style_sentences_are_read() -> None:
    """The wording of the family (collabsim.domain.stats.wording) read back."""
    sig = ("Socioeconomic status is positively associated with the likelihood of BA degree "
           "completion, with a coefficient (log-odds) of 0.4 (p < 0.001).")
    assert stated_direction(sig) == "positive" and stated_significance(sig) is True
    non = ("Socioeconomic status has no significant association with BA degree completion "
           "(coefficient -0.05, p = 0.412).")
    assert stated_significance(non) is False
    assert stated_significance("The mean is 3 (p = 0.2).") is False
    assert stated_direction("Gpa is higher where sex = 2 (difference of means 0.3).") == \
        "positive"
    # a draft about two effects is checked on the sentence about the first one
    two = result()
    two = StatResult(two.analysis, two.target, ("ses", "gpa"), n=9, effects=(
        Effect("ses", 0.4, 0.001), Effect("gpa", -0.2, 0.001)))
    draft = ("Ses is positively associated with BA degree (p < 0.001). Gpa is negatively "
             "associated with BA degree (p < 0.001).")
    assert check_statement(draft, two, True, True) == ()


def test_the_sentence_about_an_effect_is_checked_against_that_effect() -> None:
    """A gold-style draft leading with the most significant of several effects is checked
    on that effect, named by the query's words for it; a draft naming none is not judged."""
    shown = StatResult("ols", "speciation", ("MBL_evol", "DR"), n=9, effects=(
        Effect("MBL_evol", 0.37, 0.001), Effect("DR", 0.61, 0.0001)))
    draft = ("Among the factors considered, DR is the most significant predictor of speciation "
             "rates: the relationship is negative with a coefficient of -0.6133 (p < 0.001). "
             "Other significant factors: maximum body length evolution (negative, ...).")
    kinds = [i.kind for i in check_statement(draft, shown, True, True)]
    assert kinds == ["direction_misread"]
    assert "DR" in check_statement(draft, shown, True, True)[0].message
    right = draft.replace("negative with a coefficient of -0.6133", "positive with a "
                          "coefficient of 0.6133")
    assert check_statement(right, shown, True, True) == ()
    phrases = {"MBL_evol": "maximum body length evolution"}
    about_mbl = "Maximum body length evolution is negatively associated with speciation rates."
    assert [i.kind for i in check_statement(about_mbl, shown, True, False, phrases=phrases)
            ] == ["direction_misread"]
    assert check_statement("Something else entirely.", shown, True, True) == ()


def test_a_fix_from_chat_never_breaks_the_plan() -> None:
    """Compact filters (a tag without spaces, an LLM's answer) are read; parts naming no
    column of the table, an unknown analysis or an unreadable filter are left out."""
    b = brief()
    assert held_fix({"filters": "sex==2;age>=18"}, b, "nls.csv") == {
        "filters": "sex == 2; age >= 18"}
    assert held_fix({"filters": "nope == 1", "target": "ghost", "analysis": "magic",
                     "controls": "gpa+ghost", "predictors": "ses_parent"}, b, "nls.csv") == {
        "predictors": "ses_parent"}
    assert held_fix({"filters": "sex is two"}, b, "nls.csv") == {}
    plan = PLAN.with_fix(usable_fix(PLAN, {"filters": "sex==1", "controls": "none"}, b))
    assert plan.filters == (("sex", "==", "1"),) and plan.controls == ()
    assert normalize_filters("none") == "none"


def test_a_level_of_a_categorical_column_is_told_from_the_others() -> None:
    shown = StatResult("ols", "size", ("rating",), n=9, effects=(
        Effect("rating=low", 0.44, 0.01), Effect("rating=medium", -0.47, 0.049)))
    draft = ("Among the factors considered, rating = medium is the most influential factor "
             "explaining size: the relationship is negative with a coefficient of -0.47.")
    assert check_statement(draft, shown, True, True) == ()
    assert [i.kind for i in check_statement(draft.replace("medium", "low"), shown, True,
                                            False)] == ["direction_misread"]


def test_words_that_are_no_direction_are_not_read_as_one() -> None:
    assert stated_direction("No significant association with X (ols of y on a, b and 4 "
                            "others; more data would help).") is None
    assert stated_direction("Smokers are less likely to finish.") == "negative"


def test_a_term_the_columns_leave_open_is_asked_about() -> None:
    """"sleep" fits two columns the reader could not choose between: which variable the
    question means is open; a word shared by many columns (the table's topic) is not."""
    from collabsim.participants.stats_reading import read_stat_brief

    columns = (ColumnInfo("sleep_school_nights", "Hours of sleep on school nights"),
               ColumnInfo("sleep_weekends", "Hours of sleep on weekends"),
               ColumnInfo("school_belonging", "Sense of school belonging (scale)"),
               ColumnInfo("parental_education_years", "Years of parental education"))
    table = DatasetInfo("data.csv", "Pupils", columns, Path("data.csv"))
    b = TaskBrief("s/0/0", "Is sleep significantly associated with school belonging?",
                  "relationship", "education", "", "", (table,), (), "by_profile")
    query, plan = read_stat_brief(b)
    assert {"target", "predictors"} <= set(stat_open_topics(b, plan, query))
    held = Fact("reading", "predictors", "'Sleep' means sleep on school nights.",
                (("predictors", "sleep_school_nights"),))
    settled = TaskBrief(b.task_id, b.query, "relationship", "education", "", "", (table,),
                        (held,), "by_profile")
    assert "predictors" not in stat_open_topics(settled, *reversed(read_stat_brief(settled)))


def test_a_fix_naming_the_variables_rechooses_the_analysis() -> None:
    """A query read without its predictor gives a summary plan; a fact or an answer naming
    the predictor makes it the regression / test the reader would have chosen, unless the
    fix names the analysis too."""
    from collabsim.participants.stat_facts import fixed_plan, rechoose_after_facts

    b = brief()
    bare = StatPlan("nls.csv", "gpa", (), analysis="summary")
    assert fixed_plan(bare, {"predictors": "ses"}, b).analysis == "ols"
    assert fixed_plan(bare, {"predictors": "ses", "analysis": "summary"}, b).analysis == \
        "summary"
    binary = StatPlan("nls.csv", "ba_degree", (), analysis="proportion")
    assert fixed_plan(binary, {"predictors": "ses"}, b).analysis == "logit"
    held = brief(facts=(Fact("reading", "predictors", "x", (("predictors", "ses"),)),))
    assert rechoose_after_facts(bare.with_fix({"predictors": "ses"}), held).analysis == "ols"
    # a plan read with its predictors keeps the reader's choice
    assert rechoose_after_facts(StatPlan("nls.csv", "gpa", ("ses",), analysis="summary"),
                                brief()).analysis == "summary"
