"""Deterministic hypothesis judge: years, periods, variables, relations."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from collabsim.domain.time_expr import context_scores, extract_time_anchors, years_in_text
from collabsim.metrics.judge_rules import RuleJudge
from collabsim.metrics.outcome import HypothesisScore, relation_score
from collabsim.tasks.model import Task

DEPOTS = "Around 1100 BCE, the Depots peaked."


@pytest.fixture(scope="module")
def judge() -> RuleJudge:
    return RuleJudge()


def spans(text: str) -> list[tuple[int, int]]:
    return [(a.lo, a.hi) for a in extract_time_anchors(text)]


def test_all_38_archaeology_golds_score_one_against_themselves(
    judge: RuleJudge, archaeology: dict[str, Task], discoverybench_root: Path
) -> None:
    with (discoverybench_root / "eval" / "answer_key_real.csv").open(encoding="utf-8") as fh:
        golds = {
            f"archaeology/{r['metadataid']}/{r['query_id']}": r["gold_hypo"]
            for r in csv.DictReader(fh)
            if r["dataset"] == "archaeology"
        }
    assert len(golds) == 38
    for task_id, gold in golds.items():
        score = judge.score(gold, gold, archaeology[task_id])
        assert score.performance == 1.0, (task_id, score.rationale)
        assert score.context_recall == 1.0


def test_every_dated_gold_yields_time_anchors_and_variables(
    judge: RuleJudge, archaeology: dict[str, Task]
) -> None:
    undated = {"archaeology/20/0", "archaeology/21/0", "archaeology/22/0"}  # PCA loadings
    for task_id, task in archaeology.items():
        seen = judge.extract(task.gold_hypothesis or "", task)
        assert seen["variables"], task_id
        assert bool(seen["anchors"]) == (task_id not in undated), task_id


def test_off_by_one_century_is_within_tolerance(judge: RuleJudge) -> None:
    score = judge.score("Around 1200 BCE, the depots peaked.", DEPOTS)
    assert score.performance == 1.0
    assert judge.score("Depots peak in 1000 BCE.", DEPOTS).performance == 1.0


def test_wrong_century_scores_zero_context(judge: RuleJudge) -> None:
    score = judge.score("Around 1500 BCE, the depots peaked.", DEPOTS)
    assert score.context == 0.0 and score.context_recall == 0.0
    assert score.variable_f1 == 1.0 and score.relation == 1.0
    assert score.performance == 0.0


def test_wrong_variable_scores_zero_variable_f1(judge: RuleJudge) -> None:
    score = judge.score("Around 1100 BCE, the sickles peaked.", DEPOTS)
    assert score.variable_f1 == 0.0 and score.context == 1.0
    assert score.performance == 0.0


def test_wrong_relation_scores_zero_relation(judge: RuleJudge) -> None:
    score = judge.score("Around 1100 BCE, the depots declined.", DEPOTS)
    assert score.relation == 0.0 and score.performance == 0.0
    lowest = judge.score("Around 1100 BCE, depots reached their lowest level.", DEPOTS)
    assert lowest.relation == 0.0


def test_named_period_matches_gold_years(judge: RuleJudge) -> None:
    gold = (
        "In the beginning of Younger Bronze Age (1100-500 BCE), the monument count decreased, "
        "remained low and stable and did not show a significant increase thereafter."
    )
    claim = "At the start of the Younger Bronze Age the monument count declined and stayed low and stable."
    score = judge.score(claim, gold)
    assert score.performance == 1.0, score.rationale
    late = judge.score("Around 700 BCE the monument count declined and stayed low and stable.", gold)
    assert late.context == 0.0


def test_period_name_against_year_gold(judge: RuleJudge) -> None:
    gold = "During the Middle Neolithic (3400-3000 BCE), axes peak."
    assert judge.score("Around 3200 BCE axes peak.", gold).performance == 1.0
    assert judge.score("In the Middle Neolithic, axes peak.", gold).performance == 1.0
    vague = judge.score("In the Neolithic, axes peak.", gold)
    assert 0.0 < vague.context < 1.0  # recall 1, precision < 1: over-wide claim


def test_century_and_millennium_forms(judge: RuleJudge) -> None:
    gold = "Around 2300/2200 BCE, the number of daggers began to increase for the first time."
    claim = "In the 23rd century BCE daggers increased for the first time."
    assert judge.score(claim, gold).performance == 1.0
    assert judge.score("Daggers first rise at -2300.", gold).performance == 1.0
    axes = "At the end of the 4th millennium BCE, axes become quantitatively most frequent."
    assert judge.score("Axes peak around 3200 BCE.", axes).performance == 1.0
    assert judge.score("Axes peak around 3800 BCE.", axes).context == 0.0


def test_ordinal_mismatch_is_half_relation(judge: RuleJudge) -> None:
    gold = "Around 1000 BCE, house sizes and daggers significantly decrease simultaneously the second time."
    claim = "Around 1000 BCE, house sizes and daggers decrease simultaneously for the first time."
    assert judge.score(claim, gold).relation == 0.5


def test_swapped_directions_contradict(judge: RuleJudge) -> None:
    gold = "Around 1800 BCE, Diversity in Pottery Form collapses, while Diversity in Pottery Decoration increases."
    swapped = "Around 1800 BCE, pottery form increases while pottery decoration collapses."
    assert judge.score(swapped, gold).relation == 0.0
    same = "Around 1700 BCE pottery form declines while pottery decoration rises."
    assert judge.score(same, gold).performance == 1.0


def test_task_columns_are_synonyms(judge: RuleJudge, archaeology: dict[str, Task]) -> None:
    task = archaeology["archaeology/3/0"]
    score = judge.score("The ZHort series has its maximum at 1100 BCE.", DEPOTS, task)
    assert score.variable_f1 == 1.0 and score.performance == 1.0


def test_empty_hypothesis_scores_zero(judge: RuleJudge) -> None:
    assert judge.score("  ", DEPOTS).performance == 0.0


def test_performance_is_product_and_clipped() -> None:
    s = HypothesisScore.combine(0.5, 0.8, 1.5, math.nan, "x", "")
    assert s.relation == 1.0 and s.context_recall == 0.0
    assert s.performance == pytest.approx(0.4)


def test_time_expression_forms() -> None:
    assert spans("between 3400 and 3000 BCE") == [(-3400, -3000)]
    assert spans("1100-500BCE") == [(-1100, -500)]
    assert spans("3400 BCE to 3000 BCE") == [(-3400, -3000)]
    assert spans("around 1800 BC") == [(-1800, -1800)]
    assert spans("500 AD") == [(500, 500)]
    assert spans("the 3rd millennium BCE") == [(-3000, -2001)]
    assert spans("the past 500 years in 1400 BCE") == [(-1400, -1400)]
    assert spans("pollen_inter_100 and PC1 were -0.45") == []
    assert spans("Late Neolithic") == [(-2200, -1700)]


def test_context_scores_definition() -> None:
    gold = extract_time_anchors("1100 BCE")
    wide = extract_time_anchors("between 2000 and 1000 BCE")
    recall, precision = context_scores(wide, gold)
    assert recall == 1.0 and precision == pytest.approx(0.2)
    assert context_scores([], gold) == (0.0, 0.0)
    assert context_scores(wide, []) == (1.0, 1.0)


def test_relation_without_gold_relation_is_one() -> None:
    assert relation_score("Amber in 3000 BCE", "Amber around 3000 BCE")[0] == 1.0


def test_years_in_code_output() -> None:
    years = years_in_text("peak: -2700 value 3.95\n  2300  0.8\n-1.13")
    assert {-2700, 2300, -2300} <= years and -1 not in years


def test_restated_query_window_is_not_the_answer(
    judge: RuleJudge, archaeology: dict[str, Task]
) -> None:
    task = archaeology["archaeology/36/0"]  # window 3000-2000 BCE, gold 2900-2800 BCE
    gold = task.gold_hypothesis or ""
    wrong = "Around 2300 BCE, the growth rate reached its highest value of the period between 3000 and 2000 BCE."
    right = "Around 2800 BCE, the growth rate reached its highest value of the period between 3000 and 2000 BCE."
    assert judge.score(wrong, gold, task).context == 0.0
    assert judge.score(right, gold, task).performance == 1.0


def test_lowest_value_vs_greatest_decline_is_partial(judge: RuleJudge) -> None:
    gold = "Between 2500 BCE & 2300 BCE we see the greatest decline in smoothed growth rate."
    claim = "Around 2400 BCE, the growth rate reached its lowest value."
    assert judge.score(claim, gold).relation == 0.5


def test_opposite_moves_imply_divergence(judge: RuleJudge) -> None:
    gold = ("In 1700 BCE, for the first time, Diversity in Pottery Decoration shows a significant "
            "increase while Diversity in Pottery Form experiences a notable decline. This marks a "
            "unique divergence in the growth trends of these two cultural capital variables.")
    claim = ("Around 1700 BCE, pottery decoration increased while pottery form declined "
             "simultaneously for the first time.")
    assert judge.score(claim, gold).performance == 1.0


def test_periods_defined_in_the_task_query_are_learnt(archaeology: dict[str, Task]) -> None:
    from dataclasses import replace

    from collabsim.domain.time_expr import learn_periods

    assert learn_periods("during the Funnel Beaker Culture (4000-3300 BCE)?") == {
        "funnel beaker culture": (-4000, -3300)
    }
    task = replace(archaeology["archaeology/32/0"],
                   query="When did axes peak during the Funnel Beaker Culture (4000-3300 BCE)?")
    gold = "Around 3300 BCE, Axes & Celts peak."
    claim = "Axes & Celts peak in the Funnel Beaker Culture."
    assert RuleJudge().score(claim, gold, task).context_recall == 1.0
    assert RuleJudge().score(claim, gold).context_recall == 0.0  # unknown without the task
