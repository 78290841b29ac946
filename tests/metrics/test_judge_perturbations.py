"""The perturbation suite: the default judge orders gold above its perturbations."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from collabsim.metrics.judge_family import FamilyJudge
from collabsim.metrics.judge_perturbations import (
    KINDS,
    change_number,
    change_population,
    evaluate,
    flip_direction,
    perturbations,
    shared_gold_tasks,
    summary,
    wilson_interval,
)


def test_judge_orders_at_least_95_percent_of_200_pairs(shared_data: Path) -> None:
    tasks = shared_gold_tasks(shared_data)
    results = evaluate(tasks, FamilyJudge(), seed=0)
    assert len(results) >= 200
    assert {r.kind for r in results} == set(KINDS)
    rows = {row[0]: row for row in summary(results)}
    assert all(rows[kind][2] > 0 for kind in KINDS)
    assert all(r.gold_score == 1.0 for r in results)
    assert rows["overall"][3] >= 0.95, [r for r in results if not r.ordered]


def test_perturbations_are_deterministic_per_seed(shared_data: Path) -> None:
    tasks = shared_gold_tasks(shared_data)[:40]
    first = [p for t in tasks for p in perturbations(t, seed=3)]
    assert first == [p for t in tasks for p in perturbations(t, seed=3)]
    assert all(p.text != p.gold for p in first)


def test_edits_change_only_their_element() -> None:
    assert flip_direction("Income is positively associated with BMI.") == \
        "Income is negatively associated with BMI."
    assert flip_direction("Higher X goes with higher Y. Z has no significant effect on W.") == \
        "Higher X goes with lower Y. Z has a significant positive effect on W."
    assert flip_direction("X are more likely to smoke.") == "X are less likely to smoke."
    assert flip_direction("The rate is 0.5.") is None
    rng = np.random.default_rng(0)
    changed = change_number("a coefficient 0.3596 (p < 0.001) for 1989 data", rng)
    assert changed is not None and "p < 0.001" in changed and "1989" in changed
    assert "0.3596" not in changed
    assert change_population("BMI rises in Black women.", np.random.default_rng(1)) in {
        "BMI rises in White women.", "BMI rises in Black men."}
    assert change_population("BMI rises with income.", rng) is None


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(95, 100)
    assert lo == pytest.approx(0.8883, abs=1e-3) and hi == pytest.approx(0.9785, abs=1e-3)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
