"""Weighted ridge fits of many nested designs from one Cholesky factorisation per chain.

The adoption model is a class-weighted ridge classifier whose balanced class weights follow
the labels, so every target set (the true labels and each permutation of the null) has its
own weighted Gram matrix and needs its own factorisation. Two facts make that cheap:

* **Nested designs share a factorisation.** Order the columns of a design ``D_1 ⊂ D_2 ⊂ …``
  chain as ``D_1``'s, then ``D_2 \\ D_1``'s, …; the Cholesky factor of a leading block of
  ``G + alpha I`` is the leading block of the factor of the whole, so one factorisation
  serves every design of the chain (:func:`design_chains` covers a grid's designs with
  few chains).
* **Only predictions are needed.** With ``A = L L^T``, right-hand side ``r`` and centred
  test rows ``Q`` (one column per row), the ridge scores are
  ``Q^T A^{-1} r = (L^{-1} Q)^T (L^{-1} r)``, and the leading ``k`` entries of ``L^{-1} r``
  are those of the design made of the first ``k`` columns. Factorising the bordered matrix
  ``[[A, B], [B^T, c I]]`` with ``B = [r, Q]`` yields ``L^{-1} B`` as the transposed lower
  border of the factor (the block below ``L``), so one ``potrf`` call per target set,
  chain and penalty gives the scores of every design of the chain; ``c`` only has to keep
  the bordered matrix positive definite and changes no entry used.

The results equal a separate solve per design up to floating-point rounding (the sums run
in another order); ``tests/kolab/test_chains.py`` checks them against direct solves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack

_CHUNK = 16
"""Target columns whose bordered matrices are built and factorised together."""


@dataclass(frozen=True)
class Chain:
    """Designs nested in one another, solved from one factorisation.

    Attributes:
        order: Column indices (into the full design) in chain order: the smallest design's
            columns first, then each larger design's additional ones.
        members: ``(design index, number of leading columns)`` of every design of the chain.
    """

    order: np.ndarray
    members: tuple[tuple[int, int], ...]


def design_chains(designs: Sequence[np.ndarray]) -> list[Chain]:
    """Cover column sets with chains of nested sets, largest sets first (greedy).

    Each design joins the first chain whose smallest design so far contains it, else it
    starts a new chain; the cost of a chain is that of factorising its largest design.
    Empty designs are left out (they have no columns to solve for).

    Args:
        designs: Column indices of each design (into one full design matrix).

    Returns:
        The chains, each listing its designs from the largest to the smallest.
    """
    sets = [frozenset(np.asarray(d).tolist()) for d in designs]
    by_size = sorted((i for i in range(len(designs)) if sets[i]), key=lambda i: (-len(sets[i]), i))
    stacks: list[list[int]] = []
    for i in by_size:
        for stack in stacks:
            if sets[i] <= sets[stack[-1]]:
                stack.append(i)
                break
        else:
            stacks.append([i])
    chains = []
    for stack in stacks:
        order: list[int] = []
        seen: set[int] = set()
        for i in reversed(stack):  # smallest first; each keeps its own column order
            for col in np.asarray(designs[i]).tolist():
                if col not in seen:
                    seen.add(col)
                    order.append(col)
        chains.append(Chain(np.asarray(order, dtype=np.int64),
                            tuple((i, len(sets[i])) for i in stack)))  # fmt: skip
    return chains


def cholesky_lower_inplace(a: np.ndarray) -> None:
    """Overwrite the lower triangle of each matrix of a C-ordered stack with its Cholesky factor.

    One LAPACK ``potrf`` per matrix; for the small matrices here (tens of columns) this runs
    about twice as fast as ``numpy.linalg.cholesky``'s batched loop. Only the lower triangle
    of the result is the factor (the strict upper triangle keeps its input).

    Raises:
        numpy.linalg.LinAlgError: When a matrix is not positive definite.
    """
    for i, m in enumerate(a):
        # m.T is m's memory in Fortran order, and m is symmetric: its upper factor U = L^T,
        # computed in place, is L in m's C order
        _, info = lapack.dpotrf(m.T, lower=0, clean=0, overwrite_a=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"matrix {i} is not positive definite (potrf info {info})")


@dataclass(frozen=True)
class WeightedRows:
    """Rows of one training set under a batch of row weightings (one per target column).

    Attributes:
        x: Design rows, ``(rows, D)``.
        weights: Row weights, ``(batch, rows)``.
        total: Weight sums, ``(batch,)``.
        x_mean: Weighted column means, ``(batch, D)``.
        rhs: Right-hand sides ``Xc^T W (t - t_mean)``, ``(batch, D, K)``.
        queries: Centred rows to score, ``x - x_mean``, ``(batch, m, D)``.
    """

    x: np.ndarray
    weights: np.ndarray
    total: np.ndarray
    x_mean: np.ndarray
    rhs: np.ndarray
    queries: np.ndarray


def chain_scores(
    rows: WeightedRows, chain: Chain, sizes_by_alpha: dict[float, Sequence[int]]
) -> dict[float, list[np.ndarray]]:
    """Ridge scores ``q^T (Xc^T W Xc + alpha I)^{-1} r`` of leading designs of one chain.

    The weighted centred Gram matrix of the chain's columns is ``sum_i w_i x_i x_i^T -
    s m m^T`` (``s`` the weight sum, ``m`` the weighted mean); its lower triangle for the
    whole batch is one matrix product of the weights with the rows' outer products. It is
    bordered with the right-hand sides and queries once and factorised once per penalty.

    Args:
        rows: The training rows, weights, right-hand sides and queries.
        chain: The chain; sizes count its leading columns.
        sizes_by_alpha: Ridge penalty -> numbers of leading chain columns whose design is
            wanted with it (each at most the chain's length).

    Returns:
        Penalty -> one ``(batch, m, K)`` array per size: the scores of the design made of
        the first ``size`` chain columns.
    """
    d = max(max(sizes) for sizes in sizes_by_alpha.values())
    order = chain.order[:d]
    batch, k, m = rows.weights.shape[0], rows.rhs.shape[2], rows.queries.shape[1]
    size = d + k + m
    low_i, low_j = np.tril_indices(d)
    xo, mean = rows.x[:, order], rows.x_mean[:, order]
    gram = rows.weights @ (xo[:, low_i] * xo[:, low_j])  # (batch, d (d + 1) / 2)
    gram -= rows.total[:, None] * (mean[:, low_i] * mean[:, low_j])
    border = np.concatenate([rows.rhs[:, order, :].transpose(0, 2, 1),
                             rows.queries[:, :, order]], axis=1)  # (batch, k + m, d)  # fmt: skip
    # any c > ||A^{-1/2} B||^2 keeps the bordered matrix positive definite; A >= alpha I, so
    # the squared Frobenius norm of B over the smallest alpha, plus one, is enough
    bound = 1.0 + (border**2).sum(axis=(1, 2)) / min(sizes_by_alpha)
    flat_low = low_i * size + low_j
    diag, extra = np.arange(d), np.arange(d, size)
    out: dict[float, list[np.ndarray]] = {
        alpha: [np.empty((batch, m, k)) for _ in sizes] for alpha, sizes in sizes_by_alpha.items()
    }
    for start in range(0, batch, _CHUNK):  # a chunk's matrices stay in the CPU cache
        part = slice(start, min(start + _CHUNK, batch))
        n_part = part.stop - part.start
        base = np.zeros((n_part, size, size))
        # only the lower triangle is read: the Gram block, then the border B = [r, q] below it
        base.reshape(n_part, size * size)[:, flat_low] = gram[part]
        base[:, d:, :d] = border[part]
        base[:, extra, extra] = bound[part, None]
        aug = np.empty_like(base)
        for alpha, sizes in sizes_by_alpha.items():
            np.copyto(aug, base)
            aug[:, diag, diag] += alpha
            cholesky_lower_inplace(aug)
            z_rhs, z_query = aug[:, d : d + k, :d], aug[:, d + k :, :d]  # rows of (L^{-1} B)^T
            for s, target in zip(sizes, out[alpha], strict=True):
                target[part] = z_query[:, :, :s] @ z_rhs[:, :, :s].transpose(0, 2, 1)
    return out


__all__ = ["Chain", "WeightedRows", "chain_scores", "cholesky_lower_inplace", "design_chains"]
