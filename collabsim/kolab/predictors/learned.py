"""Learned predictors evaluated with leave-one-participant-out (LOPO) cross-validation.

Inputs (:mod:`~collabsim.kolab.predictors.features`): character 2-5-grams of the AI output
and of the request (and of the response in 1a), compressed by LSA, plus interpretable cues,
a few structural facts and, for 1b+h, the session's earlier labels. Character n-grams were
chosen over word n-grams because word features learn words that identify a person (and so
cannot transfer to a held-out person); LSA keeps only the few directions shared by many
documents.

**Everything fitted is fitted inside the training fold.** For each held-out participant:

1. the TF-IDF weights, the truncated SVD (LSA) and the feature scaling are fitted on the
   other participants' instances only;
2. model selection is nested: a grouped inner cross-validation over the training
   participants (``inner_folds`` folds, each refitting step 1 on its own training part)
   picks the feature groups, the number of LSA components and the regularisation strength;
3. the chosen configuration is refitted on all training participants and predicts the
   held-out participant.

Adoption uses a class-weighted (balanced) ridge classifier, selected by inner macro-F1;
ratings use ridge regression of the deviation from the carry-forward rating (the session's
previous step rating, 5 when none), clipped to [1, 5] and selected by inner Spearman rho:
an uncentred model's intercept is the training participants' mean rating, which moves
against the held-out participant's and so ranks whole participants backwards. Both are
solved in closed form, so the thousands of fits that nested selection and the permutation
null need stay cheap on a small machine.
Character n-gram counts are hashed (stateless: no vocabulary is learned, so they can be
computed once for all folds). Labels never enter a feature, so the fitted featurisers (and
every design matrix and unweighted Gram matrix built from them) are cached per training set
and reused by the permutation null (:func:`~collabsim.kolab.chance.permutation_null`); the
ridge fits themselves are in :mod:`~collabsim.kolab.predictors.ridge`. Deterministic for a
given seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse, stats
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.model_selection import GroupKFold, LeaveOneGroupOut
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from collabsim.kolab.evaluate import LABELS, macro_f1_codes
from collabsim.kolab.instances import HISTORY_TASKS, Instance
from collabsim.kolab.predictors.base import PredictionRun, PredictionValue, TaskKind, task_kind
from collabsim.kolab.predictors.baselines import carry_forward
from collabsim.kolab.predictors.features import FeatureTable, feature_table
from collabsim.kolab.predictors.ridge import FitProblem, RidgeStats, ridge_stats

_HASH_FEATURES = 2**18
_MIN_DF = 2


@dataclass(frozen=True)
class ModelConfig:
    """One point of the model-selection grid.

    Attributes:
        groups: Feature groups used (``text``, ``cues``, ``structure``, ``history``).
        k: LSA components per text column (ignored without ``text``).
        alpha: Ridge penalty.
    """

    groups: tuple[str, ...]
    k: int
    alpha: float


def default_grid(kind: TaskKind, history: bool = False) -> tuple[ModelConfig, ...]:
    """The selection grid: feature groups x LSA size x ridge penalty.

    Single groups are in the grid as well as their combinations, so nested selection can
    switch a group off; with ``history`` (1b+h), the history group alone and added to every
    combination.
    """
    sets: list[tuple[tuple[str, ...], int]] = [(("cues",), 0), (("cues", "structure"), 0)]
    for k in (8, 32):
        sets += [(("text",), k), (("text", "cues"), k), (("text", "cues", "structure"), k)]
    if history:
        sets = [(("history",), 0)] + [((*g, "history"), k) for g, k in sets]
    return tuple(ModelConfig(g, k, alpha) for alpha in (300.0, 30.0) for g, k in sets)


def char_counts(texts: Sequence[str]) -> sparse.csr_matrix:
    """Hashed character 2-5-gram counts (within word boundaries) of each text."""
    vectorizer = HashingVectorizer(
        analyzer="char_wb",
        ngram_range=(2, 5),
        n_features=_HASH_FEATURES,
        alternate_sign=False,
        norm=None,
    )
    return vectorizer.transform(list(texts)).tocsr()


def lsa_components(docs: sparse.csr_matrix, fit_rows: np.ndarray, k: int) -> np.ndarray:
    """LSA of ``docs``: projections on the top-``k`` right singular vectors of the fit rows.

    With far fewer documents than n-grams, the SVD of the fit rows ``F`` comes exactly and
    cheaply from their Gram matrix: ``F F^T = U S^2 U^T`` and ``V = F^T U S^-1``, so a row
    ``x`` maps to ``x F^T U S^-1``. Only the fit rows shape ``U`` and ``S``; other rows are
    merely projected. Signs are fixed (largest loading positive) so results are
    deterministic; near-zero singular values are dropped.
    """
    products = (docs @ docs[fit_rows].T).toarray()  # every row against the fit rows
    eigvals, eigvecs = np.linalg.eigh(products[fit_rows])
    order = np.argsort(eigvals)[::-1][:k]
    eigvals, eigvecs = eigvals[order], eigvecs[:, order]
    good = eigvals > 1e-10 * max(float(eigvals[:1].max(initial=0.0)), 1e-300)
    eigvals, eigvecs = eigvals[good], eigvecs[:, good]
    signs = np.sign(eigvecs[np.argmax(np.abs(eigvecs), axis=0), np.arange(eigvecs.shape[1])])
    eigvecs = eigvecs * np.where(signs == 0, 1.0, signs)
    return (products @ eigvecs) / np.sqrt(eigvals)


class FoldFeaturizer:
    """TF-IDF + LSA per text column and scaling per group, fitted on training rows only.

    Args:
        table: Features of every instance.
        counts: Hashed character n-gram counts per text column (all instances).
        fit_rows: Indices of the training rows (the only rows any statistic comes from).
        k_max: LSA components computed (configurations use the first ``k``).
        seed: Kept for interface stability (the LSA is exact and needs no randomness).
    """

    def __init__(
        self,
        table: FeatureTable,
        counts: dict[str, sparse.csr_matrix],
        fit_rows: np.ndarray,
        k_max: int,
        seed: int,
    ) -> None:
        self.fit_rows = np.asarray(fit_rows)
        self._table = table
        self._lsa: dict[str, np.ndarray] = {}
        for col, matrix in counts.items():
            train = matrix[self.fit_rows]
            keep = np.flatnonzero(np.asarray((train > 0).sum(axis=0)).ravel() >= _MIN_DF)
            if keep.size < 2:
                continue  # e.g. the response text outside 1a
            tfidf = TfidfTransformer(sublinear_tf=True).fit(train[:, keep])
            comps = lsa_components(tfidf.transform(matrix[:, keep]), self.fit_rows, k_max)
            if comps.shape[1] == 0:
                continue
            scaler = StandardScaler().fit(comps[self.fit_rows])
            self._lsa[col] = scaler.transform(comps)
        self._numeric: dict[str, np.ndarray] = {}
        for group, block in table.blocks.items():
            if block.shape[1]:
                scaler = StandardScaler().fit(block[self.fit_rows])
                self._numeric[group] = scaler.transform(block)
        # every configuration's design is a column subset of one matrix, so the ridge
        # statistics of a training set are computed once and sliced per configuration
        parts = [*self._lsa.values(), *self._numeric.values()]
        self.full = np.hstack(parts) if parts else np.zeros((len(table), 0))
        self._starts: dict[str, int] = {}
        start = 0
        for name, block in [*self._lsa.items(), *self._numeric.items()]:
            self._starts[name] = start
            start += block.shape[1]
        self._columns: dict[tuple[tuple[str, ...], int], np.ndarray] = {}
        self._blocks: dict[tuple[tuple[str, ...], int], tuple[np.ndarray, np.ndarray]] = {}
        # label-free ridge statistics of each design on the training rows (ratings)
        self._unweighted: dict[tuple[tuple[str, ...], int], RidgeStats] = {}

    def unweighted_stats(self, config: ModelConfig) -> RidgeStats:
        """Unweighted ridge statistics of ``config``'s design on the training rows (cached).

        Label-free, so every permutation of the null reuses them.
        """
        key = (config.groups, config.k)
        if key not in self._unweighted:
            x = self.matrix(self.fit_rows, config)
            self._unweighted[key] = ridge_stats(x, np.ones(len(self.fit_rows)))
        return self._unweighted[key]

    def columns(self, config: ModelConfig) -> np.ndarray:
        """Indices into :attr:`full` of ``config``'s design, in :meth:`matrix`'s order."""
        key = (config.groups, config.k)
        if key not in self._columns:
            cols: list[np.ndarray] = []
            if "text" in config.groups:
                for col, comps in self._lsa.items():
                    width = min(config.k, comps.shape[1])
                    cols.append(self._starts[col] + np.arange(width))
            for group in config.groups:
                if group in self._numeric:
                    width = self._numeric[group].shape[1]
                    cols.append(self._starts[group] + np.arange(width))
            self._columns[key] = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
        return self._columns[key]

    def block(self, config: ModelConfig) -> tuple[np.ndarray, np.ndarray]:
        """``np.ix_`` index of ``config``'s columns against themselves (a Gram sub-block)."""
        key = (config.groups, config.k)
        if key not in self._blocks:
            cols = self.columns(config)
            self._blocks[key] = np.ix_(cols, cols)
        return self._blocks[key]

    def matrix(self, rows: np.ndarray, config: ModelConfig) -> np.ndarray:
        """Design matrix of ``rows`` under ``config`` (one zero column when it has none)."""
        cols = self.columns(config)
        if cols.size == 0:
            return np.zeros((len(rows), 1))
        return self.full[np.ix_(np.asarray(rows), cols)]


def _score(kind: TaskKind, y: np.ndarray, pred: np.ndarray) -> float:
    """Inner selection score: macro-F1 of label codes, or Spearman rho of ratings."""
    if kind == "adoption":
        return macro_f1_codes(y, pred)
    if len(set(pred.tolist())) < 2 or len(set(y.tolist())) < 2:
        return -math.inf
    return float(stats.spearmanr(y.astype(float), pred.astype(float)).statistic)


def _label_codes(y: np.ndarray) -> np.ndarray:
    """Adoption labels as indices into ``LABELS``."""
    index = {lab: k for k, lab in enumerate(LABELS)}
    return np.array([index[str(v)] for v in y], dtype=np.int64)


def carry_forward_offsets(instances: Sequence[Instance]) -> np.ndarray:
    """The carry-forward rating of each rating instance (previous step's rating, else 5).

    It uses only :attr:`Instance.history` (the same rating of the session's earlier steps),
    which is known when the step is rated, so a model centred on it needs nothing fitted on
    the held-out participant.
    """
    return np.array([carry_forward(i) for i in instances], dtype=float)


@dataclass(frozen=True)
class _FoldData:
    """What every fold of one task shares: targets, features, groups and the grid."""

    kind: TaskKind
    codes: np.ndarray
    offsets: np.ndarray | None
    table: FeatureTable
    counts: dict[str, sparse.csr_matrix]
    groups: np.ndarray
    grid: tuple[ModelConfig, ...]


class LearnedPredictor:
    """Nested, leave-one-participant-out model over window features.

    Args:
        seed: Kept for interface stability (the LSA and the solvers are exact).
        progress: Show a progress bar over folds.
        inner_folds: Grouped inner folds of the nested model selection; None (default)
            leaves one training participant out at a time.
        grid: Selection grid (default :func:`default_grid` of the task kind).
        groups: Feature groups allowed (``None`` = all); configurations needing others are
            dropped, which is how a group is switched off.
        k_max: LSA components fitted per text column.
    """

    name = "learned"
    modality = "graph"
    kinds: tuple[TaskKind, ...] = ("adoption", "rating")
    runs = 1

    def __init__(
        self,
        seed: int = 0,
        progress: bool = True,
        *,
        inner_folds: int | None = None,
        grid: Sequence[ModelConfig] | None = None,
        groups: Sequence[str] | None = None,
        k_max: int = 32,
    ) -> None:
        self.seed = seed
        self.progress = progress
        self.inner_folds = inner_folds
        self.grid = tuple(grid) if grid is not None else None
        self.allowed = None if groups is None else frozenset(groups)
        self.k_max = k_max
        self.selected: list[ModelConfig] = []
        self._prepared: tuple[tuple[str, ...], FeatureTable, dict[str, sparse.csr_matrix]] | None
        self._prepared = None
        self._fold_cache: dict[bytes, FoldFeaturizer] = {}

    @staticmethod
    def uses_history_for(task: str) -> bool:
        """True when this predictor's inputs for ``task`` include the session's earlier labels.

        1b+h reads the earlier adoption labels; the rating tasks are centred on the
        carry-forward rating and read the earlier step ratings.
        """
        return task in HISTORY_TASKS or task_kind(task) == "rating"

    # ------------------------------------------------------------------ features and folds

    def _prepare(self, instances: Sequence[Instance]) -> tuple[FeatureTable, dict]:
        ids = tuple(i.instance_id for i in instances)
        if self._prepared is None or self._prepared[0] != ids:
            table = feature_table(instances)
            counts = {col: char_counts(docs) for col, docs in table.texts.items()}
            self._prepared = (ids, table, counts)
            self._fold_cache = {}
        return self._prepared[1], self._prepared[2]

    def _featurizer(
        self, table: FeatureTable, counts: dict[str, sparse.csr_matrix], rows: np.ndarray
    ) -> FoldFeaturizer:
        key = np.sort(rows).astype(np.int64).tobytes()
        if key not in self._fold_cache:
            self._fold_cache[key] = FoldFeaturizer(table, counts, rows, self.k_max, self.seed)
        return self._fold_cache[key]

    def _grid(self, kind: TaskKind, history: bool) -> tuple[ModelConfig, ...]:
        """The selection grid with switched-off groups removed from every configuration."""
        grid = self.grid if self.grid is not None else default_grid(kind, history)
        if self.allowed is not None:
            kept: dict[ModelConfig, None] = {}
            for cfg in grid:
                groups = tuple(g for g in cfg.groups if g in self.allowed)
                if groups:
                    k = cfg.k if "text" in groups else 0
                    kept[ModelConfig(groups, k, cfg.alpha)] = None
            grid = tuple(kept)
        return grid

    # ------------------------------------------------------------------ prediction

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Out-of-fold predictions for every instance (one fold per participant)."""
        task = instances[0].task if instances else ""
        kind = task_kind(task)
        if kind == "adoption":
            y = np.array([str(i.target) for i in instances], dtype=object)
        else:
            y = np.array([float(i.target) for i in instances])
        notes: list[str] = []
        if instances and not self._grid(kind, self.uses_history_for(task)):
            return PredictionRun(
                predictor=self.name, task=task, modality=self.modality, run=run,
                instance_ids=(), predictions=(),
                notes=("no allowed feature group applies to this task",),
                missing=tuple(i.instance_id for i in instances),
            )  # fmt: skip
        if len({i.participant_id for i in instances}) < 2:
            notes.append("fewer than two participants: no cross-validation possible")
            values: list[PredictionValue] = [None] * len(instances)
        else:
            values = self.predict_labels(instances, y)
            chosen = dict.fromkeys(
                f"{'+'.join(c.groups)}" + (f" k={c.k}" if "text" in c.groups else "")
                + f" alpha={c.alpha:g}" for c in self.selected
            )  # fmt: skip
            notes.append(f"configurations chosen by nested selection: {'; '.join(chosen)}")
        return PredictionRun.over(self.name, self.modality, instances, values, run, notes)

    def predict_labels(
        self, instances: Sequence[Instance], y: np.ndarray
    ) -> list[PredictionValue]:
        """Out-of-fold predictions of targets ``y`` (the true ones, or a permutation).

        Args:
            instances: Instances of one task, from at least two participants.
            y: Targets aligned with ``instances``.
        """
        kind = task_kind(instances[0].task)
        table, counts = self._prepare(instances)
        fold = _FoldData(
            kind=kind,
            codes=_label_codes(y) if kind == "adoption" else y.astype(float),
            offsets=None if kind == "adoption" else carry_forward_offsets(instances),
            table=table,
            counts=counts,
            groups=np.array([i.participant_id for i in instances], dtype=object),
            grid=self._grid(kind, self.uses_history_for(instances[0].task)),
        )
        predictions: list[PredictionValue] = [None] * len(instances)
        self.selected = []
        folds = list(LeaveOneGroupOut().split(np.zeros(len(y)), y, fold.groups))
        # one BLAS thread: these problems are tiny, and OpenBLAS threads on a busy machine
        # slow the solvers down by an order of magnitude
        with threadpool_limits(limits=1):
            for train, test in tqdm(
                folds, desc=f"learned {instances[0].task} LOPO", disable=not self.progress,
                leave=False,
            ):  # fmt: skip
                values = self._fit_predict(train, test, fold)
                for idx, value in zip(test, values, strict=True):
                    predictions[idx] = value
        return predictions

    def _fit_rows(
        self, fold: _FoldData, fit: np.ndarray, pred: np.ndarray, configs: Sequence[ModelConfig]
    ) -> list[np.ndarray]:
        """Predictions of the ``pred`` rows by each configuration fitted on the ``fit`` rows.

        Every configuration is a column subset of the training set's full design matrix, so
        the (weighted) Gram matrix is computed once for all of them and configurations
        differing only in the penalty share one solve setup (:class:`~collabsim.kolab.predictors.ridge.FitProblem`).
        Adoption predictions are label codes.
        """
        feats = self._featurizer(fold.table, fold.counts, fit)
        problem = FitProblem(
            fold.kind,
            feats,
            fit,
            pred,
            fold.codes[fit],
            None if fold.offsets is None else fold.offsets[fit],
            None if fold.offsets is None else fold.offsets[pred],
        )
        out: list[np.ndarray] = [np.empty(0)] * len(configs)
        designs: dict[tuple[tuple[str, ...], int], list[int]] = {}
        for pos, cfg in enumerate(configs):
            designs.setdefault((cfg.groups, cfg.k), []).append(pos)
        for positions in designs.values():
            preds = problem.predict(configs[positions[0]], [configs[p].alpha for p in positions])
            for p, values in zip(positions, preds, strict=True):
                out[p] = values
        return out  # every position is filled: each config belongs to one design

    def _select(self, train: np.ndarray, fold: _FoldData) -> ModelConfig:
        """Pick a configuration by grouped inner cross-validation on ``train`` only."""
        grid = fold.grid
        n_groups = len(set(fold.groups[train].tolist()))
        if len(grid) == 1 or n_groups < 2:
            return grid[0]
        if self.inner_folds is None:
            inner: LeaveOneGroupOut | GroupKFold = LeaveOneGroupOut()
        else:
            inner = GroupKFold(n_splits=min(self.inner_folds, n_groups))
        pooled = [np.empty(len(train), dtype=fold.codes.dtype) for _ in grid]
        for inner_train, inner_val in inner.split(train, groups=fold.groups[train]):
            preds = self._fit_rows(fold, train[inner_train], train[inner_val], grid)
            for out, values in zip(pooled, preds, strict=True):
                out[inner_val] = values
        scores = [_score(fold.kind, fold.codes[train], out) for out in pooled]
        return grid[int(np.argmax(scores))]  # ties: the earlier (simpler) configuration

    def _fit_predict(
        self, train: np.ndarray, test: np.ndarray, fold: _FoldData
    ) -> list[PredictionValue]:
        """Select on ``train`` (nested), refit there and predict ``test`` (one outer fold)."""
        config = self._select(train, fold)
        self.selected.append(config)
        (out,) = self._fit_rows(fold, train, test, [config])
        if fold.kind == "adoption":
            return [LABELS[int(v)] for v in out]
        return [float(v) for v in out]
