"""Recall-rate@k for duplicate-report retrieval.

Recall-rate@k (Runeson, Alexandersson and Nyholm, ICSE 2007; the standard measure of the GitBugs
paper, Patil 2025): over the reports that duplicate an earlier report, the fraction for which at
least one earlier member of the duplicate group is among the top ``k`` candidates retrieved from
the reports created before the query.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

__all__ = [
    "DuplicateQuery",
    "RecallRate",
    "duplicate_queries",
    "recall_rate_at_k",
    "recall_rate_at_k_reference",
]


@dataclass(frozen=True, slots=True)
class DuplicateQuery:
    """A report that duplicates at least one strictly earlier report of its group."""

    query_id: str
    relevant: frozenset[str]


@dataclass(frozen=True, slots=True)
class RecallRate:
    """Recall-rate at each ``k`` over ``queries`` duplicate queries."""

    ks: tuple[int, ...]
    rates: tuple[float, ...]
    hits: tuple[int, ...]
    queries: int

    def as_dict(self) -> dict[str, float]:
        return {f"recall@{k}": rate for k, rate in zip(self.ks, self.rates, strict=True)}


def duplicate_queries(
    created: Mapping[str, float], pairs: Iterable[tuple[str, str]]
) -> tuple[DuplicateQuery, ...]:
    """The evaluable queries: duplicate groups are connected components of the pair graph.

    Parameters
    ----------
    created : mapping of report id to creation time (any orderable number, e.g. epoch seconds)
    pairs : iterable of (id, id)
        Undirected duplicate links; ids absent from ``created`` are ignored.

    Returns
    -------
    tuple of DuplicateQuery
        One per report with a strictly earlier group member, ordered by creation time then id.
    """
    graph: nx.Graph[str] = nx.Graph()
    graph.add_edges_from((a, b) for a, b in pairs if a in created and b in created and a != b)
    queries = []
    for group in nx.connected_components(graph):
        for report in group:
            earlier = frozenset(o for o in group if created[o] < created[report])
            if earlier:
                queries.append(DuplicateQuery(report, earlier))
    return tuple(sorted(queries, key=lambda q: (created[q.query_id], q.query_id)))


def recall_rate_at_k(
    rankings: Mapping[str, Sequence[str]],
    queries: Sequence[DuplicateQuery],
    *,
    ks: Sequence[int] = (1, 5, 10, 20),
) -> RecallRate:
    """Fraction of ``queries`` whose top-``k`` ranking holds a relevant report, for each ``k``.

    A query missing from ``rankings`` counts as a miss (retrieved nothing), never as excluded.
    """
    if not queries:
        raise ValueError("queries: recall-rate needs at least one duplicate query")
    firsts = [_first_hit(rankings.get(q.query_id, ()), q.relevant) for q in queries]
    hits = tuple(sum(1 for f in firsts if f is not None and f < k) for k in ks)
    return RecallRate(tuple(ks), tuple(h / len(queries) for h in hits), hits, len(queries))


def _first_hit(ranking: Sequence[str], relevant: frozenset[str]) -> int | None:
    return next((i for i, item in enumerate(ranking) if item in relevant), None)


def recall_rate_at_k_reference(
    rankings: Mapping[str, Sequence[str]], queries: Sequence[DuplicateQuery], k: int
) -> float:
    """One-``k`` loop version, the obviously-correct baseline."""
    hit = 0
    for query in queries:
        top = list(rankings.get(query.query_id, ()))[:k]
        if any(item in query.relevant for item in top):
            hit += 1
    return hit / len(queries)
