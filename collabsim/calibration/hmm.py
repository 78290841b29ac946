"""Maximum-likelihood fit of a two-state Gaussian hidden Markov model (Baum-Welch).

Used on log inter-event intervals: each state emits ``N(mean_k, sd_k^2)``, states follow a
Markov chain with transition matrix ``A`` and initial distribution ``pi``. Several independent
sequences (sessions) share the parameters. The forward-backward pass is scaled (Rabiner 1989)
so long sequences do not underflow. Initialisation is deterministic (a few fixed starting
points; the best final log-likelihood wins), so equal data give equal fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_SD_FLOOR = 0.05  # log-seconds; stops a state collapsing onto one repeated value
_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass(frozen=True)
class HMMFit:
    """Fitted two-state model; state 0 has the lower mean.

    Attributes:
        means: Emission means ``[m0, m1]``.
        sds: Emission standard deviations ``[s0, s1]``.
        trans: 2x2 transition matrix (rows: from).
        start: Initial state distribution.
        loglik: Final log-likelihood of all sequences.
        iterations: EM iterations of the winning start.
        converged: Whether the winning start converged within the iteration limit.
    """

    means: tuple[float, float]
    sds: tuple[float, float]
    trans: tuple[tuple[float, float], tuple[float, float]]
    start: tuple[float, float]
    loglik: float
    iterations: int
    converged: bool


def _log_emission(z: np.ndarray, means: np.ndarray, sds: np.ndarray) -> np.ndarray:
    d = (z[:, None] - means[None, :]) / sds[None, :]
    return -0.5 * (d * d) - np.log(sds)[None, :] - 0.5 * _LOG_2PI


def _forward_backward(
    z: np.ndarray, means: np.ndarray, sds: np.ndarray, trans: np.ndarray, start: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """Posterior state probabilities, summed pair posteriors and the log-likelihood.

    The recursions run on plain floats: with two states, numpy's per-call overhead would
    dominate the arithmetic.
    """
    n = len(z)
    log_b = _log_emission(z, means, sds)
    shift = log_b.max(axis=1)
    b = np.exp(log_b - shift[:, None])
    b0, b1 = b[:, 0].tolist(), b[:, 1].tolist()
    t00, t01, t10, t11 = (float(x) for x in trans.ravel())
    f0 = [0.0] * n
    f1 = [0.0] * n
    scale = [0.0] * n
    a0, a1 = float(start[0]) * b0[0], float(start[1]) * b1[0]
    c = a0 + a1
    scale[0], f0[0], f1[0] = c, a0 / c, a1 / c
    for t in range(1, n):
        p0, p1 = f0[t - 1], f1[t - 1]
        a0 = (p0 * t00 + p1 * t10) * b0[t]
        a1 = (p0 * t01 + p1 * t11) * b1[t]
        c = a0 + a1
        scale[t], f0[t], f1[t] = c, a0 / c, a1 / c
    r0 = [1.0] * n
    r1 = [1.0] * n
    x00 = x01 = x10 = x11 = 0.0
    for t in range(n - 2, -1, -1):
        c = scale[t + 1]
        e0 = b0[t + 1] * r0[t + 1] / c
        e1 = b1[t + 1] * r1[t + 1] / c
        r0[t] = t00 * e0 + t01 * e1
        r1[t] = t10 * e0 + t11 * e1
        x00 += f0[t] * t00 * e0
        x01 += f0[t] * t01 * e1
        x10 += f1[t] * t10 * e0
        x11 += f1[t] * t11 * e1
    gamma = np.column_stack([np.multiply(f0, r0), np.multiply(f1, r1)])
    gamma /= gamma.sum(axis=1, keepdims=True)
    xi = np.array([[x00, x01], [x10, x11]])
    loglik = float(np.log(scale).sum() + shift.sum())
    return gamma, xi, loglik


def _em(
    seqs: Sequence[np.ndarray],
    means: np.ndarray,
    sds: np.ndarray,
    trans: np.ndarray,
    start: np.ndarray,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, int, bool]:
    prev = -np.inf
    loglik = -np.inf
    for it in range(1, max_iter + 1):
        g_sum = np.zeros(2)
        gz = np.zeros(2)
        gzz = np.zeros(2)
        xi_sum = np.zeros((2, 2))
        g0 = np.zeros(2)
        loglik = 0.0
        for z in seqs:
            gamma, xi, ll = _forward_backward(z, means, sds, trans, start)
            loglik += ll
            g_sum += gamma.sum(axis=0)
            gz += gamma.T @ z
            gzz += gamma.T @ (z * z)
            xi_sum += xi
            g0 += gamma[0]
        means = gz / np.maximum(g_sum, 1e-12)
        var = gzz / np.maximum(g_sum, 1e-12) - means**2
        sds = np.sqrt(np.maximum(var, _SD_FLOOR**2))
        rows = xi_sum.sum(axis=1, keepdims=True)
        trans = np.where(rows > 0, xi_sum / np.maximum(rows, 1e-12), 0.5)
        start = g0 / g0.sum()
        if abs(loglik - prev) < tol * max(1.0, abs(loglik)):
            return means, sds, trans, start, loglik, it, True
        prev = loglik
    return means, sds, trans, start, loglik, max_iter, False


def fit_two_state(
    sequences: Sequence[np.ndarray], *, max_iter: int = 500, tol: float = 1e-9
) -> HMMFit:
    """Fit a two-state Gaussian HMM to several sequences by EM.

    Args:
        sequences: 1-D arrays (e.g. centred log intervals of each session); sequences with
            fewer than 2 values are ignored.
        max_iter: EM iteration limit per starting point.
        tol: Relative log-likelihood change that counts as converged.

    Returns:
        The best fit over the deterministic starting points, state 0 = lower mean.

    Raises:
        ValueError: With fewer than 3 values in total.
    """
    seqs = [np.asarray(s, dtype=float) for s in sequences if len(s) >= 2]
    pooled = np.concatenate(seqs) if seqs else np.empty(0)
    if len(pooled) < 3:
        raise ValueError("need at least 3 values to fit a two-state model")
    q25, q75 = np.percentile(pooled, [25, 75])
    sd0 = max(float(pooled.std()) * 0.7, _SD_FLOOR)
    best = None
    for stay in (0.5, 0.9):
        init = (
            np.array([q25, q75], dtype=float),
            np.array([sd0, sd0]),
            np.array([[stay, 1 - stay], [1 - stay, stay]]),
            np.array([0.5, 0.5]),
        )
        res = _em(seqs, *init, max_iter=max_iter, tol=tol)
        if best is None or res[4] > best[4] + 1e-9:
            best = res
    assert best is not None
    means, sds, trans, start, loglik, iters, conv = best
    order = np.argsort(means)
    means, sds, start = means[order], sds[order], start[order]
    trans = trans[np.ix_(order, order)]
    return HMMFit(
        means=(float(means[0]), float(means[1])),
        sds=(float(sds[0]), float(sds[1])),
        trans=(
            (float(trans[0, 0]), float(trans[0, 1])),
            (float(trans[1, 0]), float(trans[1, 1])),
        ),
        start=(float(start[0]), float(start[1])),
        loglik=float(loglik),
        iterations=int(iters),
        converged=bool(conv),
    )
