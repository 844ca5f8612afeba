"""Pair similarities for the review stage: golden values, both index paths, and honest gaps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from proximity.engine.overlap import PoolSnapshot, TaskRef, run_overlap
from proximity.engine.overlap.incremental import (
    BM25Postings,
    DenseRows,
    DenseRowsRanker,
    PostingsRanker,
)
from proximity.engine.overlap.lexical import document_tokens, lucene_idf
from proximity.engine.overlap.live import LivePool
from proximity.engine.overlap.policy import SHIPPED_POLICY
from proximity.engine.overlap.similarity import (
    SIMILARITY_FEATURES,
    objective_idf_overlap,
    objective_terms,
    similarity_features,
)

from .builders import LEAD, always_current, rankers, record, unit

FIELDS = SHIPPED_POLICY.fields_indexed
PREP = SHIPPED_POLICY.text_prep
RECORDS = [
    record("Q", "Upgrade commons-text to fix CVE-2022-42889"),
    record("A", "upgrade commons-text to 1.10.0"),
    record("B", "Upgrade jetty to 9.4.43"),
    record("C", "Flaky TestBalancer on slow disks"),
    record("D", "", objective=None),
]
VECTORS = {"Q": [1, 0, 0], "A": [0.9, 0.1, 0], "B": [0, 1, 0], "C": [0, 0, 1], "D": [1, 1, 1]}


@pytest.mark.parametrize(
    ("query", "cand", "idf", "expected"),
    [
        (["a", "b"], ["b"], {"a": 1.0, "b": 3.0}, 0.75),
        (["a", "b"], ["a", "b", "c"], {"a": 1.0, "b": 3.0}, 1.0),
        (["a"], ["b"], {"a": 2.0}, 0.0),
        ([], ["b"], {}, None),
        (["a"], ["a"], {"a": 0.0}, None),  # nothing weighable: unknown, not zero
    ],
)
def test_objective_idf_overlap_golden(query, cand, idf, expected):
    assert objective_idf_overlap(query, cand, idf) == expected


def test_objective_terms_split_identifiers():
    terms = objective_terms(record("X", "Fix DFSClient.getBlockLocations"))
    assert {"dfs", "client", "get", "block", "locations", "dfsclient"} <= set(terms)


def _live(snapshot: PoolSnapshot):
    """The worker's incremental index over the same records, as the service feeds it."""
    pool, postings, dense = LivePool(), BM25Postings(), DenseRows(RECORDS[0].space_id or "")
    for key, rec in enumerate(snapshot.records, start=1):
        row = pool.add(key, rec)
        postings.add(row, document_tokens(rec, FIELDS, PREP))
        dense.set(row, unit(VECTORS[rec.task_id]))
    rows = pool.select(LEAD)
    live = pool.snapshot(snapshot.snapshot_id, rows)
    lexical = PostingsRanker(postings, rows, snapshot.snapshot_id, FIELDS, PREP)
    return live, lexical, DenseRowsRanker(dense, rows, live)


def test_both_index_paths_weigh_terms_and_compare_vectors_alike_and_by_the_formula():
    snapshot = PoolSnapshot.build("s", RECORDS)
    from proximity.engine.overlap import BM25Index, BM25Ranker

    rebuilt_lexical = BM25Ranker(BM25Index.build(snapshot, fields=FIELDS, prep=PREP))
    _, rebuilt_dense = rankers(snapshot, VECTORS)
    _, live_lexical, live_dense = _live(snapshot)
    terms = [*objective_terms(RECORDS[0]), "absent"]
    docs = [set(document_tokens(r, FIELDS, PREP)) for r in RECORDS]
    by_hand = {t: lucene_idf(sum(t in d for d in docs), len(docs)) for t in terms}
    assert by_hand["absent"] == pytest.approx(math.log(1 + 5.5 / 0.5))
    assert rebuilt_lexical.idf(terms) == pytest.approx(by_hand)
    assert live_lexical.idf(terms) == rebuilt_lexical.idf(terms)
    query = snapshot.records[0]
    expected = [float(unit(VECTORS["Q"]) @ unit(VECTORS[t])) for t in "ABCD"]
    assert rebuilt_dense.cosines(query, [1, 2, 3, 4]) == pytest.approx(expected)
    assert live_dense.cosines(query, [1, 2, 3, 4]) == rebuilt_dense.cosines(query, [1, 2, 3, 4])


def _values(features):
    return {f.name: (f.status, f.value) for f in features}


def test_a_run_carries_the_three_similarities_with_values():
    snapshot = PoolSnapshot.build("s", RECORDS)
    lexical, dense = rankers(snapshot, VECTORS)

    def embed(records):  # the objectives' own vectors: here, the records' vectors again
        return np.stack([unit(VECTORS[r.task_id]) for r in records])

    run = run_overlap(
        TaskRef("Q", 1), snapshot, LEAD, SHIPPED_POLICY, lexical=lexical, dense=dense,
        recheck=always_current, objective_embedder=embed,
    )  # fmt: skip
    by = {a.candidate.task_id: _values(a.features) for a in run.advisories}
    assert by["A"]["similarity.dense_cosine"] == (
        "value",
        pytest.approx(0.9 / math.hypot(0.9, 0.1)),
    )
    shared = by["A"]["similarity.objective_idf_overlap"]
    assert shared[0] == "value"
    assert shared[1] > by["B"]["similarity.objective_idf_overlap"][1] > 0  # "upgrade" is shared
    assert by["C"]["similarity.objective_idf_overlap"] == ("value", 0.0)
    assert by["A"]["similarity.objective_cosine"][0] == "value"
    assert by["D"]["similarity.objective_cosine"][0] == "unknown"  # D declares no objective
    assert by["D"]["similarity.objective_idf_overlap"][0] == "unknown"


class Broken:
    def __call__(self, records):
        raise RuntimeError("model folder missing")


@pytest.mark.parametrize(
    ("lexical", "dense", "embedder", "reason"),
    [
        (object(), object(), None, ("cannot compare", "cannot weigh", "no objective embedder")),
        (None, None, Broken(), (None, None, "RuntimeError: model folder missing")),
    ],
)
def test_an_unanswerable_similarity_is_unavailable_with_its_reason(
    lexical, dense, embedder, reason
):
    snapshot = PoolSnapshot.build("s", RECORDS)
    real_lexical, real_dense = rankers(snapshot, VECTORS)
    got = similarity_features(
        snapshot.records[0], snapshot.records[1:3], [1, 2],
        lexical=lexical or real_lexical, dense=dense or real_dense, objective_embedder=embedder,
    )  # fmt: skip
    for features in got:
        assert [f.name for f in features] == list(SIMILARITY_FEATURES)
        for f, why in zip(features, reason, strict=True):
            if why is None:
                assert f.status == "value"
            else:
                assert f.status == "unavailable"
                assert why in (f.detail or "")
                assert f.value is None  # never a zero standing in for "not measured"


def test_a_query_without_a_vector_makes_dense_cosine_unavailable_not_zero():
    records = [*RECORDS[:3]]
    snapshot = PoolSnapshot.build("s", records)
    _, dense = rankers(snapshot, {"A": [1, 0, 0], "B": [0, 1, 0]})  # the query has none
    got = similarity_features(
        snapshot.records[0], snapshot.records[1:], [1, 2],
        lexical=None, dense=dense, objective_embedder=None,
    )  # fmt: skip
    assert {f[0].status for f in got} == {"unavailable"}
