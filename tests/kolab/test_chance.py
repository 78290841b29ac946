"""Chance levels: the stratified random guess, the permutation p-value and the leak warning."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from collabsim.kolab.benchmark import SUSPICIOUS_MACRO_F1, run_benchmark
from collabsim.kolab.chance import PermutationNull, stratified_chance
from collabsim.kolab.instances import Instance, InstanceSet
from collabsim.kolab.predictors.base import PredictionRun, TaskKind
from collabsim.kolab.predictors.baselines import MajorityClass


def test_stratified_random_macro_f1_is_about_a_third_on_1b(
    explorer_instances: InstanceSet,
) -> None:
    y = [i.target for i in explorer_instances.by_task("1b")]
    level = stratified_chance("adoption", y, seed=0, n_draws=2000)["macro_f1"]
    # adopt 152, modify 63, reject 32: E[F1_c] ~ share_c, so the mean is ~1/3
    assert level.mean == pytest.approx(0.334, abs=0.01)
    assert level.low < 0.30 < 0.37 < level.high
    again = stratified_chance("adoption", y, seed=0, n_draws=2000)["macro_f1"]
    assert again == level


def test_stratified_random_rating_rho_is_centred_on_zero(explorer_instances: InstanceSet) -> None:
    y = [i.target for i in explorer_instances.by_task("2a")]
    levels = stratified_chance("rating", y, seed=0, n_draws=500)
    assert abs(levels["spearman"].mean) < 0.03
    assert levels["spearman"].low < -0.1 and levels["spearman"].high > 0.1
    assert 0.0 < levels["mae"].mean < 2.0


def test_permutation_p_value_counts_the_observed_score() -> None:
    null = PermutationNull("macro_f1", 0.40, (0.30, 0.41, 0.35, 0.40))
    assert null.p_value == pytest.approx((1 + 2) / (1 + 4))
    assert null.mean == pytest.approx(0.365)
    best = PermutationNull("macro_f1", 0.5, tuple(0.3 for _ in range(20)))
    assert best.p_value == pytest.approx(1 / 21)  # the floor with 20 permutations


class _ReadsTheLabel:
    """A predictor with a deliberate leak: it copies the target it should forecast."""

    name = "leaky"
    modality = "graph"
    kinds: tuple[TaskKind, ...] = ("adoption",)
    runs = 1

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        return PredictionRun(self.name, instances[0].task, self.modality, run,
                             tuple(i.instance_id for i in instances),
                             tuple(str(i.target) for i in instances))  # fmt: skip


def test_report_warns_when_an_offline_forecaster_scores_too_high(
    explorer_instances: InstanceSet,
) -> None:
    result = run_benchmark(
        explorer_instances, [MajorityClass(), _ReadsTheLabel()], ["1a", "1b"],
        n_boot=20, n_chance_draws=50, progress=False,
    )  # fmt: skip
    assert len(result.warnings) == 1  # 1b only: recognition (1a) sees the response
    assert result.warnings[0].startswith("1b leaky: macro-F1 1.000")
    assert f">= {SUSPICIOUS_MACRO_F1}" in result.warnings[0] and "leak" in result.warnings[0]
    assert set(result.chance) == {"1a", "1b"}
    assert result.chance["1b"]["majority_macro_f1"].mean == pytest.approx(0.254, abs=1e-3)
