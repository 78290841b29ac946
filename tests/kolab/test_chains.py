"""The nested-design solver of the learned adoption model: chains of nested designs, the
bordered Cholesky (intercept as the first pivot) that gives every design's ridge scores from
one factorisation, and the class-weighted Gram matrices built from the rows' outer products,
each checked against a direct centred solve (and one case by hand)."""

from __future__ import annotations

import numpy as np
import pytest

from collabsim.kolab.predictors.chains import (
    chain_scores,
    cholesky_lower_inplace,
    cholesky_upper_inplace,
    design_chains,
    packed_outer,
    weighted_rows,
)
from collabsim.kolab.predictors.learned import ModelConfig
from collabsim.kolab.predictors.ridge import FitProblem


def _direct_scores(x, weights, t, queries_raw, cols, alpha):  # noqa: ANN001, ANN202
    """Weighted ridge with an unpenalised intercept on the columns ``cols``, solved directly."""
    w = weights / weights.sum()
    xs = x[:, cols]
    x_mean, t_mean = w @ xs, w @ t
    xc = xs - x_mean
    coef = np.linalg.solve(xc.T @ (xc * weights[:, None]) + alpha * np.eye(len(cols)),
                           xc.T @ ((t - t_mean) * weights[:, None]))  # fmt: skip
    return queries_raw[:, cols] @ coef + (t_mean - x_mean @ coef)


def test_a_two_by_two_case_worked_by_hand() -> None:
    # rows x = (1, 0), (0, 1), (1, 1) with weights 1, 1, 2 (sum 4): weighted mean
    # m = (3/4, 3/4); sum w x x^T = [[3, 2], [2, 3]] minus 4 m m^T (every entry 9/4) gives
    # G = [[3/4, -1/4], [-1/4, 3/4]]. Targets t = (1, -1, 1) have weighted mean 1/2 and
    # r = sum w (x - m)(t - 1/2) = (1/8, -3/8) + (9/8, -3/8) + (2/8, 2/8) = (3/2, -1/2).
    # alpha = 1/4: G + alpha I = [[1, -1/4], [-1/4, 1]] (determinant 15/16), so
    # beta = (16/15) [[1, 1/4], [1/4, 1]] (3/2, -1/2) = (22/15, -2/15), and the query (2, 0)
    # scores (5/4) (22/15) + (-3/4) (-2/15) + 1/2 = 73/30. The first column alone:
    # beta = (3/2) / (3/4 + 1/4) = 3/2, and the query scores (5/4) (3/2) + 1/2 = 19/8.
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    rows = weighted_rows(x, np.array([[1.0, 1.0, 2.0]]), np.array([[[1.0, -1.0, 1.0]]]),
                         np.array([[2.0, 0.0]]))  # fmt: skip
    chain = design_chains([np.array([0, 1]), np.array([0])])[0]
    both, first = chain_scores(rows, chain, {0.25: [2, 1]})[0.25]
    assert both[0, 0, 0] == pytest.approx(73 / 30, abs=1e-14)
    assert first[0, 0, 0] == pytest.approx(19 / 8, abs=1e-14)


def test_chains_cover_the_default_grid_with_three_factorisations() -> None:
    t8, t32 = list(range(8)) + list(range(32, 40)), list(range(64))
    cues, struct = list(range(64, 73)), list(range(73, 82))
    designs = [np.array(v) for v in (cues, cues + struct, t8, t32, t8 + cues, t32 + cues,
                                     t8 + cues + struct, t32 + cues + struct)]  # fmt: skip
    chains = design_chains(designs)
    assert sorted(len(c.order) for c in chains) == [18, 34, 82]
    covered = sorted(i for c in chains for i, _ in c.members)
    assert covered == list(range(len(designs)))
    for chain in chains:  # every member is exactly the leading columns of its chain
        for i, size in chain.members:
            assert set(chain.order[:size].tolist()) == set(designs[i].tolist())


def test_chain_scores_equal_a_direct_solve_per_design_and_penalty() -> None:
    rng = np.random.default_rng(0)
    n, d, batch, m = 30, 7, 5, 4
    x = rng.standard_normal((n, d)) + 0.5  # not centred: the intercept pivot centres it
    weights = rng.choice([0.6, 1.3, 2.9], size=(batch, n))  # three class weights, as balanced
    t = rng.choice([-1.0, 1.0], size=(batch, 2, n))
    raw = rng.standard_normal((m, d))
    rows = weighted_rows(x, weights, t, raw)
    designs = [np.array([4, 0, 2]), np.array([4, 0, 2, 6, 1]), np.array([3]), np.arange(7)]
    seen = set()
    for chain in design_chains(designs):
        sizes = [size for _, size in chain.members]
        for alpha in (0.5, 30.0):
            got = chain_scores(rows, chain, {alpha: sizes, 2 * alpha: sizes})
            for (i, _), score in zip(chain.members, got[alpha], strict=True):
                seen.add(i)
                for b in range(batch):
                    want = _direct_scores(x, weights[b], t[b].T, raw, designs[i], alpha)
                    np.testing.assert_allclose(score[b], want, rtol=0, atol=1e-12)
    assert seen == {0, 1, 2, 3}


def test_packed_outer_products_are_the_gathered_products_bit_for_bit() -> None:
    # the weighted Gram matrices of every permutation come from these rows, so they must be
    # the very numbers the element-wise product of the gathered factors gives
    x = np.random.default_rng(4).standard_normal((13, 9)) * 1e3
    low_i, low_j = np.tril_indices(9)
    assert np.array_equal(packed_outer(x), x[:, low_i] * x[:, low_j])


def test_cholesky_in_place_matches_numpy_and_refuses_an_indefinite_matrix() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 6, 6))
    spd = a @ a.transpose(0, 2, 1) + np.eye(6)
    work = spd.copy()
    cholesky_lower_inplace(work)
    np.testing.assert_allclose(np.tril(work), np.linalg.cholesky(spd), rtol=0, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        cholesky_lower_inplace(-spd.copy())
    upper = spd.copy()
    cholesky_upper_inplace(upper)
    factor = np.triu(upper).transpose(0, 2, 1)
    np.testing.assert_allclose(factor, np.linalg.cholesky(spd), rtol=0, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        cholesky_upper_inplace(-spd.copy())


class _Design:
    def __init__(self, full: np.ndarray) -> None:
        self.full = full

    def columns(self, config: ModelConfig) -> np.ndarray:
        return {"a": np.array([0, 1]), "b": np.array([0, 1, 2, 3]), "c": np.array([2])}[
            config.groups[0]]  # fmt: skip

    def matrix(self, rows: np.ndarray, config: ModelConfig) -> np.ndarray:
        return self.full[np.ix_(rows, self.columns(config))]


def test_class_weighted_fit_problem_equals_one_direct_fit_per_label_set() -> None:
    """Balanced class weights per target column (two or three classes present), every
    configuration's predicted labels equal a direct weighted ridge per class."""
    rng = np.random.default_rng(2)
    full = rng.standard_normal((40, 4))
    fit, pred = np.arange(32), np.arange(32, 40)
    codes = np.stack([rng.integers(0, 3, 32), rng.integers(0, 2, 32) * 2, rng.permutation(
        np.repeat([0, 1, 2], [20, 8, 4]))], axis=1)  # fmt: skip
    configs = [ModelConfig((g,), 0, a) for g in ("a", "b", "c") for a in (0.3, 3.0)]
    design = _Design(full)
    got = FitProblem("adoption", design, fit, pred, codes).predict_many(configs)
    for cfg, values in zip(configs, got, strict=True):
        for col in range(codes.shape[1]):
            y = codes[:, col]
            present = np.flatnonzero(np.bincount(y, minlength=3))
            counts = np.bincount(y, minlength=3)
            w = len(y) / (len(present) * counts[y])
            targets = np.where(y[:, None] == present[None, :], 1.0, -1.0)
            cols = design.columns(cfg)
            scores = _direct_scores(full[fit], w, targets, full[pred], cols, cfg.alpha)
            assert values[:, col].tolist() == present[np.argmax(scores, axis=1)].tolist()
