"""Text features of the learned Kolab predictors: character n-gram TF-IDF and LSA per fold.

Each text column's documents are hashed into character 2-5-gram counts once per task
(stateless: no vocabulary is learned). Everything fitted on documents is fitted on a
training set's rows only, once per training set:

* the vocabulary (n-grams in at least ``_MIN_DF`` training documents) and the idf weights
  of scikit-learn's ``TfidfTransformer(sublinear_tf=True)`` (smoothed idf, l2-normalised
  rows);
* the LSA (truncated SVD) of the training rows, which every row is projected on.

:class:`TextColumn` prepares what does not depend on the training set once: the sublinear
term frequencies ``1 + ln(count)`` of every document and the n-grams' document frequencies
over all rows. A training set's document frequencies are then the overall ones minus those
of the rows left out (few: one or two participants), its vocabulary a column subset, and
its TF-IDF matrix the same arithmetic ``TfidfTransformer`` does on the same numbers in the
same order, so it equals a refit exactly (``tests/kolab/test_text.py``) at a fraction of
the cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse import _sparsetools
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.preprocessing import StandardScaler, normalize

_HASH_FEATURES = 2**18
_MIN_DF = 2


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


@dataclass(frozen=True)
class TextColumn:
    """One text column's documents, prepared once for every training set.

    Attributes:
        tf: Sublinear term frequencies ``1 + ln(count)`` of every document (rows) for the
            n-grams in at least ``_MIN_DF`` documents overall (an n-gram in fewer is in
            fewer training documents of any fold, so no fold keeps it).
        df: Documents containing each of those n-grams, over all rows.
    """

    tf: sparse.csr_matrix
    df: np.ndarray

    @classmethod
    def of(cls, docs: Sequence[str]) -> TextColumn:
        """Hash ``docs`` and keep the n-grams that any training set could keep."""
        counts = char_counts(docs)
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        keep = np.flatnonzero(df >= _MIN_DF)
        tf = counts[:, keep].tocsr()
        # the same in-place log TfidfTransformer.transform applies to each fold's counts
        np.log(tf.data, out=tf.data)
        tf.data += 1.0
        return cls(tf, df[keep])

    def training_df(self, fit_rows: np.ndarray) -> np.ndarray:
        """Document frequency of each n-gram over ``fit_rows`` (exact counts)."""
        out = np.ones(self.tf.shape[0], dtype=bool)
        out[np.asarray(fit_rows)] = False
        left_out = self.tf[np.flatnonzero(out)]
        return self.df - np.bincount(left_out.indices, minlength=self.tf.shape[1])

    def tfidf(self, fit_rows: np.ndarray) -> sparse.csr_matrix | None:
        """TF-IDF of every document with the vocabulary and idf fitted on ``fit_rows``.

        Equals ``TfidfTransformer(sublinear_tf=True).fit(counts[fit_rows][:, keep])
        .transform(counts[:, keep])`` with ``keep`` the n-grams in at least ``_MIN_DF``
        training documents; None when fewer than two n-grams are kept (e.g. the response
        text outside 1a).
        """
        df = self.training_df(fit_rows)
        keep = np.flatnonzero(df >= _MIN_DF)
        if keep.size < 2:
            return None
        # TfidfTransformer.fit: smoothed idf, computed in the same steps
        idf = np.full(keep.size, float(len(fit_rows) + 1))
        idf /= df[keep].astype(float) + 1.0
        np.log(idf, out=idf)
        idf += 1.0
        # TfidfTransformer.transform: scale each entry by its n-gram's idf, then l2 rows
        docs = self.tf[:, keep]
        docs.data *= idf[docs.indices]
        return normalize(docs, norm="l2", copy=False)


def row_products(a: sparse.csr_matrix, b: sparse.csr_matrix) -> np.ndarray:
    """``(a @ b.T).toarray()``, the same numbers, without scipy's counting pass.

    scipy multiplies sparse matrices in two passes, the first only counting the result's
    entries. Between documents that share common n-grams the result is all but dense, so
    the result's cells are an upper bound known in advance: this calls the same
    multiplication kernel (the same sums in the same order) with room for every cell.
    Falls back to the public product if the kernel is not where this scipy keeps it.
    """
    b_t = sparse.csr_matrix(b.T)  # the transpose as CSR, as the public product builds it
    m, n = a.shape[0], b_t.shape[1]
    kernel = getattr(_sparsetools, "csr_matmat", None)
    cells = m * n
    if kernel is None or cells == 0 or max(cells, a.nnz, b_t.nnz) >= 2**31:
        return np.asarray((a @ b_t).toarray())
    idx = np.int32
    indptr = np.empty(m + 1, dtype=idx)
    indices = np.empty(cells, dtype=idx)
    data = np.empty(cells, dtype=np.result_type(a.dtype, b_t.dtype))
    kernel(m, n, a.indptr.astype(idx, copy=False), a.indices.astype(idx, copy=False), a.data,
           b_t.indptr.astype(idx, copy=False), b_t.indices.astype(idx, copy=False), b_t.data,
           indptr, indices, data)  # fmt: skip
    out = np.zeros((m, n), dtype=data.dtype)
    used = indptr[-1]
    out[np.repeat(np.arange(m), np.diff(indptr)), indices[:used]] = data[:used]
    return out


def lsa_components(docs: sparse.csr_matrix, fit_rows: np.ndarray, k: int) -> np.ndarray:
    """LSA of ``docs``: projections on the top-``k`` right singular vectors of the fit rows.

    With far fewer documents than n-grams, the SVD of the fit rows ``F`` comes exactly and
    cheaply from their Gram matrix: ``F F^T = U S^2 U^T`` and ``V = F^T U S^-1``, so a row
    ``x`` maps to ``x F^T U S^-1``. Only the fit rows shape ``U`` and ``S``; other rows are
    merely projected. Signs are fixed (largest loading positive) so results are
    deterministic; near-zero singular values are dropped.
    """
    products = row_products(docs, docs[fit_rows])  # every row against the fit rows
    eigvals, eigvecs = np.linalg.eigh(products[fit_rows])
    order = np.argsort(eigvals)[::-1][:k]
    eigvals, eigvecs = eigvals[order], eigvecs[:, order]
    good = eigvals > 1e-10 * max(float(eigvals[:1].max(initial=0.0)), 1e-300)
    eigvals, eigvecs = eigvals[good], eigvecs[:, good]
    signs = np.sign(eigvecs[np.argmax(np.abs(eigvecs), axis=0), np.arange(eigvecs.shape[1])])
    eigvecs = eigvecs * np.where(signs == 0, 1.0, signs)
    return (products @ eigvecs) / np.sqrt(eigvals)


def text_block(column: TextColumn, fit_rows: np.ndarray, k_max: int) -> np.ndarray | None:
    """TF-IDF, LSA and scaling of one text column fitted on ``fit_rows`` (None: no block)."""
    docs = column.tfidf(fit_rows)
    if docs is None:
        return None
    comps = lsa_components(docs, fit_rows, k_max)
    if comps.shape[1] == 0:
        return None
    scaler = StandardScaler().fit(comps[fit_rows])
    return scaler.transform(comps)


__all__ = ["TextColumn", "char_counts", "lsa_components", "text_block"]
