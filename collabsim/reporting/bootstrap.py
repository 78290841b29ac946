"""The percentile bootstrap of a mean: the one implementation every interval of a mean uses.

``mean_interval(values, rng, n_boot)`` draws ``n_boot`` resamples of ``values`` with
replacement (one ``(n_boot, n)`` draw from ``rng``), takes each resample's mean and returns
the 2.5th and 97.5th percentiles of those means (numpy's linear interpolation): the 95 %
percentile-bootstrap interval of the mean. The paired differences of a report
(:mod:`collabsim.reporting.paired`), the trained-policy evaluations of ``collabsim train``
and the per-domain table of ``benchmarks/per_domain_performance.py`` call it; the Kolab
benchmark resamples participants and runs per resample, so it keeps its own
(:mod:`collabsim.kolab.evaluate`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mean_interval(values: Sequence[float] | np.ndarray, rng: np.random.Generator,
                  n_boot: int) -> tuple[float, float]:
    """95 % percentile-bootstrap interval of the mean of ``values``.

    Args:
        values: The observations (tasks, episodes, paired differences); at least one.
        rng: The generator the resamples are drawn from (advanced by one draw).
        n_boot: Number of resamples.

    Returns:
        ``(low, high)``: the 2.5th and 97.5th percentiles of the resample means.
    """
    data = np.asarray(values, dtype=float)
    means = rng.choice(data, size=(n_boot, len(data)), replace=True).mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)
