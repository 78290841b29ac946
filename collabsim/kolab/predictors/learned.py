"""Learned predictors evaluated with leave-one-participant-out cross-validation.

The model sees the features of :mod:`collabsim.kolab.predictors.features`: standardised
numeric features plus TF-IDF of the ``focus``, ``response`` (1a) and ``context`` texts (English stop words
removed, unigrams and bigrams hashed into 2048 buckets, buckets seen in fewer than two training
documents dropped, sublinear term frequency). Adoption uses a
class-balanced logistic regression; ratings use ridge regression whose output is clipped to
[1, 5] (kept continuous, so Spearman's rho can rank it; MAE and within-1 use the same values).

Cross-validation: for each participant, a model is fitted on every other participant's
instances of the task and predicts that participant's instances, so no participant is ever in
both training and test data. Feature scaling and the TF-IDF vocabulary are fitted inside each
fold. Everything is deterministic for a given seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import LeaveOneGroupOut
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from collabsim.kolab.instances import Instance
from collabsim.kolab.predictors.base import PredictionRun, PredictionValue, TaskKind, task_kind
from collabsim.kolab.predictors.features import TEXT_COLUMNS, feature_table

_HASH_FEATURES = 2**11


def _hashed_texts(frame: pd.DataFrame) -> dict[str, sparse.csr_matrix]:
    """Token counts of each text column, hashed (stateless, so computed once for all folds)."""
    vectorizer = HashingVectorizer(
        n_features=_HASH_FEATURES,
        alternate_sign=False,
        norm=None,
        ngram_range=(1, 2),
        stop_words="english",
    )
    return {col: vectorizer.transform(frame[col].tolist()).tocsr() for col in TEXT_COLUMNS}


def _model(kind: TaskKind, seed: int) -> LogisticRegression | Ridge:
    if kind == "adoption":
        return LogisticRegression(C=0.5, class_weight="balanced", max_iter=5000, random_state=seed)
    return Ridge(alpha=10.0, random_state=seed)


class LearnedPredictor:
    """Scikit-learn model over window features, predicted leave-one-participant-out.

    Args:
        seed: Seed of the models (the solvers used are deterministic anyway).
        progress: Show a progress bar over folds.
    """

    name = "learned"
    modality = "graph"
    kinds: tuple[TaskKind, ...] = ("adoption", "rating")
    runs = 1

    def __init__(self, seed: int = 0, progress: bool = True) -> None:
        self.seed = seed
        self.progress = progress

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Out-of-fold predictions for every instance (one fold per participant)."""
        task = instances[0].task if instances else ""
        kind = task_kind(task)
        rows, numeric_cols = feature_table(instances)
        frame = pd.DataFrame(rows)
        numeric = frame[numeric_cols].to_numpy(dtype=float)
        texts = _hashed_texts(frame)
        groups = np.array([i.participant_id for i in instances], dtype=object)
        if kind == "adoption":
            y = np.array([str(i.target) for i in instances], dtype=object)
        else:
            y = np.array([float(i.target) for i in instances])
        predictions: list[PredictionValue] = [None] * len(instances)
        notes: list[str] = []
        n_groups = len(set(groups.tolist()))
        if n_groups < 2:
            notes.append("fewer than two participants: no cross-validation possible")
        else:
            folds = list(LeaveOneGroupOut().split(numeric, y, groups))
            # one BLAS thread: these problems are tiny, and OpenBLAS threads on a busy
            # machine slow the solver down by an order of magnitude
            with threadpool_limits(limits=1):
                for train, test in tqdm(
                    folds, desc=f"learned {task} LOPO", disable=not self.progress, leave=False
                ):
                    values = self._fit_predict(y, train, test, numeric, texts, kind)
                    for idx, value in zip(test, values, strict=True):
                        predictions[idx] = value
        return PredictionRun(
            predictor=self.name,
            task=task,
            modality=self.modality,
            run=run,
            instance_ids=tuple(i.instance_id for i in instances),
            predictions=tuple(predictions),
            notes=tuple(notes),
        )

    def _fit_predict(
        self,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        numeric: np.ndarray,
        texts: dict[str, sparse.csr_matrix],
        kind: TaskKind,
    ) -> list[PredictionValue]:
        y_train = y[train]
        if kind == "adoption" and len(set(y_train.tolist())) < 2:
            return [str(y_train[0])] * len(test)
        scaler = StandardScaler().fit(numeric[train])
        blocks_train = [sparse.csr_matrix(scaler.transform(numeric[train]))]
        blocks_test = [sparse.csr_matrix(scaler.transform(numeric[test]))]
        for counts in texts.values():
            # document frequencies from the training fold only; terms seen once are dropped
            df_train = np.asarray((counts[train] > 0).sum(axis=0)).ravel()
            keep = np.flatnonzero(df_train >= 2)
            if keep.size == 0:  # e.g. the response text outside 1a
                continue
            tfidf = TfidfTransformer(sublinear_tf=True).fit(counts[train][:, keep])
            blocks_train.append(tfidf.transform(counts[train][:, keep]))
            blocks_test.append(tfidf.transform(counts[test][:, keep]))
        model = _model(kind, self.seed)
        model.fit(sparse.hstack(blocks_train).tocsr(), y_train)
        out = model.predict(sparse.hstack(blocks_test).tocsr())
        if kind == "adoption":
            return [str(v) for v in out]
        return [float(np.clip(v, 1.0, 5.0)) for v in out]
