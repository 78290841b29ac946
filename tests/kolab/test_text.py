"""The learned predictor's text features: a training set's TF-IDF, derived from n-gram counts
prepared once for all folds, is exactly scikit-learn's TfidfTransformer refitted on that
training set (vocabulary by document frequency in the training rows, their idf), the
documents' products equal scipy's sparse product, and the scaled LSA block built on them is
exactly the one a refit gives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.model_selection import LeaveOneGroupOut
from sklearn.preprocessing import StandardScaler

from collabsim.kolab.instances import InstanceSet
from collabsim.kolab.predictors.features import feature_table
from collabsim.kolab.predictors.text import (
    _MIN_DF,
    TextColumn,
    char_counts,
    lsa_components,
    row_products,
    text_block,
)


def _refit_tfidf(docs: list[str], fit_rows: np.ndarray) -> sparse.csr_matrix | None:
    """A training set's TF-IDF the plain way: count, keep the n-grams in at least _MIN_DF
    training documents, fit TfidfTransformer on the training rows, transform every row."""
    counts = char_counts(docs)
    train = counts[fit_rows]
    keep = np.flatnonzero(np.asarray((train > 0).sum(axis=0)).ravel() >= _MIN_DF)
    if keep.size < 2:
        return None
    tfidf = TfidfTransformer(sublinear_tf=True).fit(train[:, keep])
    return sparse.csr_matrix(tfidf.transform(counts[:, keep]))


def _assert_same_matrix(got: sparse.csr_matrix | None, want: sparse.csr_matrix | None) -> None:
    assert (got is None) == (want is None)
    if got is None or want is None:
        return
    assert got.shape == want.shape
    # the same stored entries in the same order, bit for bit
    assert np.array_equal(got.indptr, want.indptr)
    assert np.array_equal(got.indices, want.indices)
    assert np.array_equal(got.data, want.data)


def test_tfidf_of_a_training_set_equals_a_refit_on_a_small_corpus() -> None:
    docs = [
        "the model adopts the plan",
        "the plan is rejected",
        "modify the plan slightly",
        "an unrelated remark",
        "the model rejects",
        "plan plan plan",
    ]
    column = TextColumn.of(docs)
    # training sets in which some n-grams fall below _MIN_DF (kept over all six documents,
    # dropped in the fold) and the idf changes with the training size
    for fit_rows in ([0, 1, 2, 3], [1, 3, 5], [0, 2, 4, 5], [0, 1, 2, 3, 4, 5], [2, 3]):
        rows = np.asarray(fit_rows)
        _assert_same_matrix(column.tfidf(rows), _refit_tfidf(docs, rows))


def test_a_fold_without_two_shared_ngrams_has_no_tfidf() -> None:
    column = TextColumn.of(["abc", "abc", "xyz", "", ""])
    assert column.tfidf(np.array([2, 3, 4])) is None
    assert column.tfidf(np.array([0, 1, 2])) is not None


@pytest.mark.parametrize("col", ["output", "request", "response"])
def test_fold_tfidf_and_lsa_equal_a_refit_per_training_set(
    explorer_instances: InstanceSet, col: str
) -> None:
    inst = explorer_instances.by_task("1a")
    docs = feature_table(inst).texts[col]
    column = TextColumn.of(docs)
    groups = np.array([i.participant_id for i in inst])
    folds = list(LeaveOneGroupOut().split(np.zeros(len(inst)), None, groups))
    for train, _ in folds[::4]:
        want = _refit_tfidf(docs, train)
        _assert_same_matrix(column.tfidf(train), want)
        assert want is not None
        # the LSA's document products skip scipy's counting pass: the same numbers
        public = (want @ want[train].T).toarray()
        assert np.array_equal(row_products(want, want[train]), public)
        # the scaled LSA block the learned predictor uses: also identical
        comps = lsa_components(want, train, 32)
        refit = StandardScaler().fit(comps[train]).transform(comps)
        block = text_block(column, train, 32)
        assert block is not None
        assert np.array_equal(block, refit)
