"""Benchmark metrics with bootstrap intervals.

Adoption (labels adopt, modify, reject): macro-F1 = mean over the three labels of
F1 = 2PR / (P + R) (0 when undefined); per-label F1; macro precision and recall; the confusion
matrix (rows = true, columns = predicted, plus an ``invalid`` column); the predicted and true
label distributions. An invalid prediction (None) counts as wrong: a false negative of the true
label and a false positive of no label.

Ratings (1-5): MAE = mean |pred - true|, within-1 accuracy = share with |pred - true| <= 1,
Spearman's rho (with its p-value; undefined when either side is constant) and MAE per true
rating. Invalid predictions are left out of rating metrics and counted.

Several runs: every metric is computed per run; the reported value is the mean over runs and
``*_std`` the standard deviation across runs (0 for one run). Bootstrap 95% intervals resample
instances with replacement (``intervals``) and, when participants are given, whole
participants (``cluster_intervals``: a cluster bootstrap, wider and more honest when a
participant's instances are alike), with a seeded ``numpy.random.Generator`` (the same
resample for all runs), and take the 2.5 and 97.5 percentiles of the run-mean metric.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from collabsim.graphs.model import RESPONSE_LABELS
from collabsim.kolab.predictors.base import PredictionValue

LABELS: tuple[str, ...] = RESPONSE_LABELS
RATINGS: tuple[int, ...] = (1, 2, 3, 4, 5)


# ----------------------------------------------------------------------------- single run


def f1_per_label(y_true: Sequence[str], y_pred: Sequence[str | None]) -> dict[str, float]:
    """F1 of each label (0 when the label is never true nor predicted)."""
    out = {}
    for lab in LABELS:
        tp = sum(t == lab and p == lab for t, p in zip(y_true, y_pred, strict=True))
        fp = sum(t != lab and p == lab for t, p in zip(y_true, y_pred, strict=True))
        fn = sum(t == lab and p != lab for t, p in zip(y_true, y_pred, strict=True))
        out[lab] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return out


def macro_f1(y_true: Sequence[str], y_pred: Sequence[str | None]) -> float:
    """Unweighted mean of the three labels' F1."""
    return float(np.mean(list(f1_per_label(y_true, y_pred).values())))


def precision_recall(y_true: Sequence[str], y_pred: Sequence[str | None]) -> tuple[float, float]:
    """Macro precision and macro recall (0 for a label never predicted / never true)."""
    precisions, recalls = [], []
    for lab in LABELS:
        tp = sum(t == lab and p == lab for t, p in zip(y_true, y_pred, strict=True))
        n_pred = sum(p == lab for p in y_pred)
        n_true = sum(t == lab for t in y_true)
        precisions.append(tp / n_pred if n_pred else 0.0)
        recalls.append(tp / n_true if n_true else 0.0)
    return float(np.mean(precisions)), float(np.mean(recalls))


def confusion(y_true: Sequence[str], y_pred: Sequence[str | None]) -> np.ndarray:
    """3 x 4 counts: rows = true label, columns = predicted label then ``invalid``."""
    matrix = np.zeros((len(LABELS), len(LABELS) + 1), dtype=int)
    for t, p in zip(y_true, y_pred, strict=True):
        col = LABELS.index(p) if p in LABELS else len(LABELS)
        matrix[LABELS.index(t), col] += 1
    return matrix


def spearman(y_true: Sequence[float], y_pred: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho and two-sided p-value; (nan, nan) when undefined."""
    if len(y_true) < 3 or len(set(y_true)) < 2 or len(set(y_pred)) < 2:
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.spearmanr(y_true, y_pred)
    return float(res.statistic), float(res.pvalue)


def spearman_rho(y_true: Sequence[float], y_pred: Sequence[float]) -> float:
    """:func:`spearman`'s rho bit for bit (nan when undefined), without the p-value.

    The bootstraps, the chance draws and the permutation nulls score thousands of
    resamples; ``scipy.stats.spearmanr`` spends most of its time on checks and on ranking
    column by column. Here both sides are ranked directly (average ranks are exact
    numbers, whatever computes them) into the ``(2, n)`` layout ``spearmanr`` hands to
    ``numpy.corrcoef``, whose result is then the same to the last bit
    (``tests/kolab/test_evaluate.py``).
    """
    t = np.asarray(y_true, dtype=float)
    p = np.asarray(y_pred, dtype=float)
    if len(t) < 3 or np.isnan(t).any() or np.isnan(p).any():
        return math.nan
    if not (t != t[0]).any() or not (p != p[0]).any():
        return math.nan
    ranks = np.empty((2, len(t)))
    ranks[0] = average_ranks(t)
    ranks[1] = average_ranks(p)
    return float(np.corrcoef(ranks)[1, 0])


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their average (``scipy.stats.rankdata``'s default).

    Each rank is ``(first + last) / 2`` of its tie group's positions, a sum of integers
    halved, so it is the same number whatever computes it; this skips rankdata's
    per-call overhead.
    """
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.empty(len(x), dtype=bool)
    new[:1] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    starts = np.append(np.flatnonzero(new), len(x))  # each tie group's first position
    group = np.cumsum(new)  # 1-based tie group of each sorted position
    out = np.empty(len(x))
    out[order] = 0.5 * (starts[group] + starts[group - 1] + 1)
    return out


def _valid_pairs(
    y_true: Sequence[float], y_pred: Sequence[float | None]
) -> tuple[np.ndarray, np.ndarray]:
    pairs = [(t, p) for t, p in zip(y_true, y_pred, strict=True) if p is not None]
    if not pairs:
        return np.array([]), np.array([])
    t, p = zip(*pairs, strict=True)
    return np.asarray(t, dtype=float), np.asarray(p, dtype=float)


def rating_scores(y_true: Sequence[float], y_pred: Sequence[float | None]) -> dict[str, float]:
    """MAE, within-1, Spearman rho/p and MAE per true rating over the valid predictions."""
    t, p = _valid_pairs(y_true, y_pred)
    out: dict[str, float] = {"n_valid": float(len(t))}
    if len(t) == 0:
        out.update(mae=math.nan, within1=math.nan, spearman=math.nan, spearman_p=math.nan)
    else:
        err = np.abs(p - t)
        out["mae"] = float(err.mean())
        out["within1"] = float((err <= 1.0 + 1e-9).mean())
        out["spearman"], out["spearman_p"] = spearman(t.tolist(), p.tolist())
    for r in RATINGS:
        mask = t == r
        out[f"mae_true{r}"] = float(np.abs(p[mask] - t[mask]).mean()) if mask.any() else math.nan
    return out


def adoption_scores(y_true: Sequence[str], y_pred: Sequence[str | None]) -> dict[str, float]:
    """Macro-F1, P, R, per-label F1 and predicted/true label shares (``invalid`` share too)."""
    out: dict[str, float] = {"macro_f1": macro_f1(y_true, y_pred)}
    out["precision"], out["recall"] = precision_recall(y_true, y_pred)
    for lab, value in f1_per_label(y_true, y_pred).items():
        out[f"f1_{lab}"] = value
    n = len(y_true) or 1
    for lab in LABELS:
        out[f"pred_share_{lab}"] = sum(p == lab for p in y_pred) / n
        out[f"true_share_{lab}"] = sum(t == lab for t in y_true) / n
    out["pred_share_invalid"] = sum(p is None for p in y_pred) / n
    return out


# ----------------------------------------------------------------------------- runs + bootstrap


@dataclass(frozen=True)
class Evaluation:
    """Metrics of one predictor on one task and modality, over its runs.

    Attributes:
        kind: ``"adoption"`` or ``"rating"``.
        n: Instances evaluated.
        runs: Number of runs.
        n_invalid: Invalid predictions summed over runs.
        values: Metric -> mean over runs.
        stds: Metric -> standard deviation across runs.
        intervals: Metric -> (low, high) bootstrap 95% interval over instances.
        cluster_intervals: Metric -> (low, high) bootstrap 95% interval over participants
            (empty when no participants were given).
        confusion: Confusion matrix summed over runs (adoption), or true x rounded prediction
            counts 5 x 5 summed over runs (ratings; invalid left out).
        y_true: True targets.
        y_pred_runs: Predictions per run.
    """

    kind: str
    n: int
    runs: int
    n_invalid: int
    values: dict[str, float]
    stds: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    confusion: np.ndarray = field(compare=False)
    cluster_intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    y_true: tuple[Any, ...] = ()
    y_pred_runs: tuple[tuple[PredictionValue, ...], ...] = ()


def _mean_over_runs(
    fn: Callable[[Sequence[Any], Sequence[Any]], dict[str, float]],
    y_true: Sequence[Any],
    runs: Sequence[Sequence[Any]],
) -> tuple[dict[str, float], dict[str, float]]:
    per_run = [fn(y_true, r) for r in runs]
    keys = per_run[0].keys()
    means, stds = {}, {}
    for key in keys:
        vals = np.array([d[key] for d in per_run], dtype=float)
        finite = vals[np.isfinite(vals)]
        means[key] = float(finite.mean()) if len(finite) else math.nan
        stds[key] = float(finite.std(ddof=0)) if len(finite) else math.nan
    return means, stds


class Resampler:
    """Draws bootstrap index samples: instances, or whole clusters (e.g. participants).

    Args:
        n: Number of instances.
        groups: Cluster label per instance; None resamples instances.
    """

    def __init__(self, n: int, groups: Sequence[str] | None = None) -> None:
        self.n = n
        if groups is None:
            self.clusters: list[np.ndarray] | None = None
        else:
            if len(groups) != n:
                raise ValueError("groups must align with the instances")
            order: dict[str, list[int]] = {}
            for i, g in enumerate(groups):
                order.setdefault(str(g), []).append(i)
            self.clusters = [np.asarray(v, dtype=int) for v in order.values()]

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One resample of instance indices."""
        if self.clusters is None:
            return rng.integers(0, self.n, size=self.n)
        picks = rng.integers(0, len(self.clusters), size=len(self.clusters))
        return np.concatenate([self.clusters[k] for k in picks])


def bootstrap_interval(
    fn: Callable[[Sequence[Any], Sequence[Any]], float],
    y_true: Sequence[Any],
    runs: Sequence[Sequence[Any]],
    rng: np.random.Generator,
    n_boot: int = 1000,
    level: float = 0.95,
    resampler: Resampler | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the run-mean of ``fn`` (nan when undefined)."""
    n = len(y_true)
    if n == 0:
        return math.nan, math.nan
    y_arr = np.asarray(y_true, dtype=object)
    run_arrs = [np.asarray(r, dtype=object) for r in runs]
    resampler = resampler or Resampler(n)
    stats_: list[float] = []
    for _ in range(n_boot):
        idx = resampler.draw(rng)
        vals = [fn(y_arr[idx].tolist(), r[idx].tolist()) for r in run_arrs]
        vals = [v for v in vals if not math.isnan(v)]
        if vals:
            stats_.append(float(np.mean(vals)))
    if len(stats_) < max(10, n_boot // 10):
        return math.nan, math.nan
    alpha = (1 - level) / 2
    return float(np.quantile(stats_, alpha)), float(np.quantile(stats_, 1 - alpha))


def macro_f1_codes(t: np.ndarray, p: np.ndarray) -> float:
    """:func:`macro_f1` of integer-coded labels (``len(LABELS)`` = invalid), vectorised.

    Bit-for-bit the same value as :func:`macro_f1` on the decoded labels.
    """
    k = len(LABELS)
    m = np.bincount(t * (k + 1) + p, minlength=k * (k + 1)).reshape(k, k + 1)
    tp = np.diag(m[:, :k]).astype(float)
    fp = m[:, :k].sum(axis=0) - tp
    fn = m.sum(axis=1) - tp
    denom = 2 * tp + fp + fn
    f1 = np.divide(2 * tp, denom, out=np.zeros(k), where=denom > 0)
    return float(f1.mean())


def _bootstrap_codes(
    t: np.ndarray,
    runs: Sequence[np.ndarray],
    rng: np.random.Generator,
    n_boot: int,
    resampler: Resampler,
) -> tuple[float, float]:
    """Bootstrap interval of the run-mean macro-F1 over integer-coded labels (fast path)."""
    n = len(t)
    if n == 0:
        return math.nan, math.nan
    values = []
    for _ in range(n_boot):
        idx = resampler.draw(rng)
        values.append(np.mean([macro_f1_codes(t[idx], r[idx]) for r in runs]))
    return float(np.quantile(values, 0.025)), float(np.quantile(values, 0.975))


def _bootstrap_rating(
    name: str,
    y_true: Sequence[Any],
    runs: Sequence[Sequence[Any]],
    rng: np.random.Generator,
    n_boot: int,
    resampler: Resampler,
) -> tuple[float, float]:
    """:func:`bootstrap_interval` of :func:`_rating_metric` ``name``, the same numbers.

    The same resamples are drawn in the same order, and each resample's valid pairs are
    the same arrays :func:`_valid_pairs` builds, gathered from arrays instead of lists.
    """
    n = len(y_true)
    if n == 0:
        return math.nan, math.nan
    t_all = np.asarray(y_true, dtype=float)
    valid = [np.array([p is not None for p in r]) for r in runs]
    preds = [np.array([0.0 if p is None else p for p in r], dtype=float) for r in runs]
    stats_: list[float] = []
    for _ in range(n_boot):
        idx = resampler.draw(rng)
        vals = []
        for ok_all, p_all in zip(valid, preds, strict=True):
            ok = ok_all[idx]
            t, p = t_all[idx][ok], p_all[idx][ok]
            if len(t) == 0:
                continue
            if name == "mae":
                vals.append(float(np.abs(p - t).mean()))
            elif name == "within1":
                vals.append(float((np.abs(p - t) <= 1.0 + 1e-9).mean()))
            else:
                vals.append(spearman_rho(t, p))
        vals = [v for v in vals if not math.isnan(v)]
        if vals:
            stats_.append(float(np.mean(vals)))
    if len(stats_) < max(10, n_boot // 10):
        return math.nan, math.nan
    alpha = (1 - 0.95) / 2  # as bootstrap_interval computes it (not exactly 0.025)
    return float(np.quantile(stats_, alpha)), float(np.quantile(stats_, 1 - alpha))


def _rating_metric(name: str) -> Callable[[Sequence[Any], Sequence[Any]], float]:
    def fn(y_true: Sequence[Any], y_pred: Sequence[Any]) -> float:
        t, p = _valid_pairs(y_true, y_pred)
        if len(t) == 0:
            return math.nan
        if name == "mae":
            return float(np.abs(p - t).mean())
        if name == "within1":
            return float((np.abs(p - t) <= 1.0 + 1e-9).mean())
        return spearman_rho(t, p)

    return fn


def evaluate_runs(
    kind: str,
    y_true: Sequence[Any],
    runs: Sequence[Sequence[PredictionValue]],
    *,
    seed: int = 0,
    n_boot: int = 1000,
    groups: Sequence[str] | None = None,
) -> Evaluation:
    """Evaluate the predictions of one or more runs against ``y_true``.

    Args:
        kind: ``"adoption"`` or ``"rating"``.
        y_true: True labels or ratings.
        runs: Per run, predictions aligned with ``y_true`` (None = invalid).
        seed: Seed of the bootstrap generator.
        n_boot: Bootstrap resamples.
        groups: Cluster per instance (participant ids): adds ``cluster_intervals`` from a
            bootstrap that resamples whole participants. Instances are always resampled too.
    """
    if not runs:
        raise ValueError("at least one run is required")
    n_invalid = sum(p is None for r in runs for p in r)
    intervals = _intervals(kind, y_true, runs, np.random.default_rng(seed), n_boot, None)
    cluster_intervals = (
        {}
        if groups is None
        else _intervals(kind, y_true, runs, np.random.default_rng([seed, 1]), n_boot, groups)
    )
    if kind == "adoption":
        values, stds = _mean_over_runs(adoption_scores, y_true, runs)
        matrix = sum((confusion(y_true, r) for r in runs), np.zeros((3, 4), dtype=int))
    else:
        values, stds = _mean_over_runs(rating_scores, y_true, runs)
        matrix = np.zeros((5, 5), dtype=int)
        for r in runs:
            for t, p in zip(y_true, r, strict=True):
                if p is not None:
                    matrix[int(t) - 1, int(np.clip(round(float(p)), 1, 5)) - 1] += 1
    return Evaluation(
        kind=kind,
        n=len(y_true),
        runs=len(runs),
        n_invalid=n_invalid,
        values=values,
        stds=stds,
        intervals=intervals,
        confusion=matrix,
        cluster_intervals=cluster_intervals,
        y_true=tuple(y_true),
        y_pred_runs=tuple(tuple(r) for r in runs),
    )


def _intervals(
    kind: str,
    y_true: Sequence[Any],
    runs: Sequence[Sequence[PredictionValue]],
    rng: np.random.Generator,
    n_boot: int,
    groups: Sequence[str] | None,
) -> dict[str, tuple[float, float]]:
    resampler = Resampler(len(y_true), groups)
    if kind == "adoption":
        t_codes = np.array([LABELS.index(t) for t in y_true], dtype=int)
        p_codes = [
            np.array([LABELS.index(p) if p in LABELS else len(LABELS) for p in r], dtype=int)
            for r in runs
        ]
        return {"macro_f1": _bootstrap_codes(t_codes, p_codes, rng, n_boot, resampler)}
    if kind == "rating":
        return {
            name: _bootstrap_rating(name, y_true, runs, rng, n_boot, resampler)
            for name in ("mae", "within1", "spearman")
        }
    raise ValueError(f"unknown kind {kind!r}")
