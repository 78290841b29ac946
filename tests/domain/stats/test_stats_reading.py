"""Reading a statistical query: target, predictors, controls, population, asks."""

from __future__ import annotations

from pathlib import Path

from helpers_stats import FISH, NLS, NLS_KNOWLEDGE, Brief, Col, Data

from collabsim.domain.stats.reading import read_query
from collabsim.tasks.discoverybench import load_tasks


def test_the_outcome_follows_influence_and_likelihood_words() -> None:
    q = read_query(Brief("How does age influence the likelihood of withdrawing more money "
                         "from savings than putting in?", (NLS,)))
    assert q.target == "DISSAVED"
    assert q.predictors == ("AGE",)
    assert "likelihood" in q.asks


def test_the_outcome_follows_lead_to_result_in_and_cause() -> None:
    for query in ("Does increased time preference lead to higher BMI?",
                  "Does higher income result in a lower BMI?", "Does income cause a higher BMI?"):
        q = read_query(Brief(query, (NLS,), domain_knowledge=NLS_KNOWLEDGE))
        assert q.target == "BMI", query


def test_between_a_list_and_one_column_the_single_side_is_the_target() -> None:
    cols = Data("d.csv", (Col("trade_schools"), Col("recession_occurred"),
                          Col("skilled_traders_percentage")))
    q = read_query(Brief("Is there a relationship between trade schools, recession occurred, "
                         "and the skilled traders percentage?", (cols,)))
    assert q.target == "skilled_traders_percentage"
    assert set(q.predictors) == {"trade_schools", "recession_occurred"}
    q = read_query(Brief("Is there a relationship between the skilled traders percentage and "
                         "a combination of trade schools and recession occurred?", (cols,)))
    assert q.target == "skilled_traders_percentage"


def test_controls_are_read_from_controlling_for() -> None:
    q = read_query(Brief("What is the effect of age on BMI, controlling for income?", (NLS,)))
    assert (q.target, q.predictors, q.controls) == ("BMI", ("AGE",), ("INCOME",))
    q = read_query(Brief("How does age affect BMI when income is considered?", (NLS,)))
    assert q.controls == ("INCOME",)


def test_population_words_become_filters_on_coded_columns() -> None:
    q = read_query(Brief("How is time preference associated with BMI in Black women?", (NLS,),
                         domain_knowledge=NLS_KNOWLEDGE))
    assert set(q.filters) == {("GENDER", "==", "FEMALE"), ("BLACK", "==", "1")}
    assert q.population == "in Black women"
    assert q.target == "BMI"
    # the concept stands for the proxy columns the domain knowledge names
    assert q.concept == "Time preference"
    assert set(q.predictors) == {"DISSAVED", "SAMESAVE"}
    coded = Data("d.csv", (Col("sex", "Sex of the respondent, 1:MALE or 2:FEMALE"),
                           Col("weight", "weight"), Col("height", "height")))
    q = read_query(Brief("Is height related to weight among men?", (coded,)))
    assert q.filters == (("sex", "==", "1"),)


def test_a_threshold_clause_is_a_filter_not_a_predictor() -> None:
    cols = Data("d.csv", (Col("average_trade_volume"), Col("ruling_dynasty_present"),
                          Col("military_presence", "number of soldiers")))
    q = read_query(Brief("Is there a relationship between the average trade volume and the "
                         "presence of ruling dynasties where the military presence is above "
                         "5000 soldiers?", (cols,)))
    assert q.filters == (("military_presence", ">", "5000"),)
    assert q.target == "ruling_dynasty_present"
    assert q.predictors == ("average_trade_volume",)


def test_asks_of_a_comparison_question() -> None:
    q = read_query(Brief("Which factors exhibit a negative relationship with speciation rates?",
                         (FISH,)))
    assert q.target == "BAMM_speciation"
    assert {"compare", "negative"} <= q.asks


def test_a_query_naming_no_column_has_no_target() -> None:
    q = read_query(Brief("Which two aspects have no significant association?", (FISH,)))
    assert q.target == "" and q.predictors == ()


def test_groups_named_in_the_query_or_by_a_knowledge_label() -> None:
    years = tuple(Col(f"{y} [YR{y}]", f"value in {y}") for y in range(2000, 2006))
    group = Col("Country Group", "The group of countries- Sub-Saharan Africa and Lower "
                                 "middle income")
    spend = Data("Education_expenditure.csv", (group, *years),
                 description="education expenditure (percentage of GNI)")
    gdp = Data("GNI_per_capita.csv", (group, *years), description="GNI per capita")
    knowledge = ("Lower middle income countries could be assumed to be coming under the "
                 "label of developing countries.")
    q = read_query(Brief("What is the impact of education expenditure on GNI per capita in "
                         "developing countries?", (spend, gdp), domain_knowledge=knowledge))
    assert (q.target, q.predictors) == ("GNI_per_capita", ("Education_expenditure",))
    assert q.filters == (("Country Group", "==", "Lower middle income"),)
    both = read_query(Brief("How does the effect of education expenditure on GNI per capita "
                            "compare between developing countries and countries in "
                            "Sub-Saharan Africa?", (spend, gdp), domain_knowledge=knowledge))
    assert both.filters == () and both.interaction == "Country Group"



def test_a_proxied_concept_names_no_column_of_its_own_words(shared_data: Path) -> None:
    # nls_bmi_raw has 61 columns and no BMI: "time" of "time preference" alone matched the
    # column described "sentenced to spend time in a corrections institute"
    tasks = {t.task_id: t for t in load_tasks(shared_data / "discoverybench_dev").tasks}
    for task_id in ("nls_bmi_raw/0/0", "nls_bmi_raw/1/0"):
        q = read_query(tasks[task_id])
        read = (q.target, *q.predictors)
        assert not any("sentenced" in column for column in read), (task_id, read)
        assert q.concept == "Time preference"
