"""The per-run shortcuts of the incremental index give exactly what the whole-pool forms give."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proximity.engine.overlap import Viewer
from proximity.engine.overlap.lexical import document_tokens, query_terms
from proximity.engine.overlap.live import LivePool

from .builders import OTHER_SPACE, record
from .test_incremental import FIELDS, WORDS, _add, _replay, _revise, _viewer


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(st.one_of(_add, _add, _revise), min_size=1, max_size=14),
    viewer=_viewer,
    seed=st.integers(0, 2**32 - 1),
    words=st.lists(st.sampled_from([*WORDS, "unseen"]), max_size=5),
)
def test_corpus_scores_and_scores_at_equal_the_pool_scores_on_the_corpus_bit_for_bit(
    steps, viewer, seed, words
) -> None:
    worker = _replay(steps, seed)
    rows = worker.pool.select(viewer)
    terms = query_terms(" ".join(words))
    whole = worker.lexical.scores(terms, rows)[rows]
    assert whole.tobytes() == worker.lexical.corpus_scores(terms, rows).tobytes()
    at = worker.pool.position(rows)
    assert whole.tobytes() == worker.lexical.corpus_scores(terms, rows, at).tobytes()
    query = np.asarray(next(v for v in [*worker.vectors.values(), np.ones(8)] if v is not None))
    query = (query / np.linalg.norm(query)).astype(np.float32)
    expected = worker.dense.scores(query)[rows]
    assert expected.tobytes() == worker.dense.scores_at(query, rows).tobytes()


def test_position_maps_each_pool_row_to_its_place_in_the_selection() -> None:
    pool = LivePool()
    for key in range(1, 6):
        pool.add(key, record(f"T{key}", "export"))
    assert pool.position(np.array([3, 0, 4])).tolist() == [1, -1, -1, 0, 2]


def test_a_snapshot_keeps_the_records_it_was_taken_with_when_a_row_is_replaced() -> None:
    pool = LivePool()
    first = record("T1", "export retry")
    pool.add(1, first)
    pool.add(2, record("T2", "export cache"))
    lead = Viewer("v", frozenset({"payments"}), frozenset({"internal"}))
    before = pool.snapshot("s1", pool.select(lead))
    moved = dataclasses.replace(first, space_id=OTHER_SPACE)  # embedded again in a new space
    assert pool.add(1, moved) == 0
    assert before.records[0] is first
    assert list(before.records) == [first, pool.record(1)]
    assert before.records[0:1] == [first]
    assert pool.snapshot("s2", pool.select(lead)).records[0] is moved


def test_a_pool_whose_terms_are_all_unknown_scores_zero_without_reading_the_corpus() -> None:
    worker = _replay([("add", "payments", frozenset(), "export", None, "new")], 0)
    rows = worker.pool.select(Viewer("v", frozenset({"payments"}), frozenset()))
    assert worker.lexical.corpus_scores(["nothing", "here"], rows).tolist() == [0.0]
    assert document_tokens(worker.pool.record(0), FIELDS)  # the row itself is indexed
