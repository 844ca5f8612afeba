"""The candidate-stage variants of ``evaluate_overlap --variants``: each tokenizer does what its
row in docs/EVALUATION.md says, and a variant's figures come from the evaluation protocol."""

from __future__ import annotations

import numpy as np
import pytest

from proximity.engine.evaluation.recall_rate import DuplicateQuery
from proximity.engine.overlap.policy import SHIPPED_POLICY
from proximity.engine.overlap.retrieval_variants import (
    TOKENIZERS,
    Variant,
    evaluate_variant,
    initialisms,
)
from tests.engine.overlap.builders import record


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AzureBlobFileSystem.open() should override readVectored()", ["abfs", "rv"]),
        ("read_vectored in hadoop-azure", []),
        ("HTTPServer2 and DFSClient", ["dc"]),
        ("Backport HADOOP-17796 for branch-3.2", []),
        ("plain words only", []),
    ],
)
def test_initialisms_of_compound_names(text, expected):
    assert initialisms(text) == expected


def test_stemmed_tokenizer_meets_inflections_the_shipped_one_keeps_apart():
    query = record("q", objective="Vectored reads of small ranges", deliverable=None)
    earlier = record("e", objective="Support vector read of a range", deliverable=None)
    shipped, stemmed = TOKENIZERS["identifiers-v2"], TOKENIZERS["identifiers-v2, Snowball stems"]
    assert not {"vectored", "reads", "ranges"} & set(shipped(earlier))
    assert {"vector", "read", "rang"} <= set(stemmed(query)) & set(stemmed(earlier))


def test_initialisms_tokenizer_adds_the_objective_abbreviations():
    r = record("r", objective="AzureBlobFileSystem leaks streams", deliverable="GzipCodec")
    tokens = TOKENIZERS["identifiers-v2 + initialisms of the objective's names"](r)
    assert "abfs" in tokens
    assert "gc" not in tokens  # the deliverable's names give none


def _world():
    """A query whose earlier duplicate shares only inflected words with it, among distractors
    that share its exact words; dense vectors say nothing (all orthogonal)."""
    texts = [
        ("d1", "Vector read support for object stores"),
        ("n1", "Vectored logging configuration"),
        ("n2", "Reads of configuration files"),
        ("n3", "Small ranges in the scheduler"),
        ("q", "Vectored reads of small ranges"),
    ]
    records = [record(i, objective=t, deliverable=None, acceptance=()) for i, t in texts]
    created = [float(n) for n in range(len(records))]
    vectors = np.eye(len(records), dtype=np.float32)
    return records, created, [DuplicateQuery("q", frozenset({"d1"}))], vectors


@pytest.mark.parametrize(
    ("tokenizer", "first_place"),
    [("identifiers-v2", False), ("identifiers-v2, Snowball stems", True)],
)
def test_a_variant_is_measured_by_the_evaluation_protocol(tokenizer, first_place):
    records, created, queries, vectors = _world()
    row = evaluate_variant(
        Variant(tokenizer, "full record"),
        records,
        created,
        queries,
        vectors,
        policy=SHIPPED_POLICY,
        budget=1,
        ks=(1, 4),
    )
    assert row["variant"] == f"{tokenizer} | embedding full record"
    assert row["recall@4"] == 1.0
    assert (row["recall@1"] == 1.0) is first_place
    assert row["queueHolds@1"] == row["recall@1"]
