"""Benchmark metrics: agreement with scikit-learn, invalid replies, seeded bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from collabsim.kolab.evaluate import (
    LABELS,
    Resampler,
    _rating_metric,
    bootstrap_interval,
    confusion,
    evaluate_runs,
    macro_f1,
    macro_f1_codes,
    rating_scores,
    spearman,
    spearman_rho,
)


def test_macro_f1_agrees_with_sklearn() -> None:
    rng = np.random.default_rng(3)
    y_true = rng.choice(LABELS, size=200, p=[0.6, 0.3, 0.1]).tolist()
    y_pred = rng.choice(LABELS, size=200).tolist()
    expected = f1_score(y_true, y_pred, labels=list(LABELS), average="macro", zero_division=0)
    assert macro_f1(y_true, y_pred) == pytest.approx(expected)


def test_invalid_predictions_count_as_wrong() -> None:
    y_true = ["adopt", "adopt", "modify", "reject"]
    valid = ["adopt", "adopt", "modify", "reject"]
    with_invalid = ["adopt", None, "modify", "reject"]
    assert macro_f1(y_true, valid) == 1.0
    assert macro_f1(y_true, with_invalid) < 1.0
    matrix = confusion(y_true, with_invalid)
    assert matrix.shape == (3, 4) and matrix[0, 3] == 1 and matrix.sum() == 4
    ev = evaluate_runs("adoption", y_true, [with_invalid], n_boot=20)
    assert ev.n_invalid == 1 and ev.values["pred_share_invalid"] == 0.25


def test_rating_scores_by_hand() -> None:
    scores = rating_scores([5, 4, 1, 3], [5.0, 5.0, 3.0, None])
    assert scores["n_valid"] == 3
    assert scores["mae"] == pytest.approx(1.0)
    assert scores["within1"] == pytest.approx(2 / 3)
    assert scores["mae_true1"] == 2.0 and np.isnan(scores["mae_true2"])


def test_runs_give_mean_std_and_a_seeded_bootstrap() -> None:
    y_true = ["adopt"] * 6 + ["modify"] * 3 + ["reject"] * 2
    run1 = ["adopt"] * 6 + ["modify"] * 3 + ["reject"] * 2
    run2 = ["adopt"] * 11
    ev = evaluate_runs("adoption", y_true, [run1, run2], seed=7, n_boot=200)
    one = macro_f1(y_true, run1)
    two = macro_f1(y_true, run2)
    assert ev.runs == 2
    assert ev.values["macro_f1"] == pytest.approx((one + two) / 2)
    assert ev.stds["macro_f1"] == pytest.approx(abs(one - two) / 2)
    lo, hi = ev.intervals["macro_f1"]
    assert lo <= ev.values["macro_f1"] <= hi
    again = evaluate_runs("adoption", y_true, [run1, run2], seed=7, n_boot=200)
    assert again.intervals == ev.intervals


def test_participant_bootstrap_resamples_whole_participants() -> None:
    groups = ["p1"] * 3 + ["p2"] * 2 + ["p3"]
    resampler = Resampler(6, groups)
    rng = np.random.default_rng(0)
    for _ in range(20):
        idx = resampler.draw(rng).tolist()
        for members in ([0, 1, 2], [3, 4], [5]):
            # a participant is drawn whole, as often as it is picked
            counts = {idx.count(m) for m in members}
            assert len(counts) == 1
    y_true = ["adopt", "adopt", "modify", "reject", "adopt", "modify"]
    pred = ["adopt", "modify", "modify", "adopt", "adopt", "modify"]
    clustered = evaluate_runs("adoption", y_true, [pred], n_boot=200, groups=groups)
    plain = evaluate_runs("adoption", y_true, [pred], n_boot=200)
    assert clustered.values == plain.values
    # both intervals are reported: over instances (as without groups) and over participants
    assert clustered.intervals == plain.intervals and plain.cluster_intervals == {}
    assert clustered.cluster_intervals != clustered.intervals


def test_fast_spearman_rho_is_scipys_to_the_last_bit() -> None:
    """The bootstraps, chance draws and nulls use spearman_rho: every value they report
    (written to metrics.csv, chance.csv, nulls.csv at full precision) must be the one
    scipy's spearmanr gives, ties, constant sides and tiny samples included."""
    rng = np.random.default_rng(7)
    cases = [([1.0, 2.0], [2.0, 1.0]), ([3.0, 3.0, 3.0, 3.0], [1.0, 2.0, 3.0, 4.0]),
             ([1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0]), ([1.0, 2.0, 2.0], [0.5, 0.25, 0.25])]
    for trial in range(600):
        n = int(rng.integers(3, 130))
        t = rng.integers(1, 6, n).astype(float)
        noise = rng.normal(0, 1, n) if trial % 2 else rng.integers(-2, 3, n)
        cases.append((t.tolist(), np.clip(t + noise, 1, 5).round(trial % 4).tolist()))
    for t, p in cases:
        want = spearman(t, p)[0]
        got = spearman_rho(np.array(t), np.array(p))
        assert (np.isnan(want) and np.isnan(got)) or got == want, (t, p)


def test_macro_f1_of_label_codes_is_macro_f1_to_the_last_bit() -> None:
    rng = np.random.default_rng(8)
    for n in range(1, 80):
        t, p = rng.integers(0, 3, n), rng.integers(0, 4, n)  # 3 = an invalid prediction
        labels = [LABELS[i] if i < 3 else None for i in p]
        assert macro_f1_codes(t, p) == macro_f1([LABELS[i] for i in t], labels)


def test_rating_intervals_are_the_generic_bootstraps_numbers() -> None:
    """evaluate_runs' rating intervals (a fast path over arrays) equal bootstrap_interval
    of each rating metric over lists, with the same draws: invalid predictions, two runs,
    the instance and the participant bootstrap."""
    rng = np.random.default_rng(9)
    n = 60
    y = rng.integers(1, 6, n).tolist()
    noisy = np.clip(np.array(y) + rng.normal(0, 1, n), 1, 5).round(1)
    runs = [[float(v) if k % 9 else None for k, v in enumerate(noisy)], noisy[::-1].tolist()]
    groups = [f"p{k % 8}" for k in range(n)]
    ev = evaluate_runs("rating", y, runs, seed=4, n_boot=200, groups=groups)
    for got, gen, grp in ((ev.intervals, np.random.default_rng(4), None),
                          (ev.cluster_intervals, np.random.default_rng([4, 1]), groups)):
        for name in ("mae", "within1", "spearman"):
            want = bootstrap_interval(_rating_metric(name), y, runs, gen, 200,
                                      resampler=Resampler(n, grp))
            assert got[name] == want, name
