"""Paired differences between variants, with percentile-bootstrap intervals.

A **baseline** is a partial variant, ``{"structure": "default"}`` or ``{"team": "single"}``
(the single agent runs under structure ``single``, so that is implied). Every variant that
differs from it gets as reference the variant equal to it in every other column (team,
swept settings) and equal to the baseline in the named ones: ``scaffolded/DR`` is compared
with ``default/DR`` of the same settings, every team variant with the single agent of the
same settings.

Pairs are sessions of the same **task and seed** in both variants, both scored (an unscored
session, :func:`collabsim.reporting.tables.scored_sessions`, pairs with nothing). The
per-task difference is the mean over that task's paired seeds; the reported difference is
the mean over tasks, and its 95% interval the 2.5/97.5 percentiles of the means of
``n_boot`` resamples of the tasks (tasks are the independent units; the generator is
seeded, so a rerun prints the same interval).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from collabsim.reporting.bootstrap import mean_interval
from collabsim.reporting.tables import scored_sessions
from collabsim.reporting.variants import same_value

DELTA_COLUMNS = ["n_tasks", "n_pairs", "baseline", "variant", "delta", "ci_low", "ci_high"]


class BaselineError(ValueError):
    """A ``--baseline`` names no column or value of the report."""


def parse_baseline(text: str) -> dict[str, str]:
    """``"structure=default"`` / ``"team=single"`` / ``"a=1,b=x"`` -> column -> value.

    Raises:
        BaselineError: Not of the form ``key=value[,key=value]``.
    """
    out: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BaselineError(f"--baseline {text!r}: expected KEY=VALUE, e.g. structure=default")
        out[key.strip()] = value.strip()
    if out.get("team") == "single" or out.get("structure") == "single":
        out.update(team="single", structure="single")
    return out


def baseline_name(baseline: Mapping[str, str]) -> str:
    """``"single agent"`` or ``"structure=default"``."""
    if baseline.get("team") == "single":
        return "single agent"
    return ",".join(f"{k}={v}" for k, v in baseline.items())


def default_baselines(sessions: pd.DataFrame) -> list[dict[str, str]]:
    """``structure=default`` when another team structure ran beside it; the single agent when
    it ran beside a team."""
    structures = set(sessions["structure"])
    out = []
    if "default" in structures and structures - {"default", "single"}:
        out.append({"structure": "default"})
    if "single" in set(sessions["team"]) and set(sessions["team"]) - {"single"}:
        out.append({"team": "single", "structure": "single"})
    return out


def check_baseline(sessions: pd.DataFrame, baseline: Mapping[str, str]) -> None:
    """Raise :class:`BaselineError` unless some session matches ``baseline``."""
    for key, value in baseline.items():
        if key not in sessions.columns:
            raise BaselineError(f"--baseline {key}={value}: no column {key!r} in these results")
        if not any(same_value(v, value) for v in sessions[key].unique()):
            shown = ", ".join(sorted(map(str, sessions[key].unique()))[:8])
            raise BaselineError(f"--baseline {key}={value}: no session has it ({key}: {shown})")


def paired_differences(
    sessions: pd.DataFrame,
    by: Sequence[str],
    baseline: Mapping[str, str],
    metric: str = "Performance",
    n_boot: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Every variant's mean paired difference from its reference under ``baseline``.

    Args:
        sessions: One row per session (``task_id``, ``seed``, the ``by`` columns, ``metric``).
        by: The variant columns (``structure``, ``team``, swept settings).
        baseline: Column -> value of the reference (see the module docstring).
        metric: Column to compare.
        n_boot: Bootstrap resamples of the paired tasks.
        seed: Seed of the bootstrap generator.

    Returns:
        One row per compared variant: the ``by`` columns, ``reference`` (the baseline's name),
        ``n_tasks`` (tasks with a pair), ``n_pairs`` (paired sessions), ``baseline`` and
        ``variant`` (means over the paired tasks), ``delta``, ``ci_low``, ``ci_high``.
    """
    by = list(by)
    columns = [*by, "reference", *DELTA_COLUMNS]
    data = scored_sessions(sessions)[[*by, "task_id", "seed", metric]].copy()
    data[metric] = pd.to_numeric(data[metric], errors="coerce")
    data = data.dropna(subset=[metric])
    rng = np.random.default_rng(seed)
    groups = {key: part for key, part in data.groupby(by, dropna=False, sort=False)}
    rows = []
    for key, part in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        values = dict(zip(by, key, strict=True))
        if all(same_value(values.get(k), v) for k, v in baseline.items() if k in values):
            continue  # the baseline itself
        ref_key = tuple(baseline[c] if c in baseline else values[c] for c in by)
        ref = next((p for k, p in groups.items()
                    if all(same_value(a, str(b)) if c in baseline else a == b
                           for c, a, b in zip(by, k if isinstance(k, tuple) else (k,),
                                              ref_key, strict=True))), None)
        if ref is None:
            continue
        pairs = part.merge(ref, on=["task_id", "seed"], suffixes=("", "_ref"))
        if pairs.empty:
            continue
        per_task = pairs.groupby("task_id")[[metric, f"{metric}_ref"]].mean()
        diff = (per_task[metric] - per_task[f"{metric}_ref"]).to_numpy(dtype=float)
        low, high = mean_interval(diff, rng, n_boot)
        rows.append([*key, baseline_name(baseline), len(per_task), len(pairs),
                     float(per_task[f"{metric}_ref"].mean()), float(per_task[metric].mean()),
                     float(diff.mean()), float(low), float(high)])
    return pd.DataFrame(rows, columns=columns)


def all_paired_differences(sessions: pd.DataFrame, by: Sequence[str],
                           baselines: Sequence[Mapping[str, str]], **kwargs) -> pd.DataFrame:
    """:func:`paired_differences` for every baseline, one table."""
    frames = [paired_differences(sessions, by, b, **kwargs) for b in baselines]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=[*by, "reference", *DELTA_COLUMNS])
    return pd.concat(frames, ignore_index=True)
