"""Choosing the analysis by the variables' kinds, the question and the tags."""

from __future__ import annotations

from helpers_stats import FISH, NLS, NLS_KNOWLEDGE, Brief, Col, Data

from collabsim.domain.stats.choice import (
    candidate_predictors,
    choose_analysis,
    column_kind,
    plan_for,
)
from collabsim.domain.stats.model import StatPlan


def test_column_kinds_from_names_and_descriptions() -> None:
    assert column_kind(Col("DISSAVED", "A boolean variable that equals 1 if ...")) == "binary"
    assert column_kind(Col("has_legal_system")) == "binary"
    assert column_kind(Col("GENDER", "Gender of the Respondent (MALE or FEMALE)")) == \
        "categorical"
    assert column_kind(Col("concert_genre", "Genre of the concert")) == "categorical"
    assert column_kind(Col("HYBAS_ID", "Identifier for basins")) == "id"
    assert column_kind(Col("lat", "latitude")) == "id"
    assert column_kind(Col("BMI", "Body mass index")) == "numeric"


def test_analysis_by_kinds() -> None:
    none: frozenset[str] = frozenset()
    assert choose_analysis("binary", ("numeric",), none) == "logit"
    assert choose_analysis("numeric", ("numeric", "binary"), none) == "ols"
    assert choose_analysis("numeric", ("binary",), frozenset({"difference"})) == "ttest"
    assert choose_analysis("numeric", ("binary",), frozenset({"difference"}),
                           "regression") == "ols"
    assert choose_analysis("numeric", ("categorical",), frozenset({"difference"})) == "anova"
    assert choose_analysis("numeric", ("numeric",), frozenset({"correlation"})) == "correlation"
    assert choose_analysis("categorical", ("categorical",), none) == "chi2"
    assert choose_analysis("categorical", ("numeric",), none) == "anova"
    assert choose_analysis("binary", (), none) == "proportion"
    assert choose_analysis("numeric", (), frozenset({"proportion"})) == "summary"
    # a control turns a two-group comparison into a regression
    assert choose_analysis("numeric", ("binary",), frozenset({"difference"}),
                           has_controls=True) == "ols"


def test_plan_for_a_population_query() -> None:
    brief = Brief("How does time preference impact BMI in Hispanic men?", (NLS,),
                  domain_knowledge=NLS_KNOWLEDGE, workflow_tags="regression, data selection")
    plan = plan_for(brief)
    assert plan == StatPlan("nls.csv", "BMI", ("DISSAVED", "SAMESAVE"),
                            filters=(("GENDER", "==", "MALE"),), analysis="ols")


def test_plan_for_a_binary_outcome_is_a_logit() -> None:
    plan = plan_for(Brief("How does age influence the likelihood of withdrawing more money "
                          "from savings?", (NLS,)))
    assert plan is not None
    assert (plan.target, plan.predictors, plan.analysis) == ("DISSAVED", ("AGE",), "logit")


def test_a_comparison_takes_every_candidate_predictor() -> None:
    plan = plan_for(Brief("Is the maximum body length evolution the most impactful factor in "
                          "explaining the speciation rates?", (FISH,)))
    assert plan is not None
    assert plan.target == "BAMM_speciation"
    assert plan.predictors[0] == "MBL_evol"  # the named one first
    assert set(plan.predictors) == {"MBL_evol", "BEL_evol", "OGP_evol", "diversity"}
    assert "HYBAS_ID" not in candidate_predictors(Brief("", (FISH,)), "BAMM_speciation")


def test_no_plan_without_a_target() -> None:
    assert plan_for(Brief("Which two aspects are unrelated?", (FISH,))) is None
    assert plan_for(Brief("How does age affect BMI?", ())) is None


def test_a_variables_question_naming_no_predictor_compares_the_candidates() -> None:
    brief = Brief("Tell me about the speciation rates.", (FISH,), question_type="variables")
    plan = plan_for(brief)
    assert plan is not None and plan.target == "BAMM_speciation"
    assert set(plan.predictors) == {"MBL_evol", "BEL_evol", "OGP_evol", "diversity"}
    relationship = plan_for(Brief("Tell me about the speciation rates.", (FISH,),
                                  question_type="relationship"))
    assert relationship is not None and relationship.predictors == ()


def test_a_query_pointing_at_the_columns_compares_them_unless_it_names_some() -> None:
    for query in ("Can the speciation rates be predicted using the provided dataset columns?",
                  "Is there a relationship between the characteristics of basins and the "
                  "speciation rates?"):
        plan = plan_for(Brief(query, (FISH,)))
        assert plan is not None and plan.target == "BAMM_speciation", query
        assert set(plan.predictors) == {"MBL_evol", "BEL_evol", "OGP_evol", "diversity"}, query
    named = plan_for(Brief("Is there a relationship between the characteristics of basins "
                           "such as diversity and the speciation rates?", (FISH,)))
    assert named is not None and len(named.predictors) == 1  # no candidates added
    assert {named.target, *named.predictors} == {"diversity", "BAMM_speciation"}


def test_a_plan_joins_only_tables_with_a_key_in_common() -> None:
    people = Data("people.csv", (Col("person_id"), Col("income", "Yearly income"),
                                 Col("age", "Age in years")))
    visits = Data("visits.csv", (Col("person_id"), Col("visits", "Doctor visits per year")))
    weather = Data("weather.csv", (Col("rainfall", "Yearly rainfall in mm"),))
    joined = plan_for(Brief("How does income relate to doctor visits?", (visits, people)))
    assert joined is not None and joined.dataset == "visits.csv|people.csv"
    assert (joined.target, joined.predictors) == ("visits", ("income",))
    # rainfall's table shares no column with the visits: it is left out, never paired by row
    apart = plan_for(Brief("How do income and rainfall relate to doctor visits?",
                           (visits, people, weather)))
    assert apart is not None and "weather.csv" not in apart.dataset
    assert "rainfall" not in apart.predictors and "income" in apart.predictors
    # a table that shares a key only with a table joined after it still joins, through it
    a = Data("a.csv", (Col("id"), Col("income", "Yearly income")))
    b = Data("b.csv", (Col("region_code"), Col("rainfall", "Yearly rainfall in mm")))
    c = Data("c.csv", (Col("id"), Col("region_code"), Col("visits", "Doctor visits per year")))
    chain = plan_for(Brief("How do rainfall and doctor visits relate to income?", (a, b, c)))
    assert chain is not None and chain.dataset == "a.csv|c.csv|b.csv"  # b joins through c
    assert (chain.target, set(chain.predictors)) == ("income", {"rainfall", "visits"})
