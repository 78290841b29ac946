"""Chance levels: a stratified random guess and the permutation null of a learned predictor.

* **Stratified random**: each instance gets a label (rating) drawn independently from the
  evaluated instances' own label (rating) distribution. Its expected macro-F1 is about 1/3
  for three labels whatever the class balance, which is the level a forecaster must beat
  (the majority class scores lower on macro-F1 because it never predicts two labels). The
  expected value and the 2.5/97.5 percentiles come from ``n_draws`` seeded draws.
* **Permutation null** (Ojala & Garriga 2010, test 1): the targets are shuffled across all
  instances, the predictor's whole cross-validated procedure (fold featurisers, nested
  selection, refit) is rerun on the shuffled targets and scored against them. The p-value is
  ``(1 + #{null >= observed}) / (1 + n)`` (Phipson & Smyth 2010: never zero, valid at any
  n). Its resolution is 1/(n + 1): with 20 permutations the smallest possible p is 1/21 =
  0.048 and a single null score at or above the observed one already gives 0.095, so a
  0.05 threshold is barely testable; the default, :data:`DEFAULT_PERMUTATIONS` = 100,
  resolves p down to 0.0099. For ratings the statistic is Spearman's rho.

Two nulls answer different questions (:data:`NULL_SCHEMES`):

* ``global``: targets shuffled across all instances. It breaks every link between inputs and
  targets, including the link between *who the person is* and their label mix. Under
  leave-one-participant-out a model can still beat it by learning person-level traits (a
  professional's domain, their writing) that go with a person's overall adoption rate, so
  beating it shows that the model uses *something*, not that it reads the response.
* ``blocked`` (within participant): targets shuffled only among each participant's own
  instances, so every person keeps their label mix and only which of their responses got
  which label is broken. Anything a model gets from person-level traits survives in this
  null; beating it shows the model uses response-level signal beyond who the person is.
  When a person's labels are all alike, the blocked shuffle cannot change them at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from tqdm.auto import tqdm

from collabsim.kolab.evaluate import LABELS, macro_f1, macro_f1_codes, spearman_rho
from collabsim.kolab.instances import Instance
from collabsim.kolab.predictors.base import PredictionValue, task_kind
from collabsim.kolab.progress import is_terminal

DEFAULT_PERMUTATIONS = 100
"""Label permutations of the null by default (p resolves down to 1/101 = 0.0099)."""

NULL_SCHEMES: tuple[str, ...] = ("global", "blocked")
"""Permutation schemes: across all instances, or within each participant."""


@dataclass(frozen=True)
class ChanceLevel:
    """Score of a random guess drawn from the true label (rating) distribution.

    Attributes:
        metric: ``macro_f1`` (adoption) or ``spearman`` / ``mae`` / ``within1`` (ratings).
        mean: Expected value over the draws.
        low: 2.5th percentile of the draws.
        high: 97.5th percentile of the draws.
        draws: Number of draws.
    """

    metric: str
    mean: float
    low: float
    high: float
    draws: int


@dataclass(frozen=True)
class PermutationNull:
    """Permutation null of one predictor on one task.

    Attributes:
        metric: ``macro_f1`` or ``spearman``.
        observed: The predictor's score on the true targets.
        scores: Scores on each permutation of the targets.
        scheme: ``global`` (shuffled across all instances) or ``blocked`` (within each
            participant); see :data:`NULL_SCHEMES`.
    """

    metric: str
    observed: float
    scores: tuple[float, ...]
    scheme: str = "global"

    @property
    def mean(self) -> float:
        """Mean null score."""
        finite = [s for s in self.scores if math.isfinite(s)]
        return float(np.mean(finite)) if finite else math.nan

    @property
    def p95(self) -> float:
        """95th percentile of the null scores."""
        finite = [s for s in self.scores if math.isfinite(s)]
        return float(np.quantile(finite, 0.95)) if finite else math.nan

    @property
    def resolution(self) -> float:
        """The smallest p-value this many permutations can give, ``1 / (1 + n)``."""
        return 1.0 / (1 + len(self.scores))

    @property
    def p_value(self) -> float:
        """One-sided permutation p-value ``(1 + #{null >= observed}) / (1 + n)``."""
        if not self.scores or not math.isfinite(self.observed):
            return math.nan
        # a nan null score (constant predictions) cannot beat the observed one
        beats = sum(math.isfinite(s) and s >= self.observed for s in self.scores)
        return (1 + beats) / (1 + len(self.scores))


class RelabelablePredictor(Protocol):
    """A predictor whose cross-validated procedure can be rerun on other targets."""

    def predict_labels(
        self, instances: Sequence[Instance], y: np.ndarray
    ) -> list[PredictionValue]:
        """Out-of-fold predictions of the targets ``y``."""
        ...


_CODES = {lab: k for k, lab in enumerate(LABELS)}


def _codes(labels: Sequence[Any]) -> np.ndarray:
    """Labels as indices into ``LABELS`` (anything else: ``len(LABELS)``, invalid)."""
    return np.array([_CODES.get(v, len(LABELS)) if isinstance(v, str) else len(LABELS)
                     for v in labels], dtype=np.int64)  # fmt: skip


def _score(kind: str, y: Sequence[Any], pred: Sequence[Any]) -> float:
    if kind == "adoption":
        t = _codes(y)
        if (t == len(LABELS)).any():  # a true value that is not a label: the general path
            return macro_f1(list(y), list(pred))
        return macro_f1_codes(t, _codes(pred))
    pairs = [(float(t), float(p)) for t, p in zip(y, pred, strict=True) if p is not None]
    if not pairs:
        return math.nan
    t, p = zip(*pairs, strict=True)
    return spearman_rho(t, p)


def stratified_chance(
    kind: str, y_true: Sequence[Any], *, seed: int = 0, n_draws: int = 2000
) -> dict[str, ChanceLevel]:
    """Chance level of a stratified random guess, per metric.

    Args:
        kind: ``"adoption"`` or ``"rating"``.
        y_true: True labels or ratings of the evaluated instances.
        seed: Seed of the draws.
        n_draws: Number of random guesses.

    Returns:
        ``{"macro_f1": ...}`` for adoption; ``{"mae", "within1", "spearman"}`` for ratings.
    """
    rng = np.random.default_rng(seed)
    y = np.asarray(y_true, dtype=object if kind == "adoption" else float)
    if len(y) == 0:
        return {}
    values: dict[str, list[float]] = {}
    codes = _codes(y.tolist()) if kind == "adoption" else None
    if codes is not None and (codes == len(LABELS)).any():
        codes = None  # a true value that is not a label: the general path
    for _ in range(n_draws):
        draw = rng.integers(0, len(y), size=len(y))
        guess = y[draw]
        if kind == "adoption":
            score = (macro_f1(y.tolist(), guess.tolist()) if codes is None
                     else macro_f1_codes(codes, codes[draw]))  # fmt: skip
            values.setdefault("macro_f1", []).append(score)
        else:
            err = np.abs(guess - y)
            values.setdefault("mae", []).append(float(err.mean()))
            values.setdefault("within1", []).append(float((err <= 1.0).mean()))
            values.setdefault("spearman", []).append(spearman_rho(y, guess))
    out = {}
    for metric, vals in values.items():
        arr = np.asarray(vals, dtype=float)
        arr = arr[np.isfinite(arr)]
        out[metric] = ChanceLevel(
            metric,
            float(arr.mean()) if len(arr) else math.nan,
            float(np.quantile(arr, 0.025)) if len(arr) else math.nan,
            float(np.quantile(arr, 0.975)) if len(arr) else math.nan,
            n_draws,
        )
    return out


def blocked_permutation(blocks: Sequence[str], rng: np.random.Generator) -> np.ndarray:
    """A permutation of ``range(len(blocks))`` that moves indices only within their block.

    Blocks are visited in order of first appearance, one ``rng.permutation`` each, so the
    result depends only on the block labels and the generator.
    """
    labels = np.asarray([str(b) for b in blocks], dtype=object)
    order = np.arange(len(labels))
    for block in dict.fromkeys(labels.tolist()):
        members = np.flatnonzero(labels == block)
        order[members] = members[rng.permutation(len(members))]
    return order


def _targets(instances: Sequence[Instance]) -> np.ndarray:
    if task_kind(instances[0].task) == "adoption":
        return np.array([str(i.target) for i in instances], dtype=object)
    return np.array([float(i.target) for i in instances])


def null_targets(
    instances: Sequence[Instance],
    *,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    scheme: str = "global",
) -> np.ndarray:
    """The shuffled targets of a permutation null, one row per permutation.

    Row ``j`` is the ``j``-th shuffle of a generator seeded with ``seed``: across all
    instances (``global``) or within each participant (``blocked``).

    Raises:
        ValueError: On an unknown ``scheme``.
    """
    if scheme not in NULL_SCHEMES:
        raise ValueError(f"unknown null scheme {scheme!r}; use {' or '.join(NULL_SCHEMES)}")
    y = _targets(instances)
    blocks = [i.participant_id for i in instances]
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_permutations):
        order = rng.permutation(len(y)) if scheme == "global" else blocked_permutation(blocks, rng)
        rows.append(y[order])
    return np.array(rows, dtype=y.dtype).reshape(n_permutations, len(y))


def null_from_predictions(
    instances: Sequence[Instance],
    observed: float,
    shuffled: np.ndarray,
    predictions: Sequence[Sequence[PredictionValue]],
    scheme: str = "global",
) -> PermutationNull:
    """The permutation null from each permutation's out-of-fold predictions.

    Args:
        instances: Instances of one task.
        observed: The predictor's score on the true targets.
        shuffled: Shuffled targets, one row per permutation (:func:`null_targets`).
        predictions: Out-of-fold predictions of each row of ``shuffled``.
        scheme: The null's scheme.
    """
    kind = task_kind(instances[0].task)
    scores = tuple(
        _score(kind, row.tolist(), pred) for row, pred in zip(shuffled, predictions, strict=True)
    )
    metric = "macro_f1" if kind == "adoption" else "spearman"
    return PermutationNull(metric, observed, scores, scheme)


def permutation_null(
    predictor: RelabelablePredictor,
    instances: Sequence[Instance],
    observed: float,
    *,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    scheme: str = "global",
    progress: bool = False,
) -> PermutationNull:
    """Rerun ``predictor``'s cross-validated procedure on shuffled targets.

    A predictor with ``predict_labels_many`` (the learned one) fits all permutations
    together, fold by fold; others are rerun once per permutation.

    Args:
        predictor: A predictor with ``predict_labels`` (e.g. the learned predictor).
        instances: Instances of one task.
        observed: The score of the predictor on the true targets.
        n_permutations: Number of shuffles.
        seed: Seed of the shuffles.
        scheme: ``global`` (across all instances) or ``blocked`` (within each participant).
        progress: Show a progress bar over the permutations (one-by-one predictors, in a
            terminal only).

    Raises:
        ValueError: On an unknown ``scheme``.
    """
    shuffled = null_targets(instances, n_permutations=n_permutations, seed=seed, scheme=scheme)
    many = getattr(predictor, "predict_labels_many", None)
    if many is not None and n_permutations:
        preds = many(instances, shuffled.T)
    else:
        preds = [predictor.predict_labels(instances, row) for row in tqdm(
            shuffled, desc=f"{scheme} null {instances[0].task}",
            disable=not (progress and is_terminal()), leave=False)]  # fmt: skip
    return null_from_predictions(instances, observed, shuffled, preds, scheme)


__all__ = [
    "NULL_SCHEMES",
    "ChanceLevel",
    "PermutationNull",
    "blocked_permutation",
    "null_from_predictions",
    "null_targets",
    "permutation_null",
    "stratified_chance",
]
