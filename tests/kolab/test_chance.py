"""Chance levels: the stratified random guess, the global and the within-participant
(blocked) permutation nulls, the permutation p-value and the leak warning."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from collabsim.kolab.benchmark import SUSPICIOUS_MACRO_F1, run_benchmark
from collabsim.kolab.chance import (
    NULL_SCHEMES,
    PermutationNull,
    blocked_permutation,
    permutation_null,
    stratified_chance,
)
from collabsim.kolab.evaluate import LABELS, macro_f1
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


# ----------------------------------------------------------------------------- blocked null


class _TraitPredictor:
    """Leave-one-participant-out: per held-out participant, the training rows' majority label
    of each value of a known trait (a stand-in for any feature a real model could learn)."""

    def __init__(self, trait: dict[str, int]) -> None:
        self.trait = trait

    def predict_labels(self, instances: Sequence[Instance], y: np.ndarray) -> list[str]:
        people = np.array([i.participant_id for i in instances])
        traits = np.array([self.trait[i.instance_id] for i in instances])
        out: list[str] = [""] * len(instances)
        for person in dict.fromkeys(people.tolist()):
            held = people == person
            for t in set(traits[held].tolist()):
                pool = Counter(y[~held & (traits == t)].tolist())
                label = max(LABELS, key=lambda lab: (pool.get(lab, 0), -LABELS.index(lab)))
                for k in np.flatnonzero(held & (traits == t)):
                    out[k] = label
        return out


def _relabelled(instances: Sequence[Instance], labels: Sequence[str]) -> list[Instance]:
    return [replace(i, target=lab) for i, lab in zip(instances, labels, strict=True)]


def test_blocked_permutation_moves_labels_only_within_a_participant(
    explorer_instances: InstanceSet,
) -> None:
    inst = explorer_instances.by_task("1b")
    people = [i.participant_id for i in inst]
    y = np.array([i.target for i in inst], dtype=object)
    order = blocked_permutation(people, np.random.default_rng(0))
    assert sorted(order.tolist()) == list(range(len(inst)))
    assert all(people[k] == people[j] for j, k in enumerate(order))
    for person in set(people):
        mine = [j for j, p in enumerate(people) if p == person]
        assert Counter(y[order][mine].tolist()) == Counter(y[mine].tolist())
    assert (order != np.arange(len(inst))).sum() > len(inst) // 2  # it does shuffle
    again = blocked_permutation(people, np.random.default_rng(0))
    assert np.array_equal(order, again)


def test_blocked_null_keeps_what_the_person_alone_explains(
    explorer_instances: InstanceSet,
) -> None:
    """Labels set by a person-level trait: the global null says "signal", the blocked one
    (which keeps every person's labels) says "nothing beyond who the person is"."""
    inst = explorer_instances.by_task("1b")
    people = sorted({i.participant_id for i in inst})
    trait_of = {p: k % 3 for k, p in enumerate(people)}
    data = _relabelled(inst, [LABELS[trait_of[i.participant_id]] for i in inst])
    predictor = _TraitPredictor({i.instance_id: trait_of[i.participant_id] for i in data})
    y = np.array([i.target for i in data], dtype=object)
    observed = macro_f1(y.tolist(), predictor.predict_labels(data, y))
    assert observed == 1.0
    glob = permutation_null(predictor, data, observed, n_permutations=39, seed=0)
    blocked = permutation_null(
        predictor, data, observed, n_permutations=39, seed=0, scheme="blocked"
    )
    assert glob.scheme == "global" and blocked.scheme == "blocked"
    assert glob.p_value == pytest.approx(1 / 40) and glob.mean < 0.6
    assert blocked.p_value == 1.0 and blocked.mean == 1.0


def test_blocked_null_still_rejects_response_level_signal(
    explorer_instances: InstanceSet,
) -> None:
    """Labels set by a response-level trait (every person has all three): both nulls agree."""
    inst = explorer_instances.by_task("1b")
    trait = {i.instance_id: k % 3 for k, i in enumerate(inst)}
    data = _relabelled(inst, [LABELS[trait[i.instance_id]] for i in inst])
    predictor = _TraitPredictor(trait)
    y = np.array([i.target for i in data], dtype=object)
    observed = macro_f1(y.tolist(), predictor.predict_labels(data, y))
    for scheme in NULL_SCHEMES:
        null = permutation_null(
            predictor, data, observed, n_permutations=19, seed=0, scheme=scheme
        )
        assert null.p_value == pytest.approx(1 / 20), scheme
        assert null.mean < 0.6


def test_unknown_null_scheme_is_refused(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("1b")
    with pytest.raises(ValueError, match="unknown null scheme"):
        permutation_null(_TraitPredictor({}), inst, 0.5, n_permutations=1, scheme="within")
    with pytest.raises(ValueError, match="unknown null scheme"):
        run_benchmark(explorer_instances, [MajorityClass()], ["1b"], null_schemes=["within"])


def test_resolution_is_one_over_n_plus_one() -> None:
    assert PermutationNull("macro_f1", 0.4, (0.3,) * 999).resolution == pytest.approx(1e-3)
