"""The learned predictor's permutation null: the label-free work it reuses across
permutations (fold featurizers, design matrices, unweighted Gram matrices) and the Gram
matrix it shares across configurations leave every number exactly as a plain per-design fit
gives it, and the same seed gives the same null."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from collabsim.kolab.chance import null_from_predictions, null_targets, permutation_null
from collabsim.kolab.evaluate import LABELS
from collabsim.kolab.instances import InstanceSet
from collabsim.kolab.predictors.learned import LearnedPredictor, ModelConfig, _FoldData


def _plain_ridge(
    x: np.ndarray, t: np.ndarray, weights: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted ridge with an unpenalised intercept, written out once per design and penalty."""
    w = weights / weights.sum()
    x_mean, t_mean = w @ x, w @ t
    xc = x - x_mean
    gram = xc.T @ (xc * weights[:, None])
    coef = np.linalg.solve(gram + alpha * np.eye(x.shape[1]), xc.T @ ((t - t_mean) * weights[:, None]))
    return coef, t_mean - x_mean @ coef


class _PerDesignReference(LearnedPredictor):
    """Fits every configuration from its own design matrix, nothing shared or cached but
    the fold featurizers (which never see labels)."""

    def _fit_rows(
        self,
        fold: _FoldData,
        fit: np.ndarray,
        pred: np.ndarray,
        configs: Sequence[ModelConfig],
        codes: np.ndarray,
    ) -> list[np.ndarray]:
        feats = self._featurizer(fold.table, fold.counts, fit)
        out = []
        for cfg in configs:
            x_fit, x_pred = feats.matrix(fit, cfg), feats.matrix(pred, cfg)
            columns = []
            for y in codes.T:  # one target set at a time
                columns.append(self._one(fold, fit, pred, cfg, x_fit, x_pred, y))
            out.append(np.stack(columns, axis=1))
        return out

    @staticmethod
    def _one(fold: _FoldData, fit: np.ndarray, pred: np.ndarray, cfg: ModelConfig,
             x_fit: np.ndarray, x_pred: np.ndarray, y: np.ndarray) -> np.ndarray:  # fmt: skip
        if fold.kind == "adoption":
            counts = np.bincount(y, minlength=len(LABELS))
            present = np.flatnonzero(counts)
            if len(present) < 2:
                return np.full(len(pred), present[0] if len(present) else 0)
            n_class = np.zeros(len(LABELS))
            n_class[present] = len(present) * counts[present]
            targets = np.where(y[:, None] == present[None, :], 1.0, -1.0)
            coef, b = _plain_ridge(x_fit, targets, len(y) / n_class[y], cfg.alpha)
            return present[np.argmax(x_pred @ coef + b, axis=1)]
        assert fold.offsets is not None
        dev = (y - fold.offsets[fit])[:, None]
        coef, b = _plain_ridge(x_fit, dev, np.ones(len(y)), cfg.alpha)
        return np.clip(fold.offsets[pred] + (x_pred @ coef + b)[:, 0], 1.0, 5.0)


@pytest.mark.parametrize("task", ["1b+h", "2a"])
def test_fast_null_gives_exactly_the_per_design_numbers(
    explorer_instances: InstanceSet, task: str
) -> None:
    inst = explorer_instances.by_task(task)
    # column subsets of one another, two penalties of one design, every feature group
    grid = (
        ModelConfig(("text", "cues", "structure", "history"), 32, 30.0),
        ModelConfig(("text", "cues", "structure", "history"), 32, 300.0),
        ModelConfig(("text", "history"), 8, 30.0),
        ModelConfig(("cues", "history"), 0, 300.0),
    )
    fast = LearnedPredictor(progress=False, inner_folds=3, grid=grid)
    slow = _PerDesignReference(progress=False, inner_folds=3, grid=grid)
    y = np.array([i.target for i in inst], dtype=object if task == "1b+h" else float)
    expected = fast.predict_labels(inst, y)
    # the fold featurizers never see labels; sharing them halves the test's cost
    slow._prepared, slow._fold_cache = fast._prepared, fast._fold_cache
    assert expected == slow.predict_labels(inst, y)
    for scheme in ("global", "blocked"):
        a = permutation_null(fast, inst, 0.0, n_permutations=2, seed=3, scheme=scheme)
        b = permutation_null(slow, inst, 0.0, n_permutations=2, seed=3, scheme=scheme)
        assert a.scores == b.scores, scheme


def test_same_seed_same_null_with_a_warm_or_a_fresh_predictor(
    explorer_instances: InstanceSet,
) -> None:
    inst = explorer_instances.by_task("1b")
    grid = (ModelConfig(("text", "cues"), 8, 30.0), ModelConfig(("cues", "structure"), 0, 300.0))
    warm = LearnedPredictor(progress=False, grid=grid, inner_folds=3)
    first = permutation_null(warm, inst, 0.0, n_permutations=3, seed=5, scheme="blocked")
    again = permutation_null(warm, inst, 0.0, n_permutations=3, seed=5, scheme="blocked")
    fresh = permutation_null(
        LearnedPredictor(progress=False, grid=grid, inner_folds=3), inst, 0.0,
        n_permutations=3, seed=5, scheme="blocked",
    )  # fmt: skip
    assert first.scores == again.scores == fresh.scores
    other = permutation_null(warm, inst, 0.0, n_permutations=3, seed=6, scheme="blocked")
    assert other.scores != first.scores


@pytest.mark.slow
@pytest.mark.parametrize("task", ["1c-k1", "2a"])
def test_twenty_permutations_stacked_equal_one_by_one(
    explorer_instances: InstanceSet, task: str
) -> None:
    """The null of one task with 20 permutations: all permutations fitted together (stacked
    targets, shared featurizers and solves, folds over two processes) give the scores of
    refitting one permutation at a time with a plain ridge per design, to within 1e-12."""
    inst = explorer_instances.by_task(task)
    # the default grid; three inner folds keep the one-by-one reference affordable
    stacked = LearnedPredictor(progress=False, jobs=2, inner_folds=3)
    one_by_one = _PerDesignReference(progress=False, jobs=1, inner_folds=3)
    y = np.array([i.target for i in inst], dtype=float if task == "2a" else object)
    assert stacked.predict_labels(inst, y) == one_by_one.predict_labels(inst, y)
    for scheme in ("global", "blocked"):
        shuffled = null_targets(inst, n_permutations=20, seed=0, scheme=scheme)
        fast = permutation_null(stacked, inst, 0.0, n_permutations=20, seed=0, scheme=scheme)
        slow = [
            _score_one(inst, row, one_by_one.predict_labels(inst, row)) for row in shuffled
        ]
        assert len(fast.scores) == 20
        np.testing.assert_allclose(fast.scores, slow, rtol=0, atol=1e-12)


def _score_one(inst: Sequence, row: np.ndarray, pred: list) -> float:
    return null_from_predictions(inst, 0.0, row[None, :], [pred]).scores[0]


def test_results_do_not_depend_on_the_number_of_jobs(explorer_instances: InstanceSet) -> None:
    inst = explorer_instances.by_task("1c-k2")
    shuffled = null_targets(inst, n_permutations=5, seed=1, scheme="global")
    one = LearnedPredictor(progress=False, jobs=1).predict_with_targets(inst, shuffled)
    two = LearnedPredictor(progress=False, jobs=2).predict_with_targets(inst, shuffled)
    assert one[0].predictions == two[0].predictions
    assert one[1] == two[1]


class _NoSharedInnerFits(LearnedPredictor):
    """Fits every (outer fold, inner fold) pair on its own, as the nested selection did
    before identical inner training sets were fitted once."""

    def _inner_plan(self, folds, fold):  # type: ignore[no-untyped-def]
        plan = []
        for o, (train, _) in enumerate(folds):
            if self._needs_selection(train, fold):
                for inner_train, inner_val in self._inner_splits(train, fold):
                    plan.append((train[inner_train], [(o, inner_val)]))
        return plan


def test_identical_inner_fits_are_fitted_once_without_changing_a_prediction(
    explorer_instances: InstanceSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With leave-one-participant-out inner folds, outer fold i's inner fold j and outer
    fold j's inner fold i train the same model: 15 participants need 105 inner fits, not
    210, and the predictions (true targets and permutations) are the same."""
    inst = explorer_instances.by_task("1c-k1")
    assert len({i.participant_id for i in inst}) == 15
    shuffled = null_targets(inst, n_permutations=4, seed=2, scheme="global")
    calls: list[int] = []
    original = LearnedPredictor._fit_rows

    def spy(self, *args):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(LearnedPredictor, "_fit_rows", spy)
    shared = LearnedPredictor(progress=False, jobs=1).predict_with_targets(inst, shuffled)
    assert len(calls) == 105 + 15  # inner fits + outer fits
    calls.clear()
    separate = _NoSharedInnerFits(progress=False, jobs=1).predict_with_targets(inst, shuffled)
    assert len(calls) == 210 + 15
    assert shared[0].predictions == separate[0].predictions
    assert shared[1] == separate[1]
