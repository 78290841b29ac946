"""Seed-to-seed variance of a cell, the noise floor of a report, and pass^k.

A **cell** is one variant (structure × team × swept settings × task suite). Its value is the
mean over its T tasks of the seed-averaged metric (:func:`collabsim.reporting.tables.aggregate`).
With ``y[t, s]`` the metric of task ``t`` under seed ``s``, ``n_t`` the seeds of task ``t``
and ``s_t^2`` their sample variance (ddof=1, only tasks with ``n_t >= 2``):

* **seed SD** of the cell: ``sqrt(mean_t s_t^2)``, the typical spread of one session's value
  when only the seed changes (the task held fixed).
* **noise floor** of the cell: the 95% quantile of ``|D|``, where ``D`` is the difference
  between the cell's value and the value of a reseeded copy of it (same tasks, as many new
  seeds). Seeds are independent given the task, so ``Var(D) = 2 * sum_t (s_t^2 / n_t) / T^2``
  and, in the normal approximation, the floor is ``z_0.975 * sqrt(Var(D))``
  (``z_0.975 = scipy.stats.norm.ppf(0.975) = 1.96``). It needs at least two seeds of some
  task; tasks with one seed contribute no variance estimate and are left out of the sums
  (``T`` counts the tasks with ``n_t >= 2``).
* **noise floor of a report**: the largest cell floor, so a difference below it could be
  produced by reseeding alone in at least one of the cells compared.
* **pass^k** (tau-bench): the chance that all ``k`` seeds of a task succeed (Performance
  == 1). A task with ``c`` successes in ``n`` seeds gives the unbiased estimate
  ``C(c, k) / C(n, k)`` (``scipy.special.comb``); the cell's pass^k is its mean over the
  tasks with ``n >= k``. pass^1 is the success rate.

Unscored sessions (:func:`collabsim.reporting.tables.scored_sessions`) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import comb
from scipy.stats import norm

from collabsim.reporting.tables import scored_sessions

#: The quantile of |D| the noise floor is (two-sided 95%).
NOISE_QUANTILE = 0.95
#: Performance of a successful session (pass^k counts these).
SUCCESS = 1.0


def _values(sessions: pd.DataFrame, by: Sequence[str], metric: str) -> pd.DataFrame:
    data = scored_sessions(sessions)[[*by, "task_id", "seed", metric]].copy()
    data[metric] = pd.to_numeric(data[metric], errors="coerce")
    return data.dropna(subset=[metric])


def pass_hat_k(successes: int, n: int, k: int) -> float:
    """The unbiased estimate ``C(c, k) / C(n, k)`` that ``k`` seeds of a task all succeed.

    Raises:
        ValueError: ``k`` is not in ``1..n``.
    """
    if not 1 <= k <= n:
        raise ValueError(f"pass^k needs 1 <= k <= n seeds (k={k}, n={n})")
    return float(comb(successes, k, exact=True) / comb(n, k, exact=True))


def seed_noise(sessions: pd.DataFrame, by: Sequence[str], metric: str = "Performance",
               max_k: int | None = None) -> pd.DataFrame:
    """Per cell: seed SD, noise floor and pass^1 … pass^K of ``metric`` (see module docstring).

    Args:
        sessions: One row per session (``task_id``, ``seed``, the ``by`` columns, ``metric``).
        by: The variant columns.
        metric: The metric (pass^k counts ``metric == 1``).
        max_k: Largest k (default: the most seeds any task of the table has).

    Returns:
        One row per cell: the ``by`` columns, ``n_tasks``, ``seeds_min`` / ``seeds_max``
        (seeds per task), ``seed_sd``, ``noise_floor`` (NaN without a task of >= 2 seeds)
        and ``pass^1`` … ``pass^K`` (NaN when no task has k seeds).
    """
    by = list(by)
    data = _values(sessions, by, metric)
    per_task = data.groupby([*by, "task_id"], dropna=False, sort=False)[metric].agg(
        n="count", var=lambda v: v.var(ddof=1),
        c=lambda v: int(np.isclose(v.to_numpy(dtype=float), SUCCESS).sum()))
    if max_k is None:
        max_k = int(per_task["n"].max()) if len(per_task) else 1
    z = float(norm.ppf(0.5 + NOISE_QUANTILE / 2))
    rows = []
    for key, cell in per_task.groupby(level=by, dropna=False, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        varied = cell[cell["n"] >= 2]
        if len(varied):
            seed_sd = float(np.sqrt(varied["var"].mean()))
            var_d = 2.0 * float((varied["var"] / varied["n"]).sum()) / len(varied) ** 2
            floor = z * float(np.sqrt(var_d))
        else:
            seed_sd = floor = float("nan")
        passes = []
        for k in range(1, max_k + 1):
            enough = cell[cell["n"] >= k]
            passes.append(float(np.mean([pass_hat_k(int(c), int(n), k)
                                         for c, n in zip(enough["c"], enough["n"], strict=True)]))
                          if len(enough) else float("nan"))
        rows.append([*key, len(cell), int(cell["n"].min()), int(cell["n"].max()), seed_sd,
                     floor, *passes])
    columns = [*by, "n_tasks", "seeds_min", "seeds_max", "seed_sd", "noise_floor",
               *[f"pass^{k}" for k in range(1, max_k + 1)]]
    return pd.DataFrame(rows, columns=columns)


def report_noise_floor(noise: pd.DataFrame) -> float:
    """The noise floor of a report: the largest cell floor (NaN when no cell has one)."""
    floors = noise["noise_floor"].dropna() if "noise_floor" in noise else pd.Series(dtype=float)
    return float(floors.max()) if len(floors) else float("nan")


def mark_below_floor(deltas: pd.DataFrame, floor: float) -> pd.DataFrame:
    """``deltas`` with ``below_noise_floor``: ``|delta| < floor`` (False when no floor)."""
    out = deltas.copy()
    below = out["delta"].abs() < floor if np.isfinite(floor) else False
    out["below_noise_floor"] = pd.Series(below, index=out.index, dtype=bool) if len(out) else []
    return out
