"""BM25 and exact-cosine retrieval against references and hand-computed golden values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.overlap import (
    BM25Index,
    BM25Ranker,
    DenseIndex,
    Eligible,
    PoolSnapshot,
    RankerResult,
)
from proximity.engine.overlap.dense import cosine_scores, cosine_top_reference
from proximity.engine.overlap.lexical import bm25_scores_reference, tokenize

from .builders import SPACE, record, unit

# Corpus as (objective) only: deliverable/acceptance left undeclared to keep the arithmetic small.
DOCS = ["apple banana", "apple cherry cherry", "durian"]


def corpus_snapshot():
    records = [
        record(f"T{i}", text, deliverable=None, acceptance=None) for i, text in enumerate(DOCS)
    ]
    return PoolSnapshot.build("s", records)


@pytest.mark.parametrize(
    ("query", "golden"),
    [
        # idf = ln(1 + (3 - 1 + 0.5) / 1.5); tf 2, dl 3, avgdl 2, k1 1.5, b 0.75:
        # 0.98083 * 2 / (2 + 1.5 * (0.25 + 0.75 * 3 / 2))
        ("cherry", [0.0, 0.4828697860980806, 0.0]),
        # apple: df 2, idf = ln(1.6); tf 1 in docs of length 2 and 3
        ("apple", [0.18800145169829424, 0.1534705728149341, 0.0]),
        ("unknownword", [0.0, 0.0, 0.0]),
    ],
)
def test_bm25_scores_match_reference_and_hand_computed_values(query, golden):
    """Lucene BM25 (Kamphuis et al. 2020) via bm25s equals the loop reference and the golden."""
    index = BM25Index.build(corpus_snapshot())
    assert index.scores(query) == pytest.approx(golden, abs=1e-6)
    assert bm25_scores_reference(query, DOCS) == pytest.approx(golden, abs=1e-9)


def test_bm25_ranker_ranks_only_eligible_positive_rows_best_first():
    """Requirements 17, 18: ranks restricted to the eligible mask; no match -> empty, available."""
    snapshot = corpus_snapshot()
    ranker = BM25Ranker(BM25Index.build(snapshot))
    query = record("Q", "cherry apple", deliverable=None, acceptance=None)
    everything = Eligible("s", np.ones(3, dtype=bool))
    assert ranker(query, everything, depth=5).rows == (1, 0)
    assert ranker(query, Eligible("s", np.array([True, False, True])), depth=5).rows == (0,)
    empty = ranker(record("Q", "zebra", deliverable=None, acceptance=None), everything, depth=5)
    assert empty == RankerResult(True, (), None, ranker.index.index_id)


def test_tokenizer_drops_stopwords_and_single_characters():
    assert tokenize("The API of a Cache, x") == ["api", "cache"]


def test_dense_index_rejects_unnormalised_wrong_dtype_and_foreign_space_vectors():
    """Bad input gets a clear error naming the row."""
    snapshot = PoolSnapshot.build("s", [record("A"), record("B", space_id="space:other")])
    with pytest.raises(ValueError, match=r"vectors\[0\]: not L2-normalised"):
        DenseIndex.build(snapshot, [np.array([2, 0], dtype=np.float32), None], space_id=SPACE)
    with pytest.raises(ValueError, match=r"vectors\[0\]: expected a 1-D float32"):
        DenseIndex.build(snapshot, [np.array([1.0, 0.0]), None], space_id=SPACE)
    with pytest.raises(ValueError, match=r"vectors\[1\]: record space differs"):
        DenseIndex.build(snapshot, [None, unit([1, 0])], space_id=SPACE)


@pytest.mark.parametrize(
    ("query", "golden"),
    [([1.0, 0.0], [0, 2, 1]), ([0.0, 1.0], [1, 2, 0]), ([1.0, 1.0], [2, 0, 1])],
)
def test_dense_retrieval_matches_reference_and_golden_order(query, golden):
    vectors = [[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]]
    snapshot = PoolSnapshot.build("s", [record(f"T{i}") for i in range(3)])
    index = DenseIndex.build(snapshot, [unit(v) for v in vectors], space_id=SPACE)
    got = index.retrieve(unit(query), np.ones(3, dtype=bool), depth=3)
    assert list(got) == golden == cosine_top_reference(query, vectors, depth=3)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-5, 5), min_size=3, max_size=3).filter(any), min_size=1, max_size=30
    ),
    st.lists(st.integers(-5, 5), min_size=3, max_size=3).filter(any),
    st.integers(1, 10),
)
def test_vectorised_top_depth_agrees_with_brute_force(rows, query, depth):
    """argpartition selection returns the brute-force top ``depth`` (ties by row)."""
    snapshot = PoolSnapshot.build("s", [record(f"T{i}") for i in range(len(rows))])
    index = DenseIndex.build(snapshot, [unit(r) for r in rows], space_id=SPACE)
    got = index.retrieve(unit(query), np.ones(len(rows), dtype=bool), depth=depth)
    scores = cosine_scores(index.matrix, unit(query))  # the retriever's own per-row dot products
    expected = sorted(range(len(rows)), key=lambda i: (-scores[i], i))[:depth]
    assert list(got) == expected
