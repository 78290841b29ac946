"""The percentile bootstrap of a mean that every interval of a mean uses."""

from __future__ import annotations

import numpy as np

from collabsim.reporting.bootstrap import mean_interval


def test_a_constant_sample_has_a_zero_width_interval() -> None:
    assert mean_interval([0.5, 0.5, 0.5], np.random.default_rng(0), 500) == (0.5, 0.5)


def test_two_values_give_the_percentiles_of_the_resample_means() -> None:
    # resamples of [0, 1] of size 2 have means 0, 0.5 or 1 with chances 1/4, 1/2, 1/4:
    # with many resamples the 2.5th percentile is 0 and the 97.5th is 1
    assert mean_interval([0.0, 1.0], np.random.default_rng(0), 20_000) == (0.0, 1.0)


def test_the_same_seed_gives_the_same_interval_and_it_holds_the_mean() -> None:
    values = np.random.default_rng(3).normal(0.5, 0.2, size=40)
    first = mean_interval(values, np.random.default_rng(1), 2000)
    assert first == mean_interval(values, np.random.default_rng(1), 2000)
    assert first[0] < values.mean() < first[1]
    # about two standard errors either side
    se = values.std(ddof=1) / np.sqrt(len(values))
    assert abs((first[1] - first[0]) / (2 * 1.96 * se) - 1) < 0.15
