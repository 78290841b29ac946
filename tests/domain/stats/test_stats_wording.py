"""Wording a result in DiscoveryBench gold style."""

from __future__ import annotations

from collabsim.domain.stats.model import Effect, StatPlan, StatResult
from collabsim.domain.stats.wording import p_text, unanswered_hypothesis, word_hypothesis

PHRASES = {"SAMESAVE": "no change in savings", "DISSAVED": "withdrawing more than saving",
           "BMI": "BMI"}


def test_regression_states_direction_magnitude_significance_population() -> None:
    result = StatResult("ols", "BMI", ("SAMESAVE", "DISSAVED"),
                        filters=(("GENDER", "==", "MALE"),), n=1000,
                        effects=(Effect("SAMESAVE", 1.5799, 0.0001, 0.8, 2.3),
                                 Effect("DISSAVED", 0.5446, 0.225, -0.3, 1.4)))
    text = word_hypothesis(result, PHRASES, "in Hispanic men")
    assert text == (
        "No change in savings is positively associated with BMI in Hispanic men, with a "
        "coefficient of 1.58 (p < 0.001). Withdrawing more than saving has no significant "
        "association with BMI in Hispanic men (coefficient 0.5446, p = 0.225).")
    # without the query's words the filters are listed
    assert "for rows with GENDER == MALE" in word_hypothesis(result)


def test_controls_and_logit_scale_are_named() -> None:
    result = StatResult("logit", "DISSAVED", ("AGE",), controls=("INCOME",), n=50,
                        effects=(Effect("AGE", -0.0422, 0.0004, -0.06, -0.02),))
    assert word_hypothesis(result) == (
        "AGE is negatively associated with the likelihood of DISSAVED controlling for INCOME, "
        "with a coefficient (log-odds) of -0.0422 (p < 0.001).")


def test_comparison_leads_with_the_named_factor_and_its_rank() -> None:
    effects = (Effect("MBL_evol", 0.37, 0.0001, 0.2, 0.54),  # t = 4.3
               Effect("DR", 0.61, 0.0001, 0.5, 0.72),  # t = 10.9
               Effect("BEL_evol", 0.1, 0.4, -0.1, 0.3))
    result = StatResult("ols", "BAMM_speciation", ("MBL_evol", "DR", "BEL_evol"), n=100,
                        effects=effects)
    text = word_hypothesis(result, {"MBL_evol": "maximum body length evolution"},
                           asks=frozenset({"compare"}), focus="MBL_evol")
    assert text.startswith("Maximum body length evolution has a positive relationship with "
                           "BAMM speciation (coefficient 0.37, p < 0.001), but it is not the "
                           "most influential factor (rank 2 of 3).")
    top = word_hypothesis(result, asks=frozenset({"compare"}), focus="DR")
    assert top.startswith("DR is the most influential factor explaining BAMM speciation")
    negative = word_hypothesis(
        StatResult("ols", "y", ("a", "b"), n=9, effects=(Effect("a", -4.6, 0.001, -6, -3),
                                                          Effect("b", 2.0, 0.01, 1, 3))),
        asks=frozenset({"compare", "negative"}))
    assert negative.startswith("Among the factors considered, a has a significant negative "
                               "relationship with y, with a coefficient of -4.6")


def test_group_comparisons_and_proportions() -> None:
    ttest = StatResult("ttest", "bmi", ("smoker",), n=6,
                       effects=(Effect("smoker=1.0", 10.0, 0.002, 6.0, 14.0),))
    assert word_hypothesis(ttest) == ("Bmi is higher where smoker = 1.0 (difference of means "
                                      "10, p = 0.002).")
    share = StatResult("proportion", "obese", (), n=10,
                       effects=(Effect("all", 0.3, None, 0.1, 0.6),))
    assert word_hypothesis(share) == "The share with obese is 30.0% (95% CI 10.0-60.0%)."


def test_nothing_estimated_names_the_variables_and_why() -> None:
    noted = StatResult("ols", "y", ("income",), note="LookupError: not in the data: income")
    text = word_hypothesis(noted)
    assert text == ("No statistical relationship between income and y can be established "
                    "from the data (LookupError: not in the data: income).")
    assert "time-series" not in text
    assert "do not identify" in unanswered_hypothesis(StatPlan("d.csv", "", ()))
    assert p_text(0.0004) == "p < 0.001" and p_text(0.0384) == "p = 0.038"


def test_anova_of_a_categorical_outcome_names_both_variables() -> None:
    result = StatResult("anova", "skill_level", ("events",), n=90, effects=(
        Effect("events", 0.26, 0.0001), Effect("skill_level=beginner", 1.85),
        Effect("skill_level=intermediate", 27.2), Effect("skill_level=advanced", 9.0)))
    assert word_hypothesis(result) == (
        "Events differs significantly across skill level (eta squared 0.26, p < 0.001); the "
        "mean of events is highest for skill level = intermediate (27.2) and lowest for skill "
        "level = beginner (1.85).")


def test_levels_and_interactions_are_worded_as_such() -> None:
    result = StatResult("ols", "gdp", ("spend", "group"), interaction="group", n=80, effects=(
        Effect("spend", -600.0, 0.001, -900, -300),
        Effect("group=Africa", 350.0, 0.013, 80, 620),
        Effect("spend:group=Africa", 475.9, 0.479, -800, 1700)))
    assert word_hypothesis(result) == (
        "Spend is negatively associated with gdp, with a coefficient of -600 (p = 0.001). "
        "Gdp is higher where group is Africa than in the reference group (coefficient 350, "
        "p = 0.013). The association of spend with gdp does not differ significantly with "
        "group = Africa (interaction coefficient 475.9, p = 0.479).")


def test_an_empty_population_is_said_plainly() -> None:
    result = StatResult("ols", "gear", ("interest",), filters=(("speed", ">", "10"),),
                        note="ValueError: no rows where speed > 10")
    assert word_hypothesis(result) == ("No rows of the data have speed > 10, so the "
                                       "relationship between interest and gear cannot be "
                                       "tested in that population.")


def test_a_significant_interaction_with_a_coded_moderator_gives_the_slope_per_group() -> None:
    effects = (Effect("sleep", 1.879, 0.0001, 1.5, 2.2), Effect("female", 21.3, 0.0001, 19, 23),
               Effect("sleep:female", -2.964, 0.0001, -3.3, -2.6))
    result = StatResult("ols", "stress", ("sleep",), interaction="female", n=800,
                        effects=effects)
    labels = {"female=1": "female", "female=0": "male"}
    assert word_hypothesis(result, labels) == (
        "Higher sleep is associated with higher stress among male but with lower stress "
        "among female (interaction coefficient -2.964, p < 0.001).")
    same_way = StatResult("ols", "stress", ("sleep",), interaction="female", n=800,
                          effects=(effects[0], effects[1],
                                   Effect("sleep:female", 1.5, 0.0001, 1.1, 1.9)))
    assert word_hypothesis(same_way) == (
        "Higher sleep is associated with higher stress, and more strongly where female = 1 "
        "than where female = 0 (interaction coefficient 1.5, p < 0.001).")
