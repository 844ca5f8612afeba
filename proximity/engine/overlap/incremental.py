"""Incremental lexical and dense indexes over a :class:`LivePool`'s rows, and their rankers.

:class:`BM25Postings` is an inverted index that grows by documents. Its statistics are not
fitted once: ``N``, document frequencies and the average length are taken per run over the
run's own corpus (the rows of its snapshot), so its scores equal those of a fresh
:class:`BM25Index` built on that snapshot, bit for bit: the same Lucene BM25 as bm25s
(Kamphuis et al., ECIR 2020; ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` rounded to float32,
``tf / (tf + k1 * (1 - b + b * dl / avgdl))`` in float64, each document-term score rounded to
float32 and summed in float32 in query-term order, as bm25s 0.3 does).

:class:`DenseRows` is a matrix of unit vectors with row append and a has-vector mask, for one
embedding space. Scoring all its rows costs what scoring the snapshot's rows would, and a row's
score depends on that row alone (``dense.cosine_scores``), so dense scores equal those of a
:class:`DenseIndex` built on the snapshot, bit for bit, ties included.

The rankers take a run's snapshot rows (``rows[i]`` is the pool row of snapshot row ``i``) and
rank only ``eligible`` snapshot rows, like :class:`BM25Ranker` and :class:`DenseRanker`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.dense import _check_vector, cosine_scores
from proximity.engine.overlap.lexical import lucene_idf, query_tokens, top_rows
from proximity.engine.overlap.live import Column
from proximity.engine.overlap.rankers import RankerResult, top_by_score
from proximity.engine.overlap.records import TaskRecord
from proximity.engine.overlap.snapshot import Eligible, PoolSnapshot

__all__ = ["BM25Postings", "DenseRows", "DenseRowsRanker", "PostingsRanker"]


class BM25Postings:
    """Term -> (rows, term frequencies), growing by documents; rows are pool rows."""

    def __init__(self, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._vocab: dict[str, int] = {}
        self._rows: list[NDArray[np.int64]] = []
        self._tfs: list[NDArray[np.float32]] = []
        self._counts: list[int] = []
        self._lengths = Column(np.int64)

    def __len__(self) -> int:
        return self._lengths.size

    def add(self, row: int, tokens: Sequence[str]) -> None:
        """Index the document of pool row ``row``; rows are added in order, each once."""
        if row != self._lengths.size:
            raise ValueError(f"documents are added in row order: expected {self._lengths.size}")
        self._lengths.append(len(tokens))
        for term, tf in Counter(tokens).items():
            self._post(self._vocab.setdefault(term, len(self._vocab)), row, tf)

    def _post(self, term: int, row: int, tf: int) -> None:
        if term == len(self._rows):
            self._rows.append(np.empty(4, dtype=np.int64))
            self._tfs.append(np.empty(4, dtype=np.float32))
            self._counts.append(0)
        n = self._counts[term]
        if n == self._rows[term].size:  # full: double (amortised O(1) per posting)
            self._rows[term] = np.concatenate([self._rows[term], np.empty(n, dtype=np.int64)])
            self._tfs[term] = np.concatenate([self._tfs[term], np.empty(n, dtype=np.float32)])
        self._rows[term][n], self._tfs[term][n] = row, tf
        self._counts[term] = n + 1

    def scores(self, terms: Sequence[str], corpus: NDArray[np.intp]) -> NDArray[np.float32]:
        """Lucene BM25 of every pool row for ``terms`` (distinct, in query order), with the
        statistics of the documents ``corpus``; rows outside it score zero."""
        out = np.zeros(self._lengths.size, dtype=np.float32)
        out[corpus] = self.corpus_scores(terms, corpus)
        return out

    def corpus_scores(
        self,
        terms: Sequence[str],
        corpus: NDArray[np.intp],
        position: NDArray[np.intp] | None = None,
    ) -> NDArray[np.float32]:
        """``scores(terms, corpus)[corpus]``, computed over the corpus alone: ``position`` maps
        a pool row to its place in ``corpus`` (-1 outside; built here when not given), so
        nothing of pool size is allocated per term, and nothing at all when no term is known."""
        out = np.zeros(corpus.size, dtype=np.float32)
        known = [t for t in map(self._vocab.get, terms) if t is not None]
        if corpus.size == 0 or not known:
            return out
        if position is None or position.size < self._lengths.size:
            position = np.full(self._lengths.size, -1, dtype=np.intp)
            position[corpus] = np.arange(corpus.size)
        lengths, n_docs = self._lengths.view, int(corpus.size)
        avgdl = lengths[corpus].mean()  # float64; integer sums are exact, so order is moot
        k1, b = self.k1, self.b
        for t in known:
            rows, tf = self._rows[t][: self._counts[t]], self._tfs[t][: self._counts[t]]
            at = position[rows]
            keep = at >= 0
            rows, tf, at = rows[keep], tf[keep], at[keep]
            df = int(at.size)
            if df == 0:
                continue
            idf = np.float32(lucene_idf(df, n_docs))
            tfc = tf / (k1 * ((1 - b) + b * lengths[rows] / avgdl) + tf)
            out[at] += (idf * tfc).astype(np.float32)
        return out

    def document_frequencies(
        self, terms: Sequence[str], corpus: NDArray[np.intp], position: NDArray[np.intp]
    ) -> dict[str, int]:
        """How many documents of ``corpus`` hold each term (``position`` as in
        ``corpus_scores``: a pool row's place in the corpus, -1 outside)."""
        out = {}
        for term in terms:
            t = self._vocab.get(term)
            rows = () if t is None else self._rows[t][: self._counts[t]]
            out[term] = int((position[rows] >= 0).sum()) if len(rows) else 0
        return out


def bm25_postings_index_id(
    k1: float, b: float, fields: Sequence[str], snapshot_id: str, prep: str = "words-v1"
) -> str:
    tag = "" if prep == "words-v1" else f":{prep}"
    return f"bm25-postings-lucene:k1={k1}:b={b}:{','.join(fields)}{tag}@{snapshot_id}"


@dataclass(frozen=True, slots=True)
class PostingsRanker:
    """The lexical ranker over a run's snapshot rows, scored by :class:`BM25Postings`."""

    postings: BM25Postings
    rows: NDArray[np.intp]
    snapshot_id: str
    fields: tuple[str, ...]
    prep: str = "words-v1"  # must be the preparation the postings were added with
    #: pool row -> snapshot row (-1 outside), shared by a run's rankers; built when None
    position: NDArray[np.intp] | None = None

    def __call__(self, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult:
        if eligible.snapshot_id != self.snapshot_id:
            return RankerResult(False, reason="lexical-index-snapshot-mismatch")
        terms = query_tokens(query, self.fields, self.prep)
        scores = self.postings.corpus_scores(terms, self.rows, self.position)
        index_id = bm25_postings_index_id(
            self.postings.k1, self.postings.b, self.fields, self.snapshot_id, self.prep
        )
        return RankerResult(True, top_rows(scores, eligible.mask, depth), None, index_id)

    def idf(self, terms: Sequence[str]) -> dict[str, float]:
        """Lucene IDF of each term over the run's rows (as a rebuilt ``BM25Index`` has it)."""
        position = self.position
        if position is None or position.size < len(self.postings):
            position = np.full(len(self.postings), -1, dtype=np.intp)
            position[self.rows] = np.arange(self.rows.size)
        df = self.postings.document_frequencies(terms, self.rows, position)
        return {t: lucene_idf(df[t], int(self.rows.size)) for t in terms}


class DenseRows:
    """Unit float32 vectors of one embedding space, one per pool row (or none).

    A vector that is not a unit float32 vector of the index's dimension is kept out and its
    row marked bad with the reason: a run whose pool holds a bad row has no dense ranker, as a
    rebuilt :class:`DenseIndex` would refuse to build.
    """

    def __init__(self, space_id: str, *, atol: float = 1e-3) -> None:
        self.space_id = space_id
        self.atol = atol
        self._matrix: Column | None = None
        self._has = Column(np.bool_, fill=False)
        self.bad: dict[int, str] = {}

    @property
    def has_vector(self) -> NDArray[np.bool_]:
        return self._has.view

    def grow(self, size: int) -> None:
        """Make room for pool rows up to ``size`` (new rows have no vector)."""
        for column in (self._has, self._matrix):
            if column is not None:
                column.resize(size)

    def set(self, row: int, vector: NDArray[np.float32] | None) -> None:
        """Give pool row ``row`` its vector (``None``: it has none in this space)."""
        self.grow(row + 1)
        self.bad.pop(row, None)
        self._has[row] = False
        if vector is None:
            return
        try:
            _check_vector(row, vector, self.atol)
            if self._matrix is not None and vector.shape[0] != self._matrix.view.shape[1]:
                raise ValueError(f"vectors[{row}]: mixed shapes {vector.shape}")
        except ValueError as exc:
            self.bad[row] = f"ValueError: {exc}"
            return
        if self._matrix is None:
            self._matrix = Column(np.float32, width=vector.shape[0])
            self._matrix.resize(self._has.size)
        self._matrix[row], self._has[row] = vector, True

    def vector(self, row: int) -> NDArray[np.float32] | None:
        if self._matrix is None or row >= self._has.size or not self._has.view[row]:
            return None
        vector: NDArray[np.float32] = self._matrix.view[row]
        return vector

    def scores(self, query: NDArray[np.float32]) -> NDArray[np.float32]:
        """Cosine of every pool row with ``query`` (rows without a vector score 0)."""
        if self._matrix is None:
            return np.zeros(self._has.size, dtype=np.float32)
        return cosine_scores(self._matrix.view, query)

    def scores_of(self, query: NDArray[np.float32], rows: NDArray[np.intp]) -> NDArray[np.float32]:
        """``scores(query)[rows]`` for a few rows, gathered (no span of the pool is scored)."""
        if self._matrix is None or rows.size == 0:
            return np.zeros(rows.size, dtype=np.float32)
        return cosine_scores(self._matrix.view[rows], query)

    def scores_at(self, query: NDArray[np.float32], rows: NDArray[np.intp]) -> NDArray[np.float32]:
        """``scores(query)[rows]``, scoring only the span of pool rows that ``rows`` covers (a
        row's cosine does not depend on the others: ``dense.cosine_scores``)."""
        if self._matrix is None or rows.size == 0:
            return np.zeros(rows.size, dtype=np.float32)
        low, high = int(rows.min()), int(rows.max()) + 1
        return cosine_scores(self._matrix.view[low:high], query)[rows - low]


@dataclass(frozen=True, slots=True)
class DenseRowsRanker:
    """The dense ranker over a run's snapshot rows: exact cosine in the query's own space.

    Unavailable, with the reason, when a snapshot row holds a bad vector, when the query is in
    another space or when the query has no vector (the :class:`DenseRanker` rules).
    """

    store: DenseRows
    rows: NDArray[np.intp]
    snapshot: PoolSnapshot

    def __call__(self, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult:
        if eligible.snapshot_id != self.snapshot.snapshot_id:
            return RankerResult(False, reason="dense-index-snapshot-mismatch")
        if self.store.bad:  # rare: compare the few bad rows with the snapshot's
            bad = np.fromiter(self.store.bad, dtype=np.intp)
            hit = np.sort(bad[np.isin(bad, self.rows)])
            if hit.size:
                reason = self.store.bad[int(hit[0])]
                return RankerResult(False, reason=f"dense-index-build-failed: {reason}")
        if query.space_id != self.store.space_id:
            return RankerResult(False, reason="dense-query-space-not-indexed")
        row = self.snapshot.row(query.ref)
        vector = None if row is None else self.store.vector(int(self.rows[row]))
        if vector is None:
            return RankerResult(False, reason="dense-query-vector-missing")
        scores = self.store.scores_at(vector, self.rows)
        has = self.store.has_vector[self.rows]
        ranked = top_by_score(scores, np.flatnonzero(eligible.mask & has), depth)
        return RankerResult(True, ranked, None, self.index_id)

    def cosines(self, query: TaskRecord, rows: Sequence[int]) -> list[float | None]:
        """Cosine of the query's vector with each snapshot row's (None: the row has none)."""
        at = self.snapshot.row(query.ref)
        vector = None if at is None else self.store.vector(int(self.rows[at]))
        if vector is None or query.space_id != self.store.space_id:
            raise ValueError("the query has no vector in the index's space")
        pool = self.rows[np.asarray(rows, dtype=np.intp)]
        values = self.store.scores_of(vector, pool)
        has = self.store.has_vector[pool]
        return [float(v) if h else None for v, h in zip(values, has, strict=True)]

    @property
    def index_id(self) -> str:
        return f"dense-rows-exact-cosine:{self.store.space_id}@{self.snapshot.snapshot_id}"
