"""Candidate-stage variants measured side by side: text preparation, field weight, embedding
input and the declared scope as a third ranked list.

Every variant runs the evaluation's one protocol (``retrieval_eval``): each duplicate query
retrieves only among records created strictly before it, BM25 statistics from that prefix, RRF
over lists of the policy's depth. A variant is data (how to tokenize a record, which vectors,
whether a scope list joins the fusion), so the table in docs/EVALUATION.md is one command's
output. Besides recall-rate@k, each variant reports the fused order's queue at a budget: how
often the first ``budget`` candidates hold the earlier duplicate, and their precision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import Stemmer
from numpy.typing import NDArray

from proximity.engine.evaluation.recall_rate import DuplicateQuery, recall_rate_at_k
from proximity.engine.overlap.evidence import declared_scope
from proximity.engine.overlap.fusion import reciprocal_rank_fusion
from proximity.engine.overlap.lexical import (
    case_parts,
    document_tokens,
    identifier_pieces,
    identifier_tokens,
    tokenize,
)
from proximity.engine.overlap.policy import OverlapPolicy
from proximity.engine.overlap.rankers import top_by_score
from proximity.engine.overlap.records import TaskRecord
from proximity.engine.overlap.retrieval_eval import bm25_prefix_scores

__all__ = ["TOKENIZERS", "Variant", "evaluate_variant", "initialisms", "scope_tokens"]

Tokenizer = Callable[[TaskRecord], list[str]]


def scope_tokens(record: TaskRecord) -> list[str]:
    """The declared scope as terms: paths and dotted modules (plan targets and the text)."""
    scope = declared_scope(record)
    return sorted(scope.paths | scope.modules)


def _objective_twice(record: TaskRecord) -> list[str]:
    return document_tokens(record) + tokenize(record.objective or "")


def _identifiers_everywhere(record: TaskRecord) -> list[str]:
    text = "\n".join([record.objective or "", record.deliverable or "", *(record.acceptance or ())])
    return identifier_tokens(text)


def initialisms(text: str) -> list[str]:
    """The initials of each camel-case name of two or more word parts, lower-cased:
    ``AzureBlobFileSystem.open`` gives ``abfs``, ``DFSClient`` ``dc``; each dotted, slashed or
    snake piece stands alone, and names with digits give none. Code search tools match an
    abbreviation to the name it abbreviates this way."""
    out: list[str] = []
    for piece in (p for pieces in identifier_pieces(text) for p in pieces):
        parts = case_parts(piece)
        if len(parts) > 1 and all(c[0].isalpha() for c in parts):
            out.append("".join(c[0] for c in parts).lower())
    return out


_SNOWBALL = Stemmer.Stemmer("english")


def _stems(tokens: list[str]) -> list[str]:
    return [str(t) for t in _SNOWBALL.stemWords(tokens)]


def _stemmed(record: TaskRecord) -> list[str]:
    return _stems(document_tokens(record, prep="identifiers-v2"))


def _with_initialisms(record: TaskRecord) -> list[str]:
    return document_tokens(record, prep="identifiers-v2") + initialisms(record.objective or "")


def _stemmed_with_initialisms(record: TaskRecord) -> list[str]:
    return _stems(_with_initialisms(record))


#: Lexical text preparations compared (the first two are ``TEXT_PREPS``).
TOKENIZERS: Mapping[str, Tokenizer] = {
    "words-v1": lambda r: document_tokens(r, prep="words-v1"),
    "identifiers-v2": lambda r: document_tokens(r, prep="identifiers-v2"),
    "words, objective twice": _objective_twice,
    "identifiers in every field": _identifiers_everywhere,
    "identifiers-v2, Snowball stems": _stemmed,
    "identifiers-v2 + initialisms of the objective's names": _with_initialisms,
    "identifiers-v2 + initialisms, Snowball stems": _stemmed_with_initialisms,
}


@dataclass(frozen=True, slots=True)
class Variant:
    """One row of the table: a tokenizer name, an embedding input name, a scope list or not."""

    tokenizer: str
    embedding: str
    scope_list: bool = False

    @property
    def name(self) -> str:
        scope = ", scope list" if self.scope_list else ""
        return f"{self.tokenizer} | embedding {self.embedding}{scope}"


def _ranked(
    scores: NDArray[Any], earlier: NDArray[np.intp], depth: int, positive: bool
) -> list[int]:
    local = np.arange(earlier.size)
    rows = local[scores > 0] if positive else local
    return [int(earlier[i]) for i in top_by_score(scores, rows, depth)]


def evaluate_variant(
    variant: Variant,
    records: Sequence[TaskRecord],
    created: Sequence[float],
    queries: Sequence[DuplicateQuery],
    vectors: NDArray[np.float32],
    *,
    policy: OverlapPolicy,
    budget: int,
    ks: Sequence[int] = (1, 5, 10, 20),
) -> dict[str, Any]:
    """Recall-rate@k of the variant's RRF list and its queue at ``budget`` (fused order)."""
    tokenize_record = TOKENIZERS[variant.tokenizer]
    tokens = [tokenize_record(r) for r in records]
    scopes = [scope_tokens(r) for r in records] if variant.scope_list else None
    times = np.asarray(created, dtype=np.float64)
    row_of = {r.task_id: i for i, r in enumerate(records)}
    ids = [r.task_id for r in records]
    depth = policy.depth
    ranked: dict[str, list[str]] = {}
    for q in queries:
        row = row_of[q.query_id]
        earlier = np.flatnonzero(times < times[row])
        lexical = bm25_prefix_scores([tokens[i] for i in earlier], tokens[row])
        lists = {
            "lexical": _ranked(lexical, earlier, depth, True),
            "dense": _ranked(vectors[earlier] @ vectors[row], earlier, depth, False),
        }
        if scopes is not None and scopes[row]:
            scope = bm25_prefix_scores([scopes[i] for i in earlier], scopes[row])
            lists["scope"] = _ranked(scope, earlier, depth, True)
        fused = reciprocal_rank_fusion(lists, k=policy.rrf_k)
        ranked[q.query_id] = [ids[c.row] for c in fused][:depth]
    rate = recall_rate_at_k(ranked, queries, ks=ks)
    held = recall_rate_at_k(ranked, queries, ks=(budget,)).rates[0]
    cards = sum(min(budget, len(ranked[q.query_id])) for q in queries)
    true = sum(sum(c in q.relevant for c in ranked[q.query_id][:budget]) for q in queries)
    return {
        "variant": variant.name,
        **rate.as_dict(),
        f"queueHolds@{budget}": held,
        f"queuePrecision@{budget}": true / cards if cards else None,
    }
