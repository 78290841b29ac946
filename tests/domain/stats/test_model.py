"""The statistical family's plan and result values (collabsim.domain.stats.model)."""

import pytest

from collabsim.domain.stats.model import (
    Effect,
    StatPlan,
    StatResult,
    format_filters,
    parse_filters,
)


def test_a_fix_changes_exactly_the_parameters_it_names():
    plan = StatPlan("nls.csv", "bmi", ("time_pref",), controls=("age",))
    fixed = plan.with_fix({"controls": "none", "filters": "sex == 1; age >= 18"})
    assert fixed.controls == ()
    assert fixed.filters == (("sex", "==", "1"), ("age", ">=", "18"))
    assert (fixed.target, fixed.predictors, fixed.analysis) == ("bmi", ("time_pref",), "ols")
    assert plan.with_fix(plan.fix()) == plan


def test_a_printed_result_reads_back_equal():
    result = StatResult("logit", "obese", ("time_pref", "age"), ("income",),
                        (("race", "==", "black"),), n=812,
                        effects=(Effect("time_pref", 0.42, 0.003, 0.14, 0.70),
                                 Effect("age", -0.01, None)))
    assert StatResult.from_json(result.to_json()) == result
    assert result.key() == StatPlan("x.csv", "obese", ("time_pref", "age"), ("income",),
                                    (("race", "==", "black"),), "logit").key()


def test_filters_round_trip_and_a_bad_clause_is_named():
    filters = (("sex", "==", "1"), ("income", "<=", "5000"))
    assert parse_filters(format_filters(filters)) == filters
    assert parse_filters("none") == ()
    with pytest.raises(ValueError, match="sex is 1"):
        parse_filters("sex is 1")


def test_an_effect_states_direction_and_significance():
    assert Effect("x", -0.2, 0.01).direction == "negative"
    assert Effect("x", -0.2, 0.01).significant()
    assert not Effect("x", 0.2, 0.2).significant()
    assert not Effect("x", 0.2, None).significant()


def test_an_unknown_analysis_is_refused():
    with pytest.raises(ValueError, match="analysis"):
        StatPlan("a.csv", "y", ("x",), analysis="svm")
