"""Exact cosine retrieval over L2-normalised float32 vectors of one snapshot.

Cosine of unit vectors is their dot product, so one pass of row dot products scores every row and
``argpartition`` selects the top ``depth`` in linear time; no approximate index, so no recall loss
to account for. Rows without a vector (``has_vector`` false) are never scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.rankers import RankerResult, top_by_score
from proximity.engine.overlap.records import TaskRecord
from proximity.engine.overlap.snapshot import Eligible, PoolSnapshot

__all__ = ["DenseIndex", "DenseRanker", "cosine_scores", "cosine_top_reference"]


class DenseIndex:
    """Unit vectors aligned with snapshot rows, in one embedding space."""

    def __init__(
        self,
        snapshot_id: str,
        space_id: str,
        matrix: NDArray[np.float32],
        has_vector: NDArray[np.bool_],
    ) -> None:
        self.snapshot_id = snapshot_id
        self.space_id = space_id
        self.matrix = matrix
        self.has_vector = has_vector
        self.index_id = f"dense-exact-cosine:{space_id}@{snapshot_id}"

    @classmethod
    def build(
        cls,
        snapshot: PoolSnapshot,
        vectors: Sequence[NDArray[np.float32] | None],
        *,
        space_id: str,
        atol: float = 1e-3,
    ) -> DenseIndex:
        """Stack one vector per snapshot row (``None`` where a row has none in this space).

        Raises ``ValueError`` naming the row when a vector is not float32, not unit length within
        ``atol``, of the wrong dimension, or belongs to a record of another space.
        """
        if len(vectors) != len(snapshot):
            raise ValueError(f"vectors: expected {len(snapshot)} rows, got {len(vectors)}")
        dims = {v.shape for v in vectors if v is not None}
        if len(dims) > 1:
            raise ValueError(f"vectors: mixed shapes {sorted(dims)}")
        dim = dims.pop()[0] if dims else 1
        matrix = np.zeros((len(vectors), dim), dtype=np.float32)
        has = np.zeros(len(vectors), dtype=np.bool_)
        for row, vector in enumerate(vectors):
            if vector is None:
                continue
            _check_vector(row, vector, atol)
            if snapshot.records[row].space_id != space_id:
                raise ValueError(f"vectors[{row}]: record space differs from {space_id}")
            matrix[row], has[row] = vector, True
        return cls(snapshot.snapshot_id, space_id, matrix, has)

    def retrieve(
        self, query: NDArray[np.float32], mask: NDArray[np.bool_], *, depth: int
    ) -> tuple[int, ...]:
        """Rows inside ``mask`` with a vector, by descending cosine, at most ``depth``."""
        scores = cosine_scores(self.matrix, query)
        return top_by_score(scores, np.flatnonzero(mask & self.has_vector), depth)


def cosine_scores(matrix: NDArray[np.float32], query: NDArray[np.float32]) -> NDArray[np.float32]:
    """The dot product of every row of ``matrix`` with ``query`` (the cosine of unit vectors).

    One dot product per row (``numpy.vecdot``), so a row's score depends on that row alone:
    equal rows score equal and a row scores the same in any matrix. A BLAS matrix-vector
    product does not promise that (it blocks rows by their count, so the last bit of a sum
    changes with the matrix), which would let ties between duplicates fall either way.
    """
    scores: NDArray[np.float32] = np.vecdot(matrix, query)
    return scores


def _check_vector(row: int, vector: NDArray[np.float32], atol: float) -> None:
    if vector.dtype != np.float32 or vector.ndim != 1:
        raise ValueError(f"vectors[{row}]: expected a 1-D float32 vector, got {vector.dtype}")
    norm = float(np.linalg.norm(vector))
    if abs(norm - 1.0) > atol:
        raise ValueError(f"vectors[{row}]: not L2-normalised (norm {norm:.4f})")


@dataclass(frozen=True, slots=True)
class DenseRanker:
    """The dense ranker: exact cosine in the query's own space, over one snapshot's index.

    The query vector is ``query_vector`` when given (a freshly embedded record), else the indexed
    vector of the query's own row; a query without a vector in this space is an outage.
    """

    index: DenseIndex
    snapshot: PoolSnapshot
    query_vector: NDArray[np.float32] | None = None

    def __call__(self, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult:
        if eligible.snapshot_id != self.index.snapshot_id:
            return RankerResult(False, reason="dense-index-snapshot-mismatch")
        if query.space_id != self.index.space_id:
            return RankerResult(False, reason="dense-query-space-not-indexed")
        vector = self._query_vector(query)
        if vector is None:
            return RankerResult(False, reason="dense-query-vector-missing")
        rows = self.index.retrieve(vector, eligible.mask, depth=depth)
        return RankerResult(True, rows, None, self.index.index_id)

    def cosines(self, query: TaskRecord, rows: Sequence[int]) -> list[float | None]:
        """Cosine of the query's vector with each snapshot row's (None: the row has none)."""
        vector = self._query_vector(query) if query.space_id == self.index.space_id else None
        if vector is None:
            raise ValueError("the query has no vector in the index's space")
        at = np.asarray(rows, dtype=np.intp)
        values = cosine_scores(self.index.matrix[at], vector)
        has = self.index.has_vector[at]
        return [float(v) if h else None for v, h in zip(values, has, strict=True)]

    def _query_vector(self, query: TaskRecord) -> NDArray[np.float32] | None:
        if self.query_vector is not None:
            return self.query_vector
        row = self.snapshot.row(query.ref)
        if row is None or not self.index.has_vector[row]:
            return None
        vector: NDArray[np.float32] = self.index.matrix[row]
        return vector


def cosine_top_reference(
    query: Sequence[float], vectors: Sequence[Sequence[float] | None], *, depth: int
) -> list[int]:
    """Brute-force loop: cosine of every vector, sorted; the baseline in bench/overlap.py."""
    scored: list[tuple[float, int]] = []
    for row, vector in enumerate(vectors):
        if vector is None:
            continue
        dot = sum(a * b for a, b in zip(query, vector, strict=True))
        norms = sum(a * a for a in query) ** 0.5 * sum(b * b for b in vector) ** 0.5
        scored.append((-(dot / norms), row))
    return [row for _, row in sorted(scored)[:depth]]
