"""The statistical hypothesis judge: hand-built gold-style sentences with hand-computed parts,
the family dispatch (time-series tasks keep the rule judge exactly) and paraphrases."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.metrics.judge_family import FamilyJudge, is_time_series_task
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.metrics.judge_stats import StatsJudge, number_matches
from collabsim.metrics.pipeline import outcome_score
from collabsim.metrics.stats_claims import read_claim
from collabsim.tasks.discoverybench import load_task, load_tasks
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task

GOLD = "Income is negatively associated with BMI in women (coefficient -0.25, p < 0.001)."


def _task(query: str = "How is income associated with BMI in women?") -> Task:
    columns = (ColumnInfo("BMI", "Body mass index of the respondent"),
               ColumnInfo("INCOME", "The income of the respondent in the year 1989"),
               ColumnInfo("AGE", "The age of the respondent in the year 1989"),
               ColumnInfo("GENDER", "Gender of the Respondent (MALE or FEMALE)"),
               ColumnInfo("SAMESAVE", "A boolean variable that equals 1 if the respondent's "
                          "savings level did not change or the respondent had no savings"),
               ColumnInfo("BLACK", "A boolean variable that indicated if the respondent "
                          "belongs to the black race or not"))
    data = DatasetInfo("nls.csv", "survey", columns, Path("nls.csv"))
    return Task("nls/0/0", "nls", 0, 0, query, "relationship", "sociology", "", "regression",
                (data,), "discoverybench-real", GOLD)


@pytest.fixture(scope="module")
def judge() -> StatsJudge:
    return StatsJudge()


@pytest.mark.parametrize(
    ("claim", "parts"),
    [
        (GOLD, (1.0, 1.0, 1.0)),
        # a paraphrase: direction from "higher ... lower", 0.26 within 5 % of 0.25
        ("Higher income goes with lower BMI among women, coefficient -0.26 (p=0.002).",
         (1.0, 1.0, 1.0)),
        # direction flipped: a contradiction
        ("Income is positively associated with BMI in women (coefficient 0.25, p < 0.001).",
         (1.0, 1.0, 0.0)),
        # right direction, no significance and no number: more general -> 0.5
        ("Income is negatively associated with BMI in women.", (1.0, 1.0, 0.5)),
        # number off by 60 %: partly right
        ("Income is negatively associated with BMI in women (coefficient -0.40, p < 0.001).",
         (1.0, 1.0, 0.5)),
        # not significant vs significant: a contradiction
        ("Income is negatively associated with BMI in women (coefficient -0.25, p = 0.40).",
         (1.0, 1.0, 0.0)),
        # BMI replaced by age: precision 1/2, recall 1/2; the direction is stated about income
        # and age, not the gold's income and BMI: only the numbers match
        ("Income is negatively associated with age in women (coefficient -0.25, p < 0.001).",
         (1.0, 0.5, 0.5)),
        # the query's own population ("women") need not be restated ...
        ("Income is negatively associated with BMI (coefficient -0.25, p < 0.001).",
         (1.0, 1.0, 1.0)),
        # ... but another population is a different context (precision 0)
        ("Income is negatively associated with BMI in men (coefficient -0.25, p < 0.001).",
         (0.0, 1.0, 1.0)),
    ],
)
def test_hand_computed_parts(judge: StatsJudge, claim: str,
                             parts: tuple[float, float, float]) -> None:
    score = judge.score(claim, GOLD, _task())
    assert (score.context, score.variable_f1, score.relation) == pytest.approx(parts), \
        score.rationale
    assert score.performance == pytest.approx(parts[0] * parts[1] * parts[2])
    assert score.judge == "stats"


def test_gold_controls_are_context(judge: StatsJudge) -> None:
    gold = "Income is negatively associated with BMI, controlling for age and gender."
    task = _task("Does income predict BMI?")
    without = judge.score("Income is negatively associated with BMI.", gold, task)
    assert (without.context_recall, without.context) == (0.0, 0.0)
    half = judge.score("Income is negatively associated with BMI, adjusting for age.",
                       gold, task)
    assert half.context_recall == pytest.approx(0.5)
    assert half.context == pytest.approx(2 * 0.5 * 1 / 1.5)
    full = judge.score("Holding age and gender constant, higher income goes with lower BMI.",
                       gold, task)
    assert full.performance == 1.0, full.rationale
    # a claim's extra controls are not penalised when the gold names none
    extra = judge.score("Income is negatively associated with BMI in women (coefficient "
                        "-0.25, p < 0.001), controlling for age.", GOLD, _task())
    assert extra.performance == 1.0, extra.rationale


def test_gold_prose_and_claim_controls_name_variables(judge: StatsJudge) -> None:
    task = _task("Is saving behaviour related to BMI?")
    # the gold describes SAMESAVE in words; the claim names the column
    gold = "BMI is higher for respondents whose savings level did not change."
    assert judge.score("SAMESAVE is positively associated with BMI.", gold,
                       task).variable_f1 == 1.0
    # a gold variable the claim holds constant still counts as named (recall)
    both = "Income and age are both negatively associated with BMI."
    held = judge.score("Income is negatively associated with BMI, controlling for age.",
                       both, task)
    assert held.variable_f1 == 1.0 and held.context == 1.0, held.rationale
    # a column written as its name is a variable, not a population
    assert read_claim("BLACK is the strongest predictor of BMI.").population == frozenset()
    assert read_claim("BMI is higher in Black women.").population == {"black", "female"}


def test_null_result_and_significance_words(judge: StatsJudge) -> None:
    gold = "Income has no significant association with BMI."
    claim = read_claim(gold)
    assert claim.direction == {"null"} and claim.significance == {"not significant"}
    task = _task("Is income related to BMI?")
    assert judge.score("BMI and income are not significantly related (p = 0.31).",
                       gold, task).performance == 1.0
    assert judge.score("Income is positively associated with BMI (p < 0.01).",
                       gold, task).relation == 0.0
    assert read_claim("p-value: 0.000").significance == {"significant"}
    nothing = read_claim("None of the factors considered has a significant association with Y.")
    assert (nothing.direction, nothing.significance) == ({"null"}, {"not significant"})
    assert read_claim("X is not the most influential factor.").shapes == {"not strongest"}
    assert read_claim("X is the most influential factor.").shapes == {"strongest"}
    assert read_claim("a weak but significant, positive relationship").direction == {"positive"}


def test_numbers_and_tolerance() -> None:
    assert read_claim("coefficient -4.6 and 3.0e-05, 20%, $500 (p<0.05) for 1989 data, "
                      "bio12").numbers == ((4.6, 1), (3.0e-05, 6), (0.2, 2), (500.0, 0))
    assert number_matches(0.3596, (0.36, 2))          # 0.1 % off
    assert number_matches(0.0038, (0.004, 3))          # 5.3 % off, the claim's rounding
    assert number_matches(0.82, (0.8, 1))              # 2.4 % off
    assert number_matches(0.4858, (0.5, 1))            # 2.9 % off, the claim's rounding
    assert not number_matches(0.82, (0.9, 1))          # 9.8 % off: tol = min(0.05, 0.082)
    assert not number_matches(0.82, (1.23, 2))         # the perturbation suite's x 1.5


def test_empty_hypothesis_scores_zero(judge: StatsJudge) -> None:
    assert judge.score("  ", GOLD, _task()).performance == 0.0


def test_time_series_tasks_keep_the_rule_judge_exactly(
    archaeology: dict[str, Task], discoverybench_root: Path
) -> None:
    family, rules = FamilyJudge(), RuleJudge()
    tasks = list(archaeology.values())
    assert len(tasks) == 38 and all(is_time_series_task(t) for t in tasks)
    claims = [t.gold_hypothesis for t in tasks] + [
        "The data do not allow a definite answer with a standard time-series check; "
        "tentatively, daggers rise.",
        "Around 2300 BCE, copper and gold finds increased for the first time.",
        "Income is negatively associated with BMI (coefficient -0.25, p < 0.001).",
    ]
    for task in tasks:
        for claim in claims:
            assert family.score(claim, task.gold_hypothesis, task) == \
                rules.score(claim, task.gold_hypothesis, task)
    world = [t for t in load_tasks(discoverybench_root).tasks
             if t.dataset.startswith("worldbank")]
    assert world and not any(is_time_series_task(t) for t in world)


def test_default_outcome_judge_follows_the_task_family(
    archaeology: dict[str, Task], shared_data: Path
) -> None:
    arch = archaeology["archaeology/0/0"]
    assert outcome_score(arch.gold_hypothesis, arch).judge == "rules"
    fish = load_task(shared_data / "discoverybench_dev", "evolution_freshwater_fish/2/1")
    score = outcome_score("Body elongation evolution rate shows no significant association "
                          "with speciation rates (p = 0.41).", fish)
    assert score.judge == "stats" and score.performance == 1.0, score.rationale
    assert outcome_score("The rate of body elongation evolution is positively associated "
                         "with speciation rates.", fish).performance == 0.0


PARAPHRASES = [
    ("evolution_freshwater_fish/0/0",
     "Speciation rates are positively associated with the rate of maximum body length "
     "evolution (linear coefficient 0.82), the most influential of the predictors."),
    ("evolution_freshwater_fish/1/1",
     "Speciation rates fall as the evolutionary rates of oral gape position and relative "
     "maxillary length rise (coefficients -4.6 and -4.9)."),
    ("evolution_freshwater_fish/3/1",
     "Species diversity is positively associated with speciation rates (coefficient "
     "3.0e-05, p < 0.05)."),
    ("nls_bmi/0/1",
     "BMI is positively associated with having taken more money out of savings than put in "
     "(coefficient 0.36) and with unchanged savings (coefficient 0.49) in the 1989 data."),
    ("nls_bmi/4/0",
     "Income is negatively associated with keeping the same level of savings (coefficient "
     "-0.0038, p < 0.001)."),
    ("nls_bmi_raw/1/0", "Among Black men, higher time preference goes with higher obesity."),
    ("ancient-civilizations_0_3/2/44",
     "The percentage of skilled traders is 20 plus 1.5 times the number of trade schools "
     "minus 15 times the occurrence of an economic recession."),
]


@pytest.mark.parametrize(("task_id", "claim"), PARAPHRASES)
def test_reworded_correct_hypotheses_score_one(shared_data: Path, task_id: str,
                                               claim: str) -> None:
    task = load_task(shared_data / "discoverybench_dev", task_id)
    score = FamilyJudge().score(claim, task.gold_hypothesis, task)
    assert score.performance == 1.0, score.rationale


def test_odd_writing_is_read_not_crashed_on(judge: StatsJudge) -> None:
    claim = read_claim("Income is negatively associated with BMI (β = −0.25, p-value: .03; "
                       "n = 12,686).")
    assert claim.direction == {"negative"} and claim.significance == {"significant"}
    assert (0.25, 2) in claim.numbers and (12686.0, 0) in claim.numbers
    score = judge.score("Income ↓ BMI ∞ 1e400 %%% (p < 0.05)", GOLD, _task())
    assert 0.0 <= score.performance <= 1.0
    # tasks sharing an id but not their columns do not share a column reader
    other = _task()
    other = Task(other.task_id, "x", 0, 0, other.query, "", "", "", "",
                 (DatasetInfo("y.csv", "", (ColumnInfo("wealth", "Wealth"),), Path("y.csv")),),
                 "discoverybench-real", GOLD)
    assert "wealth" in judge.lexicon(other).columns
    assert "BMI" not in judge.lexicon(other).columns
    assert "BMI" in judge.lexicon(_task()).columns


def test_places_framed_by_the_query_and_complementary_groups(judge: StatsJudge) -> None:
    task = _task("How does conflict relate to temples in ancient Mesopotamian cities?")
    gold = "In ancient Mesopotamia, income is negatively associated with BMI."
    assert judge.score("Income is negatively associated with BMI.", gold, task).context == 1.0
    assert judge.score("In ancient Egypt, income is negatively associated with BMI.", gold,
                       task).context == 0.0
    # a place the query does not name is the gold's context
    other = _task("How does income relate to BMI?")
    assert judge.score("Income is negatively associated with BMI.", gold, other).context == 0.0
    # "female or male" categories name no subgroup
    assert read_claim("Participants are classified as female or male.").population == set()


def test_a_written_out_row_filter_is_context_not_a_variable(judge: StatsJudge) -> None:
    task = _task("How is income associated with BMI?")
    claim = ("Income is negatively associated with BMI for rows with gender == FEMALE, with a "
             "coefficient of -0.25 (p < 0.001).")
    assert judge.variables(claim, task) == {"INCOME", "BMI"}
    # a group contrast written with '=' after a difference stays a variable
    assert "GENDER" in judge.variables("BMI is lower where gender = 1 (difference of means "
                                       "-0.5, p < 0.001).", task)
    gold = "Income is negatively associated with BMI (coefficient -0.25, p < 0.001)."
    assert judge.score(claim, gold, task).variable_f1 == 1.0


def test_an_interval_with_one_percent_sign_is_two_percentages() -> None:
    numbers = read_claim("The share is 9.5% (95% CI 5.5-14.0%).").numbers
    assert (0.055, 3) in numbers and (0.14, 3) in numbers
    assert all(value < 1 for value, _ in numbers)
    # a gold coefficient of 5.5 is not matched by the interval's lower end
    assert not any(number_matches(5.5, c) for c in numbers)


def test_scores_are_memoised_per_texts_and_task(judge: StatsJudge) -> None:
    claim = "Income is negatively associated with BMI (coefficient -0.25, p < 0.001)."
    first = judge.score(claim, GOLD, _task())
    assert judge.score(claim, GOLD, _task()) is first
    # another query frames another context: not the memoised score
    other = judge.score(claim, GOLD, _task("How is income associated with BMI?"))
    assert other is not first and other.context != first.context


def test_the_judge_follows_the_participants_family_switch() -> None:
    """A task without tables is answered on the time-series path (``family_of``), so its
    hypotheses get the time-series judge too; a padded ``" CE "`` column is a time axis."""
    from types import SimpleNamespace

    from collabsim.domain.stats.family import TIME_SERIES, family_of

    no_tables = SimpleNamespace(datasets=(), task_id="t", query="q", domain_knowledge="")
    padded = SimpleNamespace(datasets=(SimpleNamespace(columns=(SimpleNamespace(name=" CE "),)),))
    for task in (no_tables, padded):
        assert family_of(task) == TIME_SERIES
        assert is_time_series_task(task)
    assert FamilyJudge().judge_for(no_tables).name == "rules"
