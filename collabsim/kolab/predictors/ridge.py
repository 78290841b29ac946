"""Closed-form weighted ridge fits of the learned Kolab predictors, shared across designs.

Every configuration of the selection grid uses a column subset of one training set's full
design matrix (:class:`~collabsim.kolab.predictors.learned.FoldFeaturizer`). The weighted
centring and Gram matrix of a column subset are sub-blocks of the full ones, so
:class:`FitProblem` computes them once per training set and set of targets and solves each
configuration from its sub-block; the results are exactly those of a separate fit per
design (``tests/kolab/test_learned_null.py``). What does not depend on the labels is kept
on the fold featurizer and reused by every permutation of the null.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from collabsim.kolab.evaluate import LABELS
from collabsim.kolab.predictors.base import TaskKind


@dataclass(frozen=True)
class RidgeStats:
    """Weighted centring and Gram matrix of one training set's full design matrix.

    Attributes:
        x_mean: Weighted column means.
        xc: Centred design matrix.
        gram: ``xc^T W xc``; the Gram matrix of any column subset is its sub-block.
        weights: Row weights.
    """

    x_mean: np.ndarray
    xc: np.ndarray
    gram: np.ndarray
    weights: np.ndarray


class Design(Protocol):
    """What a fit reads from a training set's featurizer (the learned predictors' fold featurizer).

    ``config`` is a model configuration; the featurizer maps it to its design's columns.
    """

    full: np.ndarray
    fit_rows: np.ndarray

    def columns(self, config: Hashable) -> np.ndarray: ...

    def block(self, config: Hashable) -> tuple[np.ndarray, np.ndarray]: ...

    def matrix(self, rows: np.ndarray, config: Hashable) -> np.ndarray: ...

    def unweighted_stats(self, config: Hashable) -> RidgeStats:
        """Unweighted :func:`ridge_stats` of ``config``'s design on :attr:`fit_rows` (cached)."""
        ...


def ridge_stats(x: np.ndarray, weights: np.ndarray) -> RidgeStats:
    """Centring and Gram matrix of ``x`` under row ``weights`` (nothing here reads targets)."""
    w = weights / weights.sum()
    x_mean = w @ x
    xc = x - x_mean
    return RidgeStats(x_mean, xc, xc.T @ (xc * weights[:, None]), weights)


def _ridge_solve(
    st: RidgeStats,
    t_mean: np.ndarray,
    rhs: np.ndarray,
    cols: np.ndarray | None,
    alphas: Sequence[float],
    block: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Ridge solutions on the columns ``cols`` (None = all) of a prepared training set.

    ``rhs`` is ``xc^T W (t - t_mean)`` over all columns; a column subset's Gram matrix,
    right-hand side and means are sub-blocks of the full ones (``block`` is the
    ``np.ix_(cols, cols)`` index when the caller has it). The penalties are solved in one
    batched call (each system is still solved on its own, so the numbers are the same).
    """
    if cols is not None:
        if cols.size == 0:  # no features: the weighted mean target
            return [(np.zeros((0, rhs.shape[1])), t_mean.copy()) for _ in alphas]
        gram = st.gram[block if block is not None else np.ix_(cols, cols)]
        rhs, x_mean = rhs[cols], st.x_mean[cols]
    else:
        gram, x_mean = st.gram, st.x_mean
    eye = np.eye(gram.shape[0])
    systems = np.stack([gram + alpha * eye for alpha in alphas])
    coefs = np.linalg.solve(systems, np.broadcast_to(rhs, (len(alphas), *rhs.shape)))
    return [(coef, t_mean - x_mean @ coef) for coef in coefs]


def _targets_moments(st: RidgeStats, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted target mean and ``xc^T W (t - t_mean)``: the only label-dependent parts."""
    w = st.weights / st.weights.sum()
    t_mean = w @ targets
    return t_mean, st.xc.T @ ((targets - t_mean) * st.weights[:, None])


class FitProblem:
    """One training set and its targets, fitted for any column subset (configuration).

    Adoption: a class-weighted ridge classifier (one-vs-rest targets +-1, each class weighted
    ``n / (3 n_class)`` as scikit-learn's ``balanced``; the highest score wins), solved in
    closed form, which keeps the thousands of fits of nested selection and the permutation
    null cheap. The class weights depend on the labels, so the weighted Gram matrix is
    recomputed for each set of targets, once for all configurations.

    Ratings: ridge regression of the deviation ``rating - offset`` from a baseline known at
    prediction time (the carry-forward rating), predicting ``offset + fit`` clipped to
    [1, 5]. Centring on the baseline keeps the fitted intercept (a mean over the training
    participants, which moves against the held-out one) from deciding the ranking. The rows
    are unweighted, so each design's centring and Gram matrix are label-free: computed once
    per training set and design (kept on its :class:`FoldFeaturizer`) however many
    permutations follow, on the design's own matrix as a single fit would.

    Args:
        kind: Task kind.
        feats: The training set's featurizer.
        fit: Training rows.
        pred: Rows to predict.
        codes: Targets of the training rows (label codes, or ratings).
        offset_fit: Carry-forward ratings of the training rows (ratings only).
        offset_pred: Carry-forward ratings of the predicted rows (ratings only).
    """

    def __init__(
        self,
        kind: TaskKind,
        feats: Design,
        fit: np.ndarray,
        pred: np.ndarray,
        codes: np.ndarray,
        offset_fit: np.ndarray | None = None,
        offset_pred: np.ndarray | None = None,
    ) -> None:
        self.kind = kind
        self.feats, self.fit, self.pred = feats, fit, pred
        self.x_pred = feats.full[pred]
        self.constant: int | None = None
        if kind == "adoption":
            counts = np.bincount(codes.astype(np.int64), minlength=len(LABELS))
            present = np.flatnonzero(counts)
            if len(present) < 2:
                self.constant = int(present[0]) if len(present) else 0
                return
            n_class = np.zeros(len(LABELS))
            n_class[present] = len(present) * counts[present]
            weights = len(codes) / n_class[codes]
            targets = np.where(codes[:, None] == present[None, :], 1.0, -1.0)
            self.classes = present
            self.stats = ridge_stats(feats.full[fit], weights)
        else:
            self.base_pred = np.zeros(len(pred)) if offset_pred is None else offset_pred
            base_fit = np.zeros(len(fit)) if offset_fit is None else offset_fit
            self.targets = (codes.astype(float) - base_fit)[:, None]
            # the training set's own statistics are label-free: kept across permutations
            self.cached = np.array_equal(fit, feats.fit_rows)
            return
        self.t_mean, self.rhs = _targets_moments(self.stats, targets)

    def predict(self, config: Hashable, alphas: Sequence[float]) -> list[np.ndarray]:
        """Predictions of the rows to predict under ``config``'s design, one per penalty.

        Adoption: label codes (indices into ``LABELS``), from sub-blocks of the training
        set's weighted Gram matrix. Ratings: clipped ratings, from the design's own
        unweighted Gram matrix, computed once per training set and design.
        """
        if self.constant is not None:
            return [np.full(len(self.x_pred), self.constant, dtype=np.int64) for _ in alphas]
        if self.kind == "adoption":
            cols = self.feats.columns(config)
            x_test = self.x_pred[:, cols] if cols.size else np.zeros((len(self.x_pred), 0))
            block = self.feats.block(config) if cols.size else None
            path = _ridge_solve(self.stats, self.t_mean, self.rhs, cols, alphas, block)
            return [self.classes[np.argmax(x_test @ coef + intercept, axis=1)]
                    for coef, intercept in path]  # fmt: skip
        if self.cached:
            st = self.feats.unweighted_stats(config)
        else:
            st = ridge_stats(self.feats.matrix(self.fit, config), np.ones(len(self.fit)))
        x_test = self.feats.matrix(self.pred, config)
        path = _ridge_solve(st, *_targets_moments(st, self.targets), None, alphas)
        return [np.clip(self.base_pred + (x_test @ coef + intercept)[:, 0], 1.0, 5.0)
                for coef, intercept in path]  # fmt: skip


__all__ = ["Design", "FitProblem", "RidgeStats", "ridge_stats"]
