"""Offline retrieval-quality evaluation: lexical, dense, RRF and a convex score mixture.

Each duplicate query retrieves only among records created strictly before it (no look-ahead);
the lexical index is rebuilt on that prefix so corpus statistics come from the past only.
The convex mixture (Bruch et al. 2023) is measured for comparison; the shipped pipeline uses RRF.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.recall_rate import DuplicateQuery, RecallRate, recall_rate_at_k
from proximity.engine.overlap.fusion import convex_combination, reciprocal_rank_fusion
from proximity.engine.overlap.lexical import document_tokens
from proximity.engine.overlap.policy import OverlapPolicy
from proximity.engine.overlap.rankers import top_by_score
from proximity.engine.overlap.records import TaskRecord

__all__ = [
    "CONVEX_ALPHA",
    "METHODS",
    "RetrievalEvaluation",
    "as_json_methods",
    "bm25_prefix_scores",
    "evaluate_retrieval",
    "method_rankings",
    "query_scores",
    "tune_on_development",
]

METHODS = ("lexical", "dense", "rrf", "convex")
#: Lexical weight of the convex mixture: locally selected on GitBugs hadoop (development) with
#: ``evaluate_overlap --tune`` (best mean recall-rate over k in 1, 5, 10, 20; docs/EVALUATION.md).
CONVEX_ALPHA = 0.3
_K_GRID = (5, 10, 20, 30, 60, 100)
_ALPHA_GRID = tuple(round(0.1 * i, 1) for i in range(11))


@dataclass(frozen=True, slots=True)
class RetrievalEvaluation:
    """Recall-rate per method; a method whose inputs are unavailable carries the reason."""

    queries: int
    results: tuple[tuple[str, RecallRate | None, str | None], ...]


def bm25_prefix_scores(tokens: Sequence[list[str]], query: list[str]) -> NDArray[np.float32]:
    """Lucene BM25 of each document in ``tokens`` for ``query``'s distinct terms, with corpus
    statistics from those documents only (a query's strictly earlier prefix)."""
    retriever = bm25s.BM25(method="lucene")
    retriever.index(list(tokens), show_progress=False)
    ids = retriever.get_tokens_ids(list(dict.fromkeys(query)))
    if not ids:
        return np.zeros(len(tokens), dtype=np.float32)
    return np.asarray(retriever.get_scores_from_ids(ids), dtype=np.float32)


@dataclass(frozen=True, slots=True)
class _QueryScores:
    """Scores of one query against the records created before it (computed once, reused)."""

    query_id: str
    earlier: NDArray[np.intp]
    lexical: NDArray[np.float32]
    dense: NDArray[np.float32] | None


def _ranked(
    scores: NDArray[np.floating[Any]], qs: _QueryScores, depth: int, *, positive: bool
) -> list[int]:
    local = np.arange(qs.earlier.size)
    rows = local[scores > 0] if positive else local
    return [int(qs.earlier[i]) for i in top_by_score(scores, rows, depth)]


def _lists(
    qs: _QueryScores, *, policy: OverlapPolicy, alpha: float, depth: int
) -> dict[str, list[int]]:
    lists = {"lexical": _ranked(qs.lexical, qs, depth, positive=True)}
    if qs.dense is None:
        return lists
    lists["dense"] = _ranked(qs.dense, qs, depth, positive=False)
    fused = reciprocal_rank_fusion(
        {"dense": lists["dense"][: policy.depth], "lexical": lists["lexical"][: policy.depth]},
        k=policy.rrf_k,
    )
    lists["rrf"] = [c.row for c in fused][:depth]
    mixed = convex_combination(qs.lexical, qs.dense, alpha=alpha)
    lists["convex"] = _ranked(mixed, qs, depth, positive=False)
    return lists


def query_scores(
    records: Sequence[TaskRecord],
    created: Sequence[float],
    queries: Sequence[DuplicateQuery],
    vectors: NDArray[np.float32] | None,
    *,
    fields: Sequence[str],
    prep: str = "words-v1",
) -> tuple[_QueryScores, ...]:
    """Lexical and cosine scores of each query over its strictly earlier records."""
    row_of = {r.task_id: i for i, r in enumerate(records)}
    tokens = [document_tokens(r, fields, prep) for r in records]
    times = np.asarray(created, dtype=np.float64)
    out = []
    for q in queries:
        row = row_of[q.query_id]
        earlier = np.flatnonzero(times < times[row])
        lexical = bm25_prefix_scores([tokens[i] for i in earlier], tokens[row])
        dense = None if vectors is None else vectors[earlier] @ vectors[row]
        out.append(_QueryScores(q.query_id, earlier, lexical, dense))
    return tuple(out)


def method_rankings(
    scores: Sequence[_QueryScores],
    ids: Sequence[str],
    *,
    policy: OverlapPolicy,
    alpha: float = 0.5,
    depth: int = 20,
) -> dict[str, dict[str, list[str]]]:
    """Ranked record ids per method per query id."""
    out: dict[str, dict[str, list[str]]] = {}
    for qs in scores:
        for method, rows in _lists(qs, policy=policy, alpha=alpha, depth=depth).items():
            out.setdefault(method, {})[qs.query_id] = [ids[i] for i in rows]
    return out


def evaluate_retrieval(
    records: Sequence[TaskRecord],
    created: Sequence[float],
    queries: Sequence[DuplicateQuery],
    vectors: NDArray[np.float32] | None,
    *,
    policy: OverlapPolicy,
    alpha: float = 0.5,
    ks: Sequence[int] = (1, 5, 10, 20),
    dense_reason: str | None = None,
) -> RetrievalEvaluation:
    """Recall-rate@k of every method in ``METHODS``.

    Parameters
    ----------
    records, created : sequences aligned by position
        Declared tasks (one per report) and their creation times.
    queries : sequence of DuplicateQuery
        From ``recall_rate.duplicate_queries``.
    vectors : ndarray or None
        Unit vectors aligned with ``records``; ``None`` marks dense retrieval unavailable, and
        the dense, RRF and convex results then carry ``dense_reason`` instead of a figure.
    alpha : float, default 0.5
        Lexical weight of the convex mixture.
    """
    scores = query_scores(
        records, created, queries, vectors, fields=policy.fields_indexed, prep=policy.text_prep
    )
    ids = [r.task_id for r in records]
    rankings = method_rankings(scores, ids, policy=policy, alpha=alpha, depth=max(ks))
    results = tuple(
        (m, recall_rate_at_k(rankings[m], queries, ks=ks), None)
        if m in rankings
        else (m, None, dense_reason or "dense retrieval unavailable")
        for m in METHODS
    )
    return RetrievalEvaluation(len(queries), results)


def as_json_methods(evaluation: RetrievalEvaluation) -> dict[str, Mapping[str, object]]:
    """The ``methods`` object of the evaluation command's JSON output."""
    out: dict[str, Mapping[str, object]] = {}
    for method, rate, reason in evaluation.results:
        if rate is None:
            out[method] = {"unavailable": reason}
        else:
            out[method] = rate.as_dict()
    return out


def _objective(rate: RecallRate) -> float:
    return sum(rate.rates) / len(rate.rates)


def tune_on_development(
    records: Sequence[TaskRecord],
    created: Sequence[float],
    queries: Sequence[DuplicateQuery],
    vectors: NDArray[np.float32] | None,
    *,
    policy: OverlapPolicy,
    ks: Sequence[int] = (1, 5, 10, 20),
) -> dict[str, object]:
    """Grid search of the RRF k and the convex alpha by mean recall-rate over ``ks``.

    For development data only: the evaluation command refuses to call it on a holdout folder.
    """
    if vectors is None:
        raise ValueError("vectors: tuning fusion needs the dense ranker")
    scores = query_scores(
        records, created, queries, vectors, fields=policy.fields_indexed, prep=policy.text_prep
    )
    ids = [r.task_id for r in records]
    depth = max(ks)
    by_k = {}
    for k in _K_GRID:
        tuned = dataclasses.replace(policy, rrf_k=k)
        ranked = method_rankings(scores, ids, policy=tuned, depth=depth)["rrf"]
        by_k[k] = recall_rate_at_k(ranked, queries, ks=ks)
    by_alpha = {}
    for alpha in _ALPHA_GRID:
        ranked = method_rankings(scores, ids, policy=policy, alpha=alpha, depth=depth)["convex"]
        by_alpha[alpha] = recall_rate_at_k(ranked, queries, ks=ks)
    best_k = max(_K_GRID, key=lambda k: (_objective(by_k[k]), -abs(k - policy.rrf_k)))
    best_alpha = max(_ALPHA_GRID, key=lambda a: (_objective(by_alpha[a]), -abs(a - 0.5)))
    return {
        "queries": len(queries),
        "objective": f"mean recall-rate over k in {list(ks)}",
        "rrf_k": {str(k): r.as_dict() for k, r in by_k.items()},
        "convex_alpha": {str(a): r.as_dict() for a, r in by_alpha.items()},
        "best_rrf_k": best_k,
        "best_convex_alpha": best_alpha,
    }
