"""The statistical judge gives no part by default (issue 36): what a text must state to earn
each part, shown on hand-built tasks where the old defaults gave full credit."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.metrics.judge_stats import StatsJudge, phrase_variables, relation_words
from collabsim.metrics.non_answers import non_answer_reason
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task


def _task(query: str, gold: str, *columns: tuple[str, str]) -> Task:
    data = DatasetInfo("data.csv", "a survey", tuple(ColumnInfo(n, d) for n, d in columns),
                       Path("data.csv"))
    return Task("survey/0/0", "survey", 0, 0, query, "relationship", "sociology", "", "",
                (data,), "discoverybench-real", gold)


@pytest.fixture(scope="module")
def judge() -> StatsJudge:
    return StatsJudge()


VENUE = _task(
    "Is there a relationship between venue size and ticket price and marketing reach?",
    "Venue size can be estimated based on a combination of ticket price and marketing reach.",
    ("venue_size", "Capacity of the venue"), ("ticket_price", "Average ticket price"),
    ("marketing_reach", "Reach of the venue's marketing"))


def test_an_unparsed_relation_is_no_match_for_the_query(judge: StatsJudge) -> None:
    # the gold states its relation in words the reader does not parse: the question itself
    # names the variables but states no relation (it scored 1 when such a gold gave full
    # relation credit)
    score = judge.score(VENUE.query, VENUE.gold_hypothesis, VENUE)
    assert score.variable_f1 == pytest.approx(1.0)
    assert score.relation == 0.0 and score.performance == 0.0, score.rationale


def test_a_worded_relation_is_matched_by_its_words(judge: StatsJudge) -> None:
    same = "Venue size is estimated based on ticket price and marketing reach combined."
    assert judge.score(same, VENUE.gold_hypothesis, VENUE).relation == 1.0
    # an association of its own for the gold's dependence: similar but more general
    assoc = ("Ticket price is positively associated with venue size (coefficient 4.4, "
             "p < 0.001); marketing reach is positively associated with venue size.")
    assert judge.score(assoc, VENUE.gold_hypothesis, VENUE).relation == 0.5
    assert judge.score(VENUE.gold_hypothesis, VENUE.gold_hypothesis, VENUE).performance == 1.0


def test_a_gold_naming_no_known_column_is_matched_by_its_words(judge: StatsJudge) -> None:
    task = _task("How is time preference related to obesity?",
                 "Higher time preference is associated with higher obesity.",
                 ("R0000100", "Identification code"), ("R0173600", "Sample code"))
    assert judge.score(task.gold_hypothesis, task.gold_hypothesis, task).performance == 1.0
    other = judge.score("Higher schooling is associated with higher wages.",
                        task.gold_hypothesis, task)
    assert other.variable_f1 == 0.0 and other.performance == 0.0, other.rationale
    half = judge.score("Higher time preference is associated with higher wages.",
                       task.gold_hypothesis, task)
    assert 0.0 < half.variable_f1 < 1.0


def test_a_number_echoed_from_the_query_is_no_match(judge: StatsJudge) -> None:
    task = _task("Is income associated with BMI with a coefficient of 0.82?",
                 "Income is positively associated with BMI with a coefficient of 0.82.",
                 ("BMI", "Body mass index"), ("INCOME", "Income of the respondent"))
    score = judge.score("Income is associated with BMI (coefficient 0.82).",
                        task.gold_hypothesis, task)
    assert score.relation == 0.0, score.rationale
    right = judge.score("Income is positively associated with BMI (coefficient 0.82).",
                        task.gold_hypothesis, task)
    assert right.performance == 1.0


def test_a_direction_the_query_states_is_no_match(judge: StatsJudge) -> None:
    task = _task("Which factor is positively associated with BMI?",
                 "Income is positively associated with BMI (coefficient 0.3).",
                 ("BMI", "Body mass index"), ("INCOME", "Income of the respondent"),
                 ("AGE", "Age of the respondent"))
    assert judge.score(task.query, task.gold_hypothesis, task).performance == 0.0


def test_a_direction_about_other_variables_is_no_match(judge: StatsJudge) -> None:
    task = _task("What explains BMI?",
                 "Income is positively associated with BMI.",
                 ("BMI", "Body mass index"), ("INCOME", "Income of the respondent"),
                 ("AGE", "Age of the respondent"))
    score = judge.score("Income is positively associated with age.", task.gold_hypothesis, task)
    assert score.relation == 0.0, score.rationale


def test_year_suffixed_columns_are_not_conflated(judge: StatsJudge) -> None:
    task = _task("How are savings related to income?",
                 "Savings 2008 are positively associated with income.",
                 ("savings_2004", "Savings of the household"),
                 ("savings_2008", "Savings of the household"),
                 ("income", "Household income"))
    other_year = judge.score("Savings 2004 are positively associated with income.",
                             task.gold_hypothesis, task)
    assert other_year.variable_f1 < 1.0, other_year.rationale
    assert judge.score(task.gold_hypothesis, task.gold_hypothesis, task).performance == 1.0


def test_a_group_written_under_its_code_is_the_same_context(judge: StatsJudge) -> None:
    task = _task("How is income associated with BMI?",
                 "Income is negatively associated with BMI among Black respondents.",
                 ("BMI", "Body mass index"), ("INCOME", "Income of the respondent"),
                 ("RACE", "Respondent's racial/ethnic cohort, contains one of three values "
                          "1:BLACK, 2:HISPANIC, 3:NON-BLACK NON-HISPANIC"))
    coded = judge.score("Income is negatively associated with BMI for rows with RACE == 1.",
                        task.gold_hypothesis, task)
    assert coded.context == 1.0, coded.rationale
    wrong = judge.score("Income is negatively associated with BMI for rows with RACE == 2.",
                        task.gold_hypothesis, task)
    assert wrong.context == 0.0


def test_significance_in_a_column_name_is_not_statistical(judge: StatsJudge) -> None:
    task = _task("Is there a relationship between religious significance and city size?",
                 "City size is determined by religious significance, which is significant.",
                 ("religious_significance", "Religious significance of the city"),
                 ("city_size", "Size of the city"))
    claim = judge.extract(task.query, task)
    assert claim["significance"] == []
    assert judge.score(task.query, task.gold_hypothesis, task).relation == 0.0


NON_ANSWERS = [
    "No rows of the data have region = north, so the relationship between age and income "
    "cannot be tested in that population.",
    "The data do not identify the variables the question asks about, so no statistical "
    "relationship can be stated.",
    "No statistical relationship between age and income can be established from the data "
    "(no predictor varies).",
    "The mean of income is 27.86 (n = 12686), ranging from 24 to 32.",
    "The most common values of region are north (40%), south (30%).",
    "The share with a degree is 40.0% (95% CI 38.1-41.9%).",
    "Income does not vary in the data analysed, so it shows no association with age.",
    "Racial/ethnic cohort, 1979 is 1 for all 187 rows in black men; it does not vary with "
    "time preference.",
]
FINDINGS = [
    "Income is negatively associated with BMI among Black respondents.",
    "The mean of income is highest where region is north (31.2) and lowest where region is "
    "south (22.0).",
    "The share with a degree is 40.0% where region is north; 22.0% where region is south.",
    "There is no significant association between age and income (p = 0.40).",
    "Venue size can be estimated based on ticket price.",
]


@pytest.mark.parametrize("text", NON_ANSWERS)
def test_non_answers_are_detected_and_score_zero(judge: StatsJudge, text: str) -> None:
    assert non_answer_reason(text) is not None
    gold = "Income is negatively associated with age; the mean of income is 27.86."
    task = _task("How is income related to age?", gold, ("income", "Income"), ("age", "Age"),
                 ("region", "Region"))
    assert judge.score(text, gold, task).performance == 0.0


@pytest.mark.parametrize("text", FINDINGS)
def test_findings_are_not_non_answers(text: str) -> None:
    assert non_answer_reason(text) is None


def test_a_gold_of_the_same_form_is_answered_by_it(judge: StatsJudge) -> None:
    gold = "The mean of income is 27.86."
    task = _task("What is the mean income?", gold, ("income", "Income of the respondent"))
    assert judge.score("The mean of income is 27.9 (n = 100).", gold, task).performance == 1.0


def test_a_summary_answers_a_query_asking_for_one() -> None:
    summary = "The mean of income is 27.86 (n = 12686), ranging from 24 to 32."
    assert non_answer_reason(summary, "How is income related to age?") is not None
    assert non_answer_reason(summary, "What is the average income of the respondents?") is None
    # a subset's statistic is a group answer, not a description of one column
    assert non_answer_reason("The share with remote work for rows with sector code == 2 is "
                             "6.8% (95% CI 3.8-9.7%).") is None


def test_a_yes_no_code_is_a_contrast_not_a_context(judge: StatsJudge) -> None:
    task = _task("Does the summer programme change school belonging?",
                 "Students in the summer programme report lower school belonging "
                 "(difference -4.1, p < 0.001).",
                 ("school_belonging", "School belonging score"),
                 ("summer_programme", "Took part in the summer programme (1 = yes, 0 = no)"))
    claim = ("School belonging is lower where summer programme = 1 (difference of means "
             "-4.069, p < 0.001).")
    assert judge.score(claim, task.gold_hypothesis, task).context == 1.0


COST = _task("Is there a relationship between the cost, the fabrics and the recycled materials?",
             "The average cost is calculated by adding 100 to 90 times the number of fabrics "
             "and then subtracting 450 times the percentage of recycled materials.",
             ("cost", "Average cost per costume"), ("fabrics", "Number of high-quality fabrics"),
             ("recycled", "Percentage of recycled materials used"))


def test_an_association_for_a_formula_is_more_general(judge: StatsJudge) -> None:
    # the gold's numbers are its formula's; an association of the claim's own about the
    # gold's variables is similar but more general (0.5); the question itself states none
    claim = "Fabrics is positively associated with cost, with a coefficient of 69.8 (p < 0.001)."
    assert judge.score(claim, COST.gold_hypothesis, COST).relation == 0.5
    assert judge.score(COST.query, COST.gold_hypothesis, COST).relation == 0.0
    # an association about other variables is not one of the gold's
    other = _task(COST.query, COST.gold_hypothesis, *[(c.name, c.description) for c in
                  COST.datasets[0].columns], ("age", "Age of the maker"))
    assert judge.score("Age is positively associated with fabrics (p < 0.001).",
                       other.gold_hypothesis, other).performance < 0.5


def test_a_significant_difference_across_groups_is_an_association(judge: StatsJudge) -> None:
    task = _task("Is there a relationship between events attended and skill level?",
                 "Skill level is determined by the number of events attended.",
                 ("events", "Number of events attended"), ("skill", "Skill level"))
    claim = "Events attended differs significantly across skill level (p < 0.001)."
    assert judge.score(claim, task.gold_hypothesis, task).relation == 0.5


BMI = _task("What explains BMI?", "Income is positively associated with BMI.",
            ("BMI", "Body mass index"), ("INCOME", "Income of the respondent"),
            ("AGE", "Age of the respondent"))


def test_other_factors_of_a_multi_factor_answer_neither_help_nor_hurt(judge: StatsJudge) -> None:
    # the scripted analyst's form: the lead, then the other factors one clause each
    claim = ("Among the factors considered, income is the most influential factor explaining "
             "BMI: the relationship is positive with a coefficient of 0.3 (p < 0.001). Other "
             "significant factors: age (negative, coefficient -0.2, p < 0.001).")
    assert judge.score(claim, BMI.gold_hypothesis, BMI).relation == 1.0


def test_both_directions_about_the_gold_variables_are_no_direction(judge: StatsJudge) -> None:
    hedge = "Income is positively associated with BMI. Income is negatively associated with BMI."
    assert judge.score(hedge, BMI.gold_hypothesis, BMI).relation == 0.0
    flipped = "Income is negatively associated with BMI. Age is positively associated with BMI."
    assert judge.score(flipped, BMI.gold_hypothesis, BMI).relation == 0.0


def test_a_gold_sentence_is_about_the_asked_columns_it_describes(judge: StatsJudge) -> None:
    # the gold only describes the gear column the query asks about ("own customized safety
    # gear"); the claim states the gold's direction about it and the outcome
    task = _task("What is the relationship between thrill-seeking scores and the ownership of "
                 "custom gear?",
                 "Participants who own customized safety gear, repeat participation, and have "
                 "accumulated more years of experience may tend to have higher thrill-seeking "
                 "scores.",
                 ("thrill_seeking_score", "A numerical score representing the participant's "
                                          "affinity for taking high risks"),
                 ("custom_gear_ownership", "Indicates if the participant owns customized "
                                           "safety gear for extreme sports"),
                 ("years_of_experience", "The number of years the participant has been "
                                         "involved in extreme sports."),
                 ("repeat_participation", "Indicates if the participant repeatedly engages in "
                                          "the same extreme sport"))
    claim = ("Thrill seeking score is positively associated with ownership of custom gear, "
             "with a coefficient of 0.04 (p = 0.035).")
    assert judge.score(claim, task.gold_hypothesis, task).relation == 1.0
    assert judge.score(claim.replace("positively", "negatively"), task.gold_hypothesis,
                       task).relation == 0.0


RULE = _task("Is there a relationship between mythological beliefs, a centralized religious "
             "structure, and the type of government?",
             "Civilizations with higher mythological beliefs and a centralized religious "
             "structure are classified as monarchies; otherwise, they are categorized as "
             "democracies.",
             ("mythological_beliefs", "Strength of mythological beliefs"),
             ("centralized_religious_structure", "Whether religion is centrally organised"),
             ("type_of_government", "Type of government"))


def test_an_association_for_a_rule_is_more_general_unless_it_opposes(judge: StatsJudge) -> None:
    # the rule's directions are its thresholds: an association of the claim's own about the
    # rule's variables is similar but more general; the opposite direction is not
    claim = ("Mythological beliefs differ significantly across centralized religious structure "
             "(p = 0.01); the mean is highest for structure = yes.")
    assert judge.score(claim, RULE.gold_hypothesis, RULE).relation == 0.5
    opposed = ("Mythological beliefs are negatively associated with centralized religious "
               "structure (p < 0.001).")
    assert judge.score(opposed, RULE.gold_hypothesis, RULE).relation == 0.0
    assert judge.score(RULE.query, RULE.gold_hypothesis, RULE).relation == 0.0


def test_a_significant_relationship_asked_about_is_no_association(judge: StatsJudge) -> None:
    task = _task("Is there a significant relationship between the social media engagement score "
                 "and the total viewer count?",
                 "The social media engagement score for the concert is influenced by the total "
                 "viewer count and the presence of guest artists.",
                 ("social_media_engagement_score", "Numerical score representing the level of "
                                                   "engagement of the artist"),
                 ("total_viewer_count", "Total number of people who watched the concert "
                                        "online."),
                 ("guest_artist_present", "Indicates whether guest artists performed during "
                                          "the concert."))
    assert judge.score(task.query, task.gold_hypothesis, task).performance == 0.0


def test_denying_the_strongest_factor_contradicts_the_gold(judge: StatsJudge) -> None:
    task = _task("Is income the most influential factor explaining BMI?",
                 "Income is the most influential factor explaining BMI; the relationship is "
                 "positive.", ("BMI", "Body mass index"), ("INCOME", "Income of the respondent"),
                 ("AGE", "Age of the respondent"))
    denied = judge.score("Income is positively associated with BMI, but it is not the most "
                         "influential factor (rank 2 of 3).", task.gold_hypothesis, task)
    assert denied.relation == 0.0, denied.rationale
    assert judge.score(task.gold_hypothesis, task.gold_hypothesis, task).performance == 1.0


def test_word_lists_are_compared_as_stems() -> None:
    # "income" is a variable word: "high income" is a population only as a whole
    assert phrase_variables("Health is better with more schooling.",
                            "Income is higher with more schooling.") == 0.5
    # "association" states no relation of its own, in any inflection
    assert relation_words("An association of X with Y is found in rural towns.", [], "") == {
        "found", "town"}


def test_numbers_of_its_own_are_off_where_the_gold_states_others(judge: StatsJudge) -> None:
    columns = (("BMI", "Body mass index"), ("INCOME", "Income of the respondent"),
               ("AGE", "Age of the respondent"))
    gold = "Income is negatively associated with BMI (coefficient -0.25)."
    claim = "Income is negatively associated with BMI (coefficient -0.40, p < 0.001)."
    # the query asks for the direction: the claim's is right, its number off
    which = _task("Which factor is negatively associated with BMI?", gold, *columns)
    assert judge.score(claim, gold, which).relation == 0.5
    # the query states the gold's number: another number of the claim's own is off
    stated = _task("Which factor is negatively associated with BMI, with a coefficient of "
                   "-0.25?", gold, *columns)
    assert judge.score(claim, gold, stated).relation == 0.5
    assert judge.score(gold, gold, stated).performance == 1.0


def test_a_trailing_factor_speaks_for_itself_not_for_the_lead(judge: StatsJudge) -> None:
    claim = ("Income has no significant association with BMI (coefficient 0.2, p = 0.50). "
             "Stronger: age (positive, coefficient 0.6, p < 0.001).")
    assert judge.score(claim, BMI.gold_hypothesis, BMI).relation == 0.0
