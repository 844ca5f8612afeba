"""Similarity values of a candidate pair, computed once per run for the evidence model.

The rankers decide *which* pairs are candidates, by rank only (requirement 20). The review
queue then needs to know *how* alike a candidate is, which a rank cannot say: the rank-1 pair of
a query with no duplicate is not alike at all. Three values, each a feature (never a label):

- ``similarity.dense_cosine``: cosine of the two records' vectors in the run's embedding space,
  read from the dense ranker's own index (no second copy of the vectors);
- ``similarity.objective_idf_overlap``: the share of the query objective's inverse document
  frequency (Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))`` over the lexical index's corpus)
  that the candidate's objective shares; titles carry the intent, and a rare shared word
  ("ITUseHadoopCodecs", "commons-text") weighs more than a common one ("fix", "hadoop");
- ``similarity.objective_cosine``: cosine of the two objectives embedded alone, by an injected
  embedder (MiniLM reads the whole record through a 256-piece window; the title alone is a
  sharper signal of the same required output).

Each is ``unknown`` when a record does not declare what it needs and ``unavailable`` with the
reason when the ranker or embedder cannot answer: never a zero standing in for "not measured".
Chosen on GitBugs hadoop (development) only; docs/EVALUATION.md has the variants.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.features import Feature
from proximity.engine.overlap.lexical import identifier_tokens
from proximity.engine.overlap.records import TaskRecord

__all__ = [
    "SIMILARITY_FEATURES",
    "ObjectiveEmbedder",
    "PairCosines",
    "TermWeights",
    "objective_idf_overlap",
    "objective_terms",
    "similarity_features",
]

SIMILARITY_FEATURES = (
    "similarity.dense_cosine",
    "similarity.objective_idf_overlap",
    "similarity.objective_cosine",
)

#: The objectives of these records embedded alone, one unit row per record in order; raises
#: when it cannot. A service reads them stored beside each version's vector.
ObjectiveEmbedder = Callable[[Sequence[TaskRecord]], NDArray[np.float32]]


@runtime_checkable
class TermWeights(Protocol):
    """A lexical ranker that can say each term's IDF over the corpus it ranks."""

    def idf(self, terms: Sequence[str]) -> Mapping[str, float]: ...


@runtime_checkable
class PairCosines(Protocol):
    """A dense ranker that can say the query's cosine with given snapshot rows (None: no vector
    in the space); it raises when the query itself has no vector."""

    def cosines(self, query: TaskRecord, rows: Sequence[int]) -> list[float | None]: ...


def objective_terms(record: TaskRecord) -> list[str]:
    """The distinct identifier-aware tokens of a record's objective, first seen first."""
    return list(dict.fromkeys(identifier_tokens(record.objective or "")))


def objective_idf_overlap(
    query: Sequence[str], candidate: Sequence[str], idf: Mapping[str, float]
) -> float | None:
    """Share of the query terms' IDF mass that the candidate's terms hold: in [0, 1].

    A term missing from ``idf`` weighs 0 (the rankers' ``idf`` names every term asked, with
    ``df`` 0, the rarest weight, for one the corpus does not hold); ``None`` when the query has
    no term to weigh.

    >>> objective_idf_overlap(["a", "b"], ["b"], {"a": 1.0, "b": 3.0})
    0.75
    """
    total = math.fsum(idf.get(t, 0.0) for t in query)
    if not query or total <= 0:
        return None
    shared = set(candidate)
    return math.fsum(idf.get(t, 0.0) for t in query if t in shared) / total


def _unavailable(name: str, reason: str, n: int) -> list[Feature]:
    return [Feature(name, "unavailable", None, reason[:300])] * n


def _dense(query: TaskRecord, rows: Sequence[int], dense: object) -> list[Feature]:
    name = SIMILARITY_FEATURES[0]
    if not isinstance(dense, PairCosines):
        return _unavailable(name, "the dense ranker cannot compare pairs", len(rows))
    try:
        values = dense.cosines(query, rows)
    except Exception as exc:  # the run goes on: a feature is unavailable, never the run
        return _unavailable(name, f"{type(exc).__name__}: {exc}", len(rows))
    return [
        Feature(name, "unknown", None, "no vector in the query's space")
        if v is None
        else Feature(name, "value", float(v))
        for v in values
    ]


def _idf(query: TaskRecord, cands: Sequence[TaskRecord], lexical: object) -> list[Feature]:
    name = SIMILARITY_FEATURES[1]
    if not isinstance(lexical, TermWeights):
        return _unavailable(name, "the lexical ranker cannot weigh terms", len(cands))
    terms = objective_terms(query)
    try:
        weights = lexical.idf(terms)
    except Exception as exc:
        return _unavailable(name, f"{type(exc).__name__}: {exc}", len(cands))
    out = []
    for cand in cands:
        value = objective_idf_overlap(terms, objective_terms(cand), weights)
        if cand.objective is None or query.objective is None or value is None:
            out.append(Feature(name, "unknown", None, "objective without a weighable term"))
        else:
            out.append(Feature(name, "value", value))
    return out


def _objective(
    query: TaskRecord, cands: Sequence[TaskRecord], embed: ObjectiveEmbedder | None
) -> list[Feature]:
    name = SIMILARITY_FEATURES[2]
    if embed is None:
        return _unavailable(name, "no objective embedder configured", len(cands))
    declared = [c for c in cands if c.objective]
    if not query.objective or not declared:
        return [Feature(name, "unknown", None, "objective not declared by both")] * len(cands)
    try:
        matrix = np.asarray(embed([query, *declared]))
        if matrix.shape[0] != len(declared) + 1 or not np.isfinite(matrix).all():
            raise ValueError(f"{matrix.shape[0]} finite vectors for {len(declared) + 1} records")
    except Exception as exc:
        return _unavailable(name, f"{type(exc).__name__}: {exc}", len(cands))
    cosines = iter((matrix[1:] @ matrix[0]).tolist())  # in the order of ``declared``
    unknown = Feature(name, "unknown", None, "objective not declared by both")
    return [Feature(name, "value", next(cosines)) if c.objective else unknown for c in cands]


def similarity_features(
    query: TaskRecord,
    cands: Sequence[TaskRecord],
    rows: Sequence[int],
    *,
    lexical: Any,
    dense: Any,
    objective_embedder: ObjectiveEmbedder | None,
) -> list[tuple[Feature, ...]]:
    """The three similarity features of each candidate (``rows`` are their snapshot rows).

    Parameters
    ----------
    lexical, dense : the run's rankers; used only if they implement ``TermWeights`` /
        ``PairCosines``, else the feature is ``unavailable`` with the reason.
    objective_embedder : the objectives' vectors (query first) in one call, or None.
    """
    columns = (
        _dense(query, rows, dense),
        _idf(query, cands, lexical),
        _objective(query, cands, objective_embedder),
    )
    return [tuple(fs) for fs in zip(*columns, strict=True)] if cands else []
