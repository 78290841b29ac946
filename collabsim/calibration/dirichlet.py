"""Per-person spread of categorical rates: the Dirichlet-multinomial concentration.

With population mean rates ``p`` (fixed to the pooled shares, so the fitted rates equal the
data's counts) and person ``i``'s counts ``x_i`` (``n_i`` in total), the marginal
log-likelihood of the concentration ``kappa`` is::

    LL(kappa) = sum_i [ lnG(kappa) - lnG(n_i + kappa)
                        + sum_k ( lnG(x_ik + kappa p_k) - lnG(kappa p_k) ) ]

(the multinomial coefficient does not depend on ``kappa``). It is maximised over
``log kappa`` in ``[log 0.05, log 1e4]``; a maximum at the upper end means the counts show no
more spread than the multinomial alone (everyone alike).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import gammaln

KAPPA_BOUNDS: tuple[float, float] = (0.05, 1e4)


@dataclass(frozen=True)
class ConcentrationFit:
    """Result of :func:`fit_concentration`.

    Attributes:
        kappa: Maximum-marginal-likelihood concentration.
        loglik: Marginal log-likelihood at ``kappa`` (without the multinomial coefficients).
        at_bound: True when the optimum sits at a bound of :data:`KAPPA_BOUNDS`.
    """

    kappa: float
    loglik: float
    at_bound: bool


def dirichlet_multinomial_loglik(counts: np.ndarray, mean: np.ndarray, kappa: float) -> float:
    """``LL(kappa)`` of the module docstring for counts (persons x categories)."""
    counts = np.asarray(counts, dtype=float)
    alpha = np.maximum(kappa * np.asarray(mean, dtype=float), 1e-12)
    n = counts.sum(axis=1)
    return float(
        np.sum(gammaln(kappa) - gammaln(n + kappa))
        + np.sum(gammaln(counts + alpha[None, :]) - gammaln(alpha)[None, :])
    )


def fit_concentration(counts: np.ndarray, mean: np.ndarray) -> ConcentrationFit:
    """Fit ``kappa`` by maximum marginal likelihood with the mean rates held fixed.

    Args:
        counts: Persons x categories count matrix (persons without counts are ignored).
        mean: Population mean rates (summing to 1).

    Raises:
        ValueError: With fewer than 2 persons who have counts.
    """
    counts = np.asarray(counts, dtype=float)
    counts = counts[counts.sum(axis=1) > 0]
    if len(counts) < 2:
        raise ValueError("need at least 2 persons with responses to fit the spread")
    lo, hi = np.log(KAPPA_BOUNDS[0]), np.log(KAPPA_BOUNDS[1])
    res = minimize_scalar(
        lambda lk: -dirichlet_multinomial_loglik(counts, mean, float(np.exp(lk))),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-6},
    )
    log_kappa = float(res.x)
    kappa = float(np.exp(log_kappa))
    at_bound = min(log_kappa - lo, hi - log_kappa) < 1e-3
    return ConcentrationFit(kappa, dirichlet_multinomial_loglik(counts, mean, kappa), at_bound)
