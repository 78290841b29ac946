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

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from sklearn.model_selection import GroupKFold, LeaveOneGroupOut
from sklearn.preprocessing import StandardScaler

from collabsim.kolab.evaluate import LABELS
from collabsim.kolab.instances import HISTORY_TASKS, Instance
from collabsim.kolab.parallel import default_jobs, fork_map
from collabsim.kolab.predictors.base import PredictionRun, PredictionValue, TaskKind, task_kind
from collabsim.kolab.predictors.baselines import carry_forward
from collabsim.kolab.predictors.features import FeatureTable, feature_table
from collabsim.kolab.predictors.ridge import FitProblem
from collabsim.kolab.predictors.text import TextColumn, text_block
from collabsim.kolab.progress import Clock, Stage


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


class FoldFeaturizer:
    """TF-IDF + LSA per text column and scaling per group, fitted on training rows only.

    Args:
        table: Features of every instance.
        counts: Each text column's documents, prepared once
            (:class:`~collabsim.kolab.predictors.text.TextColumn`).
        fit_rows: Indices of the training rows (the only rows any statistic comes from).
        k_max: LSA components computed (configurations use the first ``k``).
        seed: Kept for interface stability (the LSA is exact and needs no randomness).
        known: Text column -> its scaled LSA block (None: the column has no block), taken
            as given instead of being fitted: another featurizer's :attr:`text_blocks` for
            the same documents and training rows (another task over the same windows).
    """

    def __init__(
        self,
        table: FeatureTable,
        counts: dict[str, TextColumn],
        fit_rows: np.ndarray,
        k_max: int,
        seed: int,
        known: dict[str, np.ndarray | None] | None = None,
    ) -> None:
        self.fit_rows = np.asarray(fit_rows)
        self.text_blocks: dict[str, np.ndarray | None] = {}
        """Text column -> scaled LSA block of every row (None: too few n-grams or components)."""
        for col, column in counts.items():
            if known is not None and col in known:
                self.text_blocks[col] = known[col]
            else:
                self.text_blocks[col] = text_block(column, self.fit_rows, k_max)
        lsa = {col: block for col, block in self.text_blocks.items() if block is not None}
        numeric: dict[str, np.ndarray] = {}
        for group, block in table.blocks.items():
            if block.shape[1]:
                scaler = StandardScaler().fit(block[self.fit_rows])
                numeric[group] = scaler.transform(block)
        # every configuration's design is a column subset of one matrix, so the ridge
        # statistics of a training set are computed once and sliced per configuration
        parts = [*lsa.values(), *numeric.values()]
        self.full = np.hstack(parts) if parts else np.zeros((len(table), 0))
        self._lsa_widths = {col: comps.shape[1] for col, comps in lsa.items()}
        self._numeric_widths = {group: block.shape[1] for group, block in numeric.items()}
        self._starts: dict[str, int] = {}
        start = 0
        for name, block in [*lsa.items(), *numeric.items()]:
            self._starts[name] = start
            start += block.shape[1]
        self._columns: dict[tuple[tuple[str, ...], int], np.ndarray] = {}

    def columns(self, config: ModelConfig) -> np.ndarray:
        """Indices into :attr:`full` of ``config``'s design, in :meth:`matrix`'s order."""
        key = (config.groups, config.k)
        if key not in self._columns:
            cols: list[np.ndarray] = []
            if "text" in config.groups:
                for col, width in self._lsa_widths.items():
                    cols.append(self._starts[col] + np.arange(min(config.k, width)))
            for group in config.groups:
                if group in self._numeric_widths:
                    width = self._numeric_widths[group]
                    cols.append(self._starts[group] + np.arange(width))
            self._columns[key] = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
        return self._columns[key]

    def matrix(self, rows: np.ndarray, config: ModelConfig) -> np.ndarray:
        """Design matrix of ``rows`` under ``config`` (one zero column when it has none)."""
        cols = self.columns(config)
        if cols.size == 0:
            return np.zeros((len(rows), 1))
        return self.full[np.ix_(np.asarray(rows), cols)]


def _scores(kind: TaskKind, y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Inner selection score of each target column: macro-F1 of label codes, or Spearman rho
    of ratings (-inf when the predictions or the targets are constant).

    Args:
        kind: Task kind.
        y: Targets, ``(rows, columns)``.
        pred: Predictions, ``(configurations, rows, columns)``.

    Returns:
        Scores, ``(configurations, columns)``.
    """
    n_cfg, n, n_col = pred.shape
    if kind == "adoption":
        k = len(LABELS)
        cell = (np.arange(n_cfg * n_col).reshape(n_cfg, 1, n_col) * (k * (k + 1))
                + y[None].astype(np.int64) * (k + 1) + pred)  # fmt: skip
        m = np.bincount(cell.ravel(), minlength=n_cfg * n_col * k * (k + 1))
        m = m.reshape(n_cfg, n_col, k, k + 1)
        tp = np.diagonal(m[..., :k], axis1=2, axis2=3).astype(float)
        fp = m[..., :k].sum(axis=2) - tp
        fn = m.sum(axis=3) - tp
        denom = 2 * tp + fp + fn
        f1 = np.divide(2 * tp, denom, out=np.zeros_like(tp), where=denom > 0)
        return f1.mean(axis=2)
    # Spearman rho = Pearson correlation of the ranks, column by column: each column's value
    # depends on that column only, so configurations with equal predictions tie exactly
    ok = (y != y[:1]).any(axis=0)[None, :] & (pred != pred[:, :1]).any(axis=1)
    ry = stats.rankdata(y, axis=0)
    ry = ry - ry.mean(axis=0)
    rp = stats.rankdata(pred, axis=1)
    rp = rp - rp.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (ry[None] * rp).sum(axis=1) / np.sqrt((ry**2).sum(axis=0)[None] * (rp**2).sum(axis=1))
    return np.where(ok, rho, -np.inf)


def _label_codes(y: np.ndarray) -> np.ndarray:
    """Adoption labels as indices into ``LABELS`` (any shape)."""
    index = {lab: k for k, lab in enumerate(LABELS)}
    flat = np.array([index[str(v)] for v in np.asarray(y).ravel()], dtype=np.int64)
    return flat.reshape(np.shape(y))


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
    counts: dict[str, TextColumn]
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
        jobs: Processes the folds are spread over (None = all cores); the results do not
            depend on it.
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
        jobs: int | None = None,
    ) -> None:
        self.seed = seed
        self.jobs = default_jobs() if jobs is None else max(1, int(jobs))
        self.timings: dict[str, tuple[float, float]] = {}
        """Wall and CPU seconds spent so far building fold featurizers (``featurizers``)
        and fitting every target set (``fits``)."""
        self.stage: Stage | None = None
        """Progress stage of the current setting (set by the caller), ticked once per fold."""
        self.progress = progress
        self.inner_folds = inner_folds
        self.grid = tuple(grid) if grid is not None else None
        self.allowed = None if groups is None else frozenset(groups)
        self.k_max = k_max
        self.selected: list[ModelConfig] = []
        self._prepared: tuple[tuple[str, ...], FeatureTable, dict[str, TextColumn]] | None
        self._prepared = None
        self._fold_cache: dict[bytes, FoldFeaturizer] = {}
        self._text_keys: dict[str, bytes] = {}
        # (documents digest, training rows) -> scaled LSA block: tasks over the same windows
        # (1a, 1b, 1b+h and 1d; 1c-k1 and 1c-k2) have the same documents, so each block is
        # fitted once per report
        self._text_cache: dict[tuple[bytes, bytes], np.ndarray | None] = {}
        # documents digest -> the documents' prepared n-gram counts
        self._columns: dict[bytes, TextColumn] = {}

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
            self._fold_cache = {}
            self._text_keys = {
                col: hashlib.sha256("\0".join(docs).encode()).digest() + str(len(docs)).encode()
                for col, docs in table.texts.items()
            }  # fmt: skip
            counts = {}
            for col, docs in table.texts.items():
                key = self._text_keys[col]
                if key not in self._columns:  # another task over the same windows hashed it
                    self._columns[key] = TextColumn.of(docs)
                counts[col] = self._columns[key]
            self._prepared = (ids, table, counts)
        return self._prepared[1], self._prepared[2]

    def _featurizer(
        self, table: FeatureTable, counts: dict[str, TextColumn], rows: np.ndarray
    ) -> FoldFeaturizer:
        key = np.sort(rows).astype(np.int64).tobytes()
        if key not in self._fold_cache:
            self._fold_cache[key] = FoldFeaturizer(table, counts, rows, self.k_max, self.seed,
                                                   self._known_text(rows))  # fmt: skip
        return self._fold_cache[key]

    def _known_text(self, rows: np.ndarray) -> dict[str, np.ndarray | None]:
        """Text blocks already fitted on ``rows`` for the same documents (by another task)."""
        key = _rows_key(rows)
        return {col: self._text_cache[(digest, key)] for col, digest in self._text_keys.items()
                if (digest, key) in self._text_cache}  # fmt: skip

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
        return self.predict_with_targets(instances, None, run=run)[0]

    def predict_with_targets(
        self, instances: Sequence[Instance], extra: np.ndarray | None, *, run: int = 0
    ) -> tuple[PredictionRun, list[list[PredictionValue]]]:
        """:meth:`predict`, plus out-of-fold predictions of other target sets fitted with it.

        The permutation null uses this: every fold's featurizers, Gram matrices and solves
        serve the true targets and all permuted ones together.

        Args:
            instances: Instances of one task.
            extra: Other target sets, ``(n_sets, len(instances))`` (None: none).
            run: Run index.

        Returns:
            The prediction run on the true targets and one prediction list per extra set.
        """
        task = instances[0].task if instances else ""
        kind = task_kind(task)
        n_extra = 0 if extra is None else len(extra)
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
            ), [[None] * len(instances) for _ in range(n_extra)]  # fmt: skip
        if len({i.participant_id for i in instances}) < 2:
            notes.append("fewer than two participants: no cross-validation possible")
            values: list[PredictionValue] = [None] * len(instances)
            extras: list[list[PredictionValue]] = [list(values) for _ in range(n_extra)]
        else:
            ys = y[:, None] if extra is None else np.column_stack([y, np.asarray(extra).T])
            values, *extras = self.predict_labels_many(instances, ys)
            chosen = dict.fromkeys(
                f"{'+'.join(c.groups)}" + (f" k={c.k}" if "text" in c.groups else "")
                + f" alpha={c.alpha:g}" for c in self.selected
            )  # fmt: skip
            notes.append(f"configurations chosen by nested selection: {'; '.join(chosen)}")
        return PredictionRun.over(self.name, self.modality, instances, values, run, notes), extras

    def predict_labels(
        self, instances: Sequence[Instance], y: np.ndarray
    ) -> list[PredictionValue]:
        """Out-of-fold predictions of targets ``y`` (the true ones, or a permutation).

        Args:
            instances: Instances of one task, from at least two participants.
            y: Targets aligned with ``instances``.
        """
        return self.predict_labels_many(instances, np.asarray(y)[:, None])[0]

    def predict_labels_many(
        self, instances: Sequence[Instance], ys: np.ndarray
    ) -> list[list[PredictionValue]]:
        """Out-of-fold predictions of several target sets, fitted together.

        Each fold's featurizers are fitted once, and every fit serves all target sets at
        once (:class:`~collabsim.kolab.predictors.ridge.FitProblem`); the featurizers and
        then the outer folds are spread over :attr:`jobs` processes. Column ``j`` gets the
        numbers :meth:`predict_labels` gives for ``ys[:, j]`` alone. :attr:`selected` holds
        the configuration chosen in each outer fold for the first column.

        Args:
            instances: Instances of one task, from at least two participants.
            ys: Targets, ``(len(instances), n_sets)``.
        """
        kind = task_kind(instances[0].task)
        table, counts = self._prepare(instances)
        fold = _FoldData(
            kind=kind,
            codes=_label_codes(ys) if kind == "adoption" else ys.astype(float),
            offsets=None if kind == "adoption" else carry_forward_offsets(instances),
            table=table,
            counts=counts,
            groups=np.array([i.participant_id for i in instances], dtype=object),
            grid=self._grid(kind, self.uses_history_for(instances[0].task)),
        )
        folds = list(LeaveOneGroupOut().split(np.zeros(len(ys)), None, fold.groups))
        # every training set (outer, and inner of each outer fold) gets one featurizer,
        # shared by every inner fold that repeats it and by every target set
        needed: dict[bytes, np.ndarray] = {}
        for train, _ in folds:
            needed.setdefault(_rows_key(train), train)
            if self._needs_selection(train, fold):
                for inner_train, _ in self._inner_splits(train, fold):
                    needed.setdefault(_rows_key(train[inner_train]), train[inner_train])
        todo = [rows for key, rows in needed.items() if key not in self._fold_cache]
        if self.stage is not None:
            self.stage.add_total(len(todo) + len(self._inner_plan(folds, fold)) + len(folds))
        tick = None if self.stage is None else self.stage.update
        with Clock(self.timings, "featurizers"):
            state = (table, counts, self.k_max, self.seed, self._known_text)
            built = fork_map(_build_featurizer, state, todo,
                             jobs=self.jobs, on_done=tick)  # fmt: skip
        for rows, feats in zip(todo, built, strict=True):
            self._fold_cache[_rows_key(rows)] = feats
            for col, block in feats.text_blocks.items():
                self._text_cache[(self._text_keys[col], _rows_key(rows))] = block
        with Clock(self.timings, "fits"):
            choices = self._select_all(folds, fold, tick)
            splits = [(tr, te, choice) for (tr, te), choice in zip(folds, choices, strict=True)]
            results = fork_map(_outer_fold, (self, fold), splits, jobs=self.jobs, on_done=tick)
        predictions = np.empty(ys.shape, dtype=np.int64 if kind == "adoption" else float)
        self.selected = []
        for (_, test), values, choice in zip(folds, results, choices, strict=True):
            predictions[test] = values
            self.selected.append(fold.grid[int(choice[0])])
        if kind == "adoption":
            return [[LABELS[int(v)] for v in col] for col in predictions.T]
        return [[float(v) for v in col] for col in predictions.T]

    def _fit_rows(
        self,
        fold: _FoldData,
        fit: np.ndarray,
        pred: np.ndarray,
        configs: Sequence[ModelConfig],
        codes: np.ndarray,
    ) -> list[np.ndarray]:
        """Predictions of the ``pred`` rows by each configuration fitted on the ``fit`` rows.

        ``codes`` are the training rows' targets, one column per target set; each result is
        ``(len(pred), n_sets)`` (label codes for adoption). Every configuration is a column
        subset of the training set's full design matrix, so the (weighted) Gram matrices
        are computed once for all of them, and configurations differing only in the
        penalty share one solve setup (:class:`~collabsim.kolab.predictors.ridge.FitProblem`).
        """
        feats = self._featurizer(fold.table, fold.counts, fit)
        problem = FitProblem(
            fold.kind,
            feats,
            fit,
            pred,
            codes,
            None if fold.offsets is None else fold.offsets[fit],
            None if fold.offsets is None else fold.offsets[pred],
        )
        return problem.predict_many(configs)

    def _needs_selection(self, train: np.ndarray, fold: _FoldData) -> bool:
        return len(fold.grid) > 1 and len(set(fold.groups[train].tolist())) >= 2

    def _inner_splits(
        self, train: np.ndarray, fold: _FoldData
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Grouped inner folds of ``train`` (positions within ``train``)."""
        groups = fold.groups[train]
        if self.inner_folds is None:
            inner: LeaveOneGroupOut | GroupKFold = LeaveOneGroupOut()
        else:
            inner = GroupKFold(n_splits=min(self.inner_folds, len(set(groups.tolist()))))
        return list(inner.split(train, groups=groups))

    def _inner_plan(
        self, folds: Sequence[tuple[np.ndarray, np.ndarray]], fold: _FoldData
    ) -> list[tuple[np.ndarray, list[tuple[int, np.ndarray]]]]:
        """Every distinct inner training set with the (outer fold, inner validation
        positions) it serves.

        With leave-one-participant-out inner folds, outer fold ``i``'s inner fold ``j`` and
        outer fold ``j``'s inner fold ``i`` train on the same rows with the same targets:
        the same model, asked about participant ``j`` in one and ``i`` in the other. Each
        distinct training set is therefore fitted once for all the rows it predicts.
        """
        plan: dict[bytes, tuple[np.ndarray, list[tuple[int, np.ndarray]]]] = {}
        for o, (train, _) in enumerate(folds):
            if self._needs_selection(train, fold):
                for inner_train, inner_val in self._inner_splits(train, fold):
                    fit = train[inner_train]
                    plan.setdefault(_rows_key(fit), (fit, []))[1].append((o, inner_val))
        return list(plan.values())

    def _select_all(
        self,
        folds: Sequence[tuple[np.ndarray, np.ndarray]],
        fold: _FoldData,
        tick: Callable[..., Any] | None,
    ) -> list[np.ndarray]:
        """Pick a configuration per target set and outer fold by grouped inner
        cross-validation on the outer training set (nested selection).

        Returns:
            Per outer fold, the index into the grid of each target set's configuration
            (ties: the earlier, simpler one).
        """
        plan = self._inner_plan(folds, fold)
        items = [(fit, np.concatenate([folds[o][0][val] for o, val in uses])) for fit, uses in plan]
        fitted = fork_map(_inner_fit, (self, fold), items, jobs=self.jobs, on_done=tick)
        n_sets = fold.codes.shape[1]
        pooled: dict[int, np.ndarray] = {}
        for (_, uses), preds in zip(plan, fitted, strict=True):
            start = 0
            for o, val in uses:
                if o not in pooled:
                    pooled[o] = np.empty((len(fold.grid), len(folds[o][0]), n_sets),
                                         dtype=fold.codes.dtype)  # fmt: skip
                pooled[o][:, val] = preds[:, start : start + len(val)]
                start += len(val)
        choices = []
        for o, (train, _) in enumerate(folds):
            if o in pooled:
                scores = _scores(fold.kind, fold.codes[train], pooled.pop(o))
                choices.append(np.argmax(scores, axis=0))
            else:
                choices.append(np.zeros(n_sets, dtype=np.int64))
        return choices

    def _fit_predict(
        self, train: np.ndarray, test: np.ndarray, fold: _FoldData, choice: np.ndarray
    ) -> np.ndarray:
        """Refit each target set's chosen configuration on ``train`` and predict ``test``
        (one outer fold).

        Returns:
            Predictions ``(len(test), n_sets)``.
        """
        chosen = sorted(set(choice.tolist()))
        preds = self._fit_rows(fold, train, test, [fold.grid[c] for c in chosen], fold.codes[train])
        out = np.empty((len(test), len(choice)), dtype=preds[0].dtype)
        for pos, c in enumerate(chosen):
            cols = np.flatnonzero(choice == c)
            out[:, cols] = preds[pos][:, cols]
        return out


def _rows_key(rows: np.ndarray) -> bytes:
    return np.sort(rows).astype(np.int64).tobytes()


def _build_featurizer(
    state: tuple[FeatureTable, dict[str, TextColumn], int, int, Callable[..., Any]],
    rows: np.ndarray,
) -> FoldFeaturizer:
    table, counts, k_max, seed, known = state
    return FoldFeaturizer(table, counts, rows, k_max, seed, known(rows))


def _inner_fit(
    state: tuple[LearnedPredictor, _FoldData], item: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """Every grid configuration fitted on ``item[0]``, predicting ``item[1]``:
    ``(configurations, rows, target sets)``."""
    predictor, fold = state
    fit, pred = item
    preds = predictor._fit_rows(fold, fit, pred, fold.grid, fold.codes[fit])
    # label codes travel back from the worker as bytes (an eighth of the int64 volume)
    return np.stack(preds).astype(np.int8 if fold.kind == "adoption" else float, copy=False)


def _outer_fold(
    state: tuple[LearnedPredictor, _FoldData],
    split: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    predictor, fold = state
    return predictor._fit_predict(split[0], split[1], fold, split[2])
