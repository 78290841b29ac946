"""Seed SD, noise floor and pass^k on a tiny hand-built table (values computed by hand)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from collabsim.reporting.noise import (
    mark_below_floor,
    pass_hat_k,
    report_noise_floor,
    seed_noise,
)

BY = ["structure", "team"]


def hand_table() -> pd.DataFrame:
    """Two cells, two tasks, three seeds each.

    Cell default/D::

        task a: 1, 1, 0   -> mean 2/3, var ((1/3)^2*2 + (2/3)^2)/2 = 1/3, c = 2
        task b: 1, 1, 1   -> var 0, c = 3

      seed SD = sqrt((1/3 + 0) / 2) = sqrt(1/6) = 0.408248
      Var(D)  = 2 * (1/3 / 3 + 0 / 3) / 2^2 = 1/18; floor = 1.959964 * sqrt(1/18) = 0.461968
      pass^1 = (2/3 + 3/3) / 2 = 5/6
      pass^2 = (C(2,2)/C(3,2) + C(3,2)/C(3,2)) / 2 = (1/3 + 1) / 2 = 2/3
      pass^3 = (C(2,3)/C(3,3) + 1) / 2 = (0 + 1) / 2 = 1/2

    Cell default/R::

        task a: 0.5, 0.5, 0.5  -> var 0, c = 0
        task b: 0, 1, 0.5      -> var ((0.5)^2 + (0.5)^2 + 0)/2 = 1/4, c = 1

      seed SD = sqrt((0 + 1/4) / 2) = sqrt(1/8) = 0.353553
      Var(D)  = 2 * (0 + 1/4 / 3) / 4 = 1/24; floor = 1.959964 * sqrt(1/24) = 0.400076
      pass^1 = (0 + 1/3) / 2 = 1/6; pass^2 = 0; pass^3 = 0

    The report's floor is the larger one, 0.461968.
    """
    values = {"D": {"a": [1, 1, 0], "b": [1, 1, 1]},
              "R": {"a": [0.5, 0.5, 0.5], "b": [0, 1, 0.5]}}
    rows = [{"structure": "default", "team": team, "task_id": task, "seed": seed,
             "status": "submitted", "Performance": value}
            for team, tasks in values.items() for task, seeds in tasks.items()
            for seed, value in enumerate(seeds)]
    return pd.DataFrame(rows)


def test_seed_sd_noise_floor_and_pass_k_match_the_hand_computation() -> None:
    noise = seed_noise(hand_table(), BY).set_index("team")
    d, r = noise.loc["D"], noise.loc["R"]
    assert (d["n_tasks"], d["seeds_min"], d["seeds_max"]) == (2, 3, 3)
    assert d["seed_sd"] == pytest.approx(math.sqrt(1 / 6))
    assert d["noise_floor"] == pytest.approx(0.461968, abs=1e-6)
    assert [d["pass^1"], d["pass^2"], d["pass^3"]] == pytest.approx([5 / 6, 2 / 3, 1 / 2])
    assert r["seed_sd"] == pytest.approx(math.sqrt(1 / 8))
    assert r["noise_floor"] == pytest.approx(0.400076, abs=1e-6)
    assert [r["pass^1"], r["pass^2"], r["pass^3"]] == pytest.approx([1 / 6, 0, 0])
    assert report_noise_floor(noise.reset_index()) == pytest.approx(0.461968, abs=1e-6)


def test_one_seed_gives_no_floor_and_unscored_sessions_are_left_out() -> None:
    table = hand_table()
    one_seed = table[table["seed"] == 0]
    noise = seed_noise(one_seed, BY)
    assert noise["noise_floor"].isna().all() and noise["seed_sd"].isna().all()
    assert math.isnan(report_noise_floor(noise))
    # an infra_error session measured nothing: it neither adds a seed nor a failure
    broken = table.copy()
    broken.loc[(broken.team == "D") & (broken.task_id == "a") & (broken.seed == 2),
               "status"] = "infra_error"
    d = seed_noise(broken, BY).set_index("team").loc["D"]
    assert (d["seeds_min"], d["pass^1"]) == (2, 1.0)


def test_pass_hat_k_is_the_tau_bench_estimate() -> None:
    assert pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_hat_k(4, 4, 3) == 1.0
    with pytest.raises(ValueError):
        pass_hat_k(1, 2, 3)


def test_differences_below_the_floor_are_marked() -> None:
    deltas = pd.DataFrame({"delta": [0.10, -0.50, 0.46]})
    marked = mark_below_floor(deltas, 0.461968)
    assert list(marked["below_noise_floor"]) == [True, False, True]
    assert not mark_below_floor(deltas, float("nan"))["below_noise_floor"].any()
