"""Recall-rate@k (proximity/engine/evaluation/recall_rate.py) and the offline retrieval evaluation.

Kept under tests/engine/overlap because tests/engine/evaluation belongs to another work item.
"""

from __future__ import annotations

import numpy as np
import pytest

from proximity.engine.evaluation.recall_rate import (
    DuplicateQuery,
    duplicate_queries,
    recall_rate_at_k,
    recall_rate_at_k_reference,
)
from proximity.engine.overlap import BOOTSTRAP_POLICY
from proximity.engine.overlap.retrieval_eval import as_json_methods, evaluate_retrieval

from .builders import record, unit


def test_duplicate_queries_need_a_strictly_earlier_group_member():
    created = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0, "e": 4.0}
    queries = duplicate_queries(created, [("a", "b"), ("b", "c"), ("d", "e"), ("x", "a")])
    assert queries == (
        DuplicateQuery("b", frozenset({"a"})),
        DuplicateQuery("c", frozenset({"a", "b"})),
    )


QUERIES = (DuplicateQuery("q1", frozenset({"r1"})), DuplicateQuery("q2", frozenset({"r2", "r3"})))


@pytest.mark.parametrize(
    ("rankings", "golden"),
    [
        ({"q1": ["r1"], "q2": ["x", "r3"]}, (0.5, 1.0, 1.0)),
        ({"q1": ["x"] * 5 + ["r1"], "q2": []}, (0.0, 0.0, 0.5)),
        ({}, (0.0, 0.0, 0.0)),
    ],
)
def test_recall_rate_matches_reference_and_golden(rankings, golden):
    rate = recall_rate_at_k(rankings, QUERIES, ks=(1, 5, 10))
    assert rate.rates == golden
    assert tuple(recall_rate_at_k_reference(rankings, QUERIES, k) for k in (1, 5, 10)) == golden
    assert rate.as_dict()["recall@10"] == golden[2]
    assert rate.queries == 2


def test_recall_rate_refuses_an_empty_query_set():
    with pytest.raises(ValueError, match="queries"):
        recall_rate_at_k({}, ())


def test_evaluation_retrieves_only_among_earlier_records():
    """Each query sees only reports created before it; later duplicates cannot be hits."""
    records = [
        record("r1", "disk quota exceeded on namenode", deliverable=None, acceptance=None),
        record("r2", "web ui shows wrong timezone", deliverable=None, acceptance=None),
        record("q1", "namenode disk quota exceeded again", deliverable=None, acceptance=None),
        record("r3", "namenode disk quota exceeded later", deliverable=None, acceptance=None),
    ]
    created = [1.0, 2.0, 3.0, 4.0]
    queries = duplicate_queries({"r1": 1.0, "q1": 3.0}, [("r1", "q1")])
    vectors = np.stack([unit([1, 0]), unit([0, 1]), unit([1, 0.1]), unit([1, 0.05])])
    evaluation = evaluate_retrieval(records, created, queries, vectors, policy=BOOTSTRAP_POLICY)
    methods = as_json_methods(evaluation)
    assert set(methods) == {"lexical", "dense", "rrf", "convex"}
    assert all(m["recall@1"] == 1.0 for m in methods.values())


def test_evaluation_without_vectors_reports_dense_methods_unavailable():
    records = [record("a", "x y"), record("b", "x y z")]
    queries = duplicate_queries({"a": 1.0, "b": 2.0}, [("a", "b")])
    evaluation = evaluate_retrieval(
        records, [1.0, 2.0], queries, None, policy=BOOTSTRAP_POLICY, dense_reason="no model"
    )
    methods = as_json_methods(evaluation)
    assert methods["lexical"]["recall@1"] == 1.0
    assert methods["dense"] == methods["rrf"] == methods["convex"] == {"unavailable": "no model"}
