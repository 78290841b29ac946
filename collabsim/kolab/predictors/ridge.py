"""Closed-form weighted ridge fits of the learned Kolab predictors, for many targets at once.

Every configuration of the selection grid uses a column subset of one training set's full
design matrix (:class:`~collabsim.kolab.predictors.learned.FoldFeaturizer`). The weighted
centring and Gram matrix of a column subset are sub-blocks of the full ones, so
:class:`FitProblem` computes them once per training set and solves each configuration from
its sub-block; the results are those of a separate fit per design
(``tests/kolab/test_learned_null.py``).

The targets are a matrix: one column per set of labels (the true ones and every permutation
of the null), all fitted together. Ratings are unweighted, so one Gram matrix per design and
penalty serves every column in a single solve with the columns stacked as right-hand sides.
Adoption rows are class-weighted and the weights follow the labels, so each column has its
own weighted Gram matrix: all of them come from one matrix product with the rows' outer
products, and each chain of nested designs is solved from one Cholesky factorisation per
column and penalty (:mod:`~collabsim.kolab.predictors.chains`).
This module knows designs only through :class:`DesignSource`; it imports nothing from the
learned predictor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from collabsim.kolab.evaluate import LABELS
from collabsim.kolab.predictors.base import TaskKind
from collabsim.kolab.predictors.chains import Chain, chain_scores, design_chains, weighted_rows


class DesignSource(Protocol):
    """The full design matrix of one training set and the column subset of each configuration."""

    full: np.ndarray

    def columns(self, config: Any) -> np.ndarray:
        """Indices into :attr:`full` of ``config``'s design."""
        ...

    def matrix(self, rows: np.ndarray, config: Any) -> np.ndarray:
        """Design matrix of ``rows`` under ``config`` (one zero column when it has none)."""
        ...


@dataclass(frozen=True)
class RidgeStats:
    """Weighted centring and Gram matrix of one design matrix.

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


def ridge_stats(x: np.ndarray, weights: np.ndarray) -> RidgeStats:
    """Centring and Gram matrix of ``x`` under row ``weights`` (nothing here reads targets)."""
    w = weights / weights.sum()
    x_mean = w @ x
    xc = x - x_mean
    return RidgeStats(x_mean, xc, xc.T @ (xc * weights[:, None]), weights)


def _penalised(gram: np.ndarray, alphas: Sequence[float]) -> np.ndarray:
    """``gram + alpha I`` for each penalty, stacked on a new axis before the last two.

    Only the diagonal changes, so the result is built by copying ``gram`` and adding each
    penalty to the diagonal (the same numbers as adding ``alpha * eye``).
    """
    d = gram.shape[-1]
    out = np.empty((*gram.shape[:-2], len(alphas), d, d))
    diag = np.arange(d)
    for a, alpha in enumerate(alphas):
        out[..., a, :, :] = gram
        out[..., a, diag, diag] += alpha
    return out


class FitProblem:
    """One training set and many target columns, fitted for any column subset (configuration).

    Adoption: a class-weighted ridge classifier (one-vs-rest targets +-1, each class weighted
    ``n / (n_present n_class)`` as scikit-learn's ``balanced``; the highest score wins),
    solved in closed form. The class weights depend on the labels, so each target column
    has its own weighted Gram matrix; columns are grouped by the classes they contain and
    each group is built and solved as one batch.

    Ratings: ridge regression of the deviation ``rating - offset`` from a baseline known at
    prediction time (the carry-forward rating), predicting ``offset + fit`` clipped to
    [1, 5]. Centring on the baseline keeps the fitted intercept (a mean over the training
    participants, which moves against the held-out one) from deciding the ranking. Rows are
    unweighted, so each design's Gram matrix is label-free: one solve per design and penalty
    serves all target columns.

    Args:
        kind: Task kind.
        feats: The training set's design source (its featurizer).
        fit: Training rows.
        pred: Rows to predict.
        codes: Targets of the training rows, one column per target set (label codes, or
            ratings); shape ``(len(fit), n_targets)``.
        offset_fit: Carry-forward ratings of the training rows (ratings only).
        offset_pred: Carry-forward ratings of the predicted rows (ratings only).
    """

    def __init__(
        self,
        kind: TaskKind,
        feats: DesignSource,
        fit: np.ndarray,
        pred: np.ndarray,
        codes: np.ndarray,
        offset_fit: np.ndarray | None = None,
        offset_pred: np.ndarray | None = None,
    ) -> None:
        self.kind = kind
        self.feats, self.fit, self.pred = feats, fit, pred
        self.n_targets = codes.shape[1]
        self.x_pred = feats.full[pred]
        if kind == "adoption":
            self._groups = self._adoption_groups(codes.astype(np.int64))
        else:
            self.base_pred = np.zeros(len(pred)) if offset_pred is None else offset_pred
            base_fit = np.zeros(len(fit)) if offset_fit is None else offset_fit
            self.targets = codes.astype(float) - base_fit[:, None]

    def _adoption_groups(self, codes: np.ndarray) -> list[tuple[np.ndarray, Any]]:
        """Target columns grouped by the classes present, with each group's weighted rows.

        A group is ``(columns, constant)`` when fewer than two classes are present, else
        ``(columns, (classes, t_mean, rows))`` with one leading batch axis: the weighted
        target means and a :class:`~collabsim.kolab.predictors.chains.WeightedRows`.
        """
        k = len(LABELS)
        n = codes.shape[0]
        counts = (codes[:, :, None] == np.arange(k)).sum(axis=0)  # (targets, classes)
        by_present: dict[bytes, list[int]] = {}
        for col, row in enumerate(counts > 0):
            by_present.setdefault(row.tobytes(), []).append(col)
        x = self.feats.full[self.fit]
        groups: list[tuple[np.ndarray, Any]] = []
        for cols_list in by_present.values():
            cols = np.asarray(cols_list)
            present = np.flatnonzero(counts[cols[0]])
            if len(present) < 2:
                groups.append((cols, int(present[0]) if len(present) else 0))
                continue
            c = codes[:, cols].T  # (group, rows)
            n_class = np.zeros((len(cols), k))
            n_class[:, present] = len(present) * counts[np.ix_(cols, present)]
            weights = n / np.take_along_axis(n_class, c, axis=1)  # (group, rows)
            targets = np.where(c[:, None, :] == present[None, :, None], 1.0, -1.0)
            rows = weighted_rows(x, weights, targets, self.x_pred)
            t_mean = rows.rhs[:, 0, :] / weights.sum(axis=1)[:, None]  # (group, classes)
            groups.append((cols, (present, t_mean, rows)))
        return groups

    def predict(self, config: Any, alphas: Sequence[float]) -> list[np.ndarray]:
        """Predictions of the rows to predict under ``config``'s design, one per penalty.

        Each is an array ``(len(pred), n_targets)``: label codes (indices into ``LABELS``)
        for adoption, clipped ratings for ratings.
        """
        if self.kind == "adoption":
            return self.predict_many([replace(config, alpha=alpha) for alpha in alphas])
        x_fit = self.feats.matrix(self.fit, config)
        st = ridge_stats(x_fit, np.ones(len(self.fit)))
        w = st.weights / st.weights.sum()
        t_mean = w @ self.targets
        rhs = st.xc.T @ ((self.targets - t_mean) * st.weights[:, None])
        coefs = np.linalg.solve(_penalised(st.gram, alphas), np.broadcast_to(
            rhs, (len(alphas), *rhs.shape)))  # fmt: skip
        x_test = self.feats.matrix(self.pred, config)
        out = []
        for coef in coefs:
            intercept = t_mean - st.x_mean @ coef
            out.append(np.clip(self.base_pred[:, None] + (x_test @ coef + intercept), 1.0, 5.0))
        return out

    def predict_many(self, configs: Sequence[Any]) -> list[np.ndarray]:
        """:meth:`predict` of every configuration, fitted together.

        Ratings: one :meth:`predict` per design (its penalties together). Adoption: the
        designs are covered by chains of nested designs
        (:func:`~collabsim.kolab.predictors.chains.design_chains`), each solved from one
        Cholesky factorisation per target column and penalty.
        """
        designs: dict[tuple[Any, ...], list[int]] = {}
        for pos, cfg in enumerate(configs):
            designs.setdefault(tuple(self.feats.columns(cfg).tolist()), []).append(pos)
        out: list[np.ndarray] = [np.empty(0)] * len(configs)
        if self.kind != "adoption":
            for positions in designs.values():
                preds = self.predict(configs[positions[0]], [configs[p].alpha for p in positions])
                for p, values in zip(positions, preds, strict=True):
                    out[p] = values
            return out
        return self._predict_adoption_many(configs, designs)

    def _predict_adoption_many(
        self, configs: Sequence[Any], designs: dict[tuple[Any, ...], list[int]]
    ) -> list[np.ndarray]:
        out = [np.empty((len(self.pred), self.n_targets), dtype=np.int64) for _ in configs]
        plans = _chain_plans(configs, designs)
        for targets, group in self._groups:
            if isinstance(group, int):
                for values in out:
                    values[:, targets] = group
                continue
            classes, t_mean, rows = group
            if () in designs:  # no features: the weighted mean target
                for p in designs[()]:
                    out[p][:, targets] = classes[np.argmax(t_mean, axis=1)][None, :]
            for chain, wanted in plans:
                sizes = {alpha: [size for _, size in members] for alpha, members in wanted.items()}
                scores = chain_scores(rows, chain, sizes)
                for alpha, members in wanted.items():
                    for (p, _), score in zip(members, scores[alpha], strict=True):
                        best = np.argmax(score, axis=2)
                        out[p][:, targets] = classes[best].T
        return out


def _chain_plans(
    configs: Sequence[Any], designs: dict[tuple[Any, ...], list[int]]
) -> list[tuple[Chain, dict[float, list[tuple[int, int]]]]]:
    """The chains covering the designs, each with penalty -> (configuration position,
    leading chain columns of its design)."""
    keys = list(designs)
    plans: list[tuple[Chain, dict[float, list[tuple[int, int]]]]] = []
    for chain in design_chains([np.asarray(key, dtype=np.int64) for key in keys]):
        wanted: dict[float, list[tuple[int, int]]] = {}
        for i, size in chain.members:
            for p in designs[keys[i]]:
                wanted.setdefault(configs[p].alpha, []).append((p, size))
        plans.append((chain, wanted))
    return plans


__all__ = ["DesignSource", "FitProblem", "RidgeStats", "ridge_stats"]
