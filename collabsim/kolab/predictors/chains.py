"""Weighted ridge fits of many nested designs from one Cholesky factorisation per chain.

The adoption model is a class-weighted ridge classifier whose balanced class weights follow
the labels, so every target set (the true labels and each permutation of the null) has its
own weighted Gram matrix and needs its own factorisation. Two facts make that cheap:

* **Nested designs share a factorisation.** Order the columns of a design ``D_1 ⊂ D_2 ⊂ …``
  chain as ``D_1``'s, then ``D_2 \\ D_1``'s, …; the Cholesky factor of a leading block of
  ``G + alpha I`` is the leading block of the factor of the whole, so one factorisation
  serves every design of the chain (:func:`design_chains` covers a grid's designs with
  few chains).
* **The intercept is a pivot.** With an unpenalised intercept, the normal equations over
  ``[1, x]`` are ``[[s, s m^T], [s m, X^T W X + alpha I]]`` (``s`` the weight sum, ``m``
  the weighted mean); eliminating the first row leaves ``Xc^T W Xc + alpha I``, the
  centred system. So the uncentred weighted Gram matrix of ``[1, x]``, whose lower
  triangle for every target column at once is one matrix product of the weights with the
  rows' outer products, is factorised with the intercept first and nothing is centred.
* **Only predictions are needed.** With ``A = L L^T``, right-hand side ``r`` and test rows
  ``Q = [1, x]^T`` (one column per row), the scores (intercept included) are
  ``Q^T A^{-1} r = (L^{-1} Q)^T (L^{-1} r)``, and the leading ``k`` entries of ``L^{-1} r``
  are those of the design made of the first ``k`` columns. Factorising the bordered matrix
  ``[[A, B^T], [B, c I]]`` with ``B = [r, Q]^T`` yields ``(L^{-1} B^T)^T`` as its lower
  border (the block below ``L``), so one ``potrf`` call per target set, chain and penalty
  gives the scores of every design of the chain; ``c`` (huge) only keeps the bordered
  matrix positive definite and changes no entry used. The matrices are stored transposed
  (C-ordered upper triangle, i.e. LAPACK's Fortran-ordered lower one), where OpenBLAS's
  ``potrf`` is about a third faster than on the other triangle.

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


def cholesky_upper_inplace(a: np.ndarray) -> None:
    """Overwrite the upper triangle of each matrix of a C-ordered stack with ``L^T``, ``L``
    its lower Cholesky factor (``A = L L^T``).

    The twin of :func:`cholesky_lower_inplace` that reads and writes the other triangle:
    the C-ordered upper triangle is the Fortran-ordered lower one, for which LAPACK's
    ``potrf`` runs about a third faster here (OpenBLAS). Only the upper triangle is read.

    Raises:
        numpy.linalg.LinAlgError: When a matrix is not positive definite.
    """
    for i, m in enumerate(a):
        _, info = lapack.dpotrf(m.T, lower=1, clean=0, overwrite_a=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"matrix {i} is not positive definite (potrf info {info})")


_BIG = 1e100
"""Diagonal of the bordered matrix's last block: keeps it positive definite, never read."""


@dataclass(frozen=True)
class WeightedRows:
    """Rows of one training set under a batch of row weightings (one per target column).

    Column 0 of the extended design ``[1, x]`` is the (unpenalised) intercept.

    Attributes:
        gram: Lower triangle of ``[1, x]^T W [1, x]``, packed row by row (entry ``(i, j)``,
            ``i >= j``, at ``i (i + 1) / 2 + j``), ``(batch, (D + 1) (D + 2) / 2)``.
        rhs: ``[1, x]^T W t``, ``(batch, D + 1, K)``.
        queries: Rows to score, ``[1, x]``, ``(m, D + 1)`` (the same for the whole batch).
    """

    gram: np.ndarray
    rhs: np.ndarray
    queries: np.ndarray


def packed_outer(x: np.ndarray) -> np.ndarray:
    """Each row's outer product with itself, lower triangle packed row by row:
    ``(rows, D (D + 1) / 2)``, entry ``(i, j)``, ``i >= j``, at ``i (i + 1) / 2 + j``.

    Built one triangle row at a time (a broadcast product of contiguous blocks), which is
    several times faster than gathering both factors with fancy indexing; the entries are
    the same products.
    """
    n, d = x.shape
    out = np.empty((n, d * (d + 1) // 2))
    start = 0
    for i in range(d):
        np.multiply(x[:, i : i + 1], x[:, : i + 1], out=out[:, start : start + i + 1])
        start += i + 1
    return out


def weighted_rows(
    x: np.ndarray, weights: np.ndarray, targets: np.ndarray, x_query: np.ndarray
) -> WeightedRows:
    """:class:`WeightedRows` of design rows ``x`` under ``weights`` with ``targets``.

    Args:
        x: Design rows, ``(rows, D)``.
        weights: Row weights, ``(batch, rows)``.
        targets: Targets, ``(batch, K, rows)``.
        x_query: Rows to score, ``(m, D)``.
    """
    x1 = np.hstack([np.ones((x.shape[0], 1)), x])
    gram = weights @ packed_outer(x1)
    rhs = ((targets * weights[:, None, :]) @ x1).transpose(0, 2, 1)
    return WeightedRows(gram, rhs, np.hstack([np.ones((x_query.shape[0], 1)), x_query]))


def chain_scores(
    rows: WeightedRows, chain: Chain, sizes_by_alpha: dict[float, Sequence[int]]
) -> dict[float, list[np.ndarray]]:
    """Ridge scores (intercept included) of leading designs of one chain.

    The Gram block of the chain's columns, with the intercept first, is gathered from
    :attr:`WeightedRows.gram`, bordered with the right-hand sides and queries, and
    factorised once per penalty (the intercept unpenalised), in the upper triangle
    (:func:`cholesky_upper_inplace`).

    Args:
        rows: The weighted Gram matrices, right-hand sides and queries.
        chain: The chain; sizes count its leading columns.
        sizes_by_alpha: Ridge penalty -> numbers of leading chain columns whose design is
            wanted with it (each at most the chain's length).

    Returns:
        Penalty -> one ``(batch, m, K)`` array per size: the scores of the design made of
        the intercept and the first ``size`` chain columns.
    """
    d = max(max(sizes) for sizes in sizes_by_alpha.values()) + 1  # with the intercept
    order = np.concatenate([[0], chain.order[: d - 1] + 1])
    batch, k, m = rows.gram.shape[0], rows.rhs.shape[2], rows.queries.shape[0]
    size = d + k + m
    low_i, low_j = np.tril_indices(d)
    big, small = np.maximum(order[low_i], order[low_j]), np.minimum(order[low_i], order[low_j])
    gram = rows.gram[:, big * (big + 1) // 2 + small]  # the chain's block, packed
    border = np.empty((batch, k + m, d))
    border[:, :k] = rows.rhs[:, order, :].transpose(0, 2, 1)
    border[:, k:] = rows.queries[None, :, order]
    flat_up = low_j * size + low_i  # the lower triangle's entries, transposed
    penalised, extra = np.arange(1, d), np.arange(d, size)
    out: dict[float, list[np.ndarray]] = {
        alpha: [np.empty((batch, m, k)) for _ in sizes] for alpha, sizes in sizes_by_alpha.items()
    }
    aug = np.zeros((min(_CHUNK, batch), size, size))
    flat = aug.reshape(len(aug), size * size)
    for start in range(0, batch, _CHUNK):  # a chunk's matrices stay in the CPU cache
        part = slice(start, min(start + _CHUNK, batch))
        n_part = part.stop - part.start
        for alpha, sizes in sizes_by_alpha.items():
            # only the lower triangle is read (and overwritten by the factor): the Gram
            # block, the border below it and the last block's diagonal
            flat[:n_part, flat_up] = gram[part]
            aug[:n_part, penalised, penalised] += alpha
            aug[:n_part, :d, d:] = border[part].transpose(0, 2, 1)
            aug[:n_part, d:, d:] = 0.0
            aug[:n_part, extra, extra] = _BIG
            cholesky_upper_inplace(aug[:n_part])
            z_rhs, z_query = aug[:n_part, :d, d : d + k], aug[:n_part, :d, d + k :]
            for s, target in zip(sizes, out[alpha], strict=True):
                target[part] = z_query[:, : s + 1, :].transpose(0, 2, 1) @ z_rhs[:, : s + 1, :]
    return out


__all__ = [
    "Chain",
    "WeightedRows",
    "chain_scores",
    "cholesky_lower_inplace",
    "cholesky_upper_inplace",
    "design_chains",
    "weighted_rows",
]
