"""``top_by_score`` with its large-pool shortcut chooses what the plain selection chooses."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.overlap.rankers import _lower_bound, top_by_score


def plain(scores: np.ndarray, rows: np.ndarray, depth: int) -> tuple[int, ...]:
    """The selection without the shortcut (the reference)."""
    if rows.size > depth:
        keep = np.argpartition(-scores[rows], depth - 1)[:depth]
        threshold = scores[rows[keep]].min()
        rows = rows[scores[rows] >= threshold]
    order = np.lexsort((rows, -scores[rows]))
    return tuple(int(r) for r in rows[order][:depth])


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 6000),
    depth=st.integers(1, 25),
    levels=st.integers(1, 50),  # few levels: many exact ties
    nan=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_shortcut_chooses_the_same_rows_in_the_same_order(size, depth, levels, nan, seed):
    rng = np.random.default_rng(seed)
    scores = (rng.integers(0, levels, size) / levels).astype(np.float32)
    if nan and size:
        scores[rng.integers(0, size)] = np.nan
    rows = np.flatnonzero(rng.random(size) < 0.8)
    assert top_by_score(scores, rows, depth) == plain(scores, rows, depth)


def test_ties_at_the_cut_fall_to_the_lowest_rows_on_a_large_pool() -> None:
    scores = np.zeros(10_000, dtype=np.float32)
    scores[[9_000, 10, 5_000, 7]] = 1.0
    assert _lower_bound(scores, 3) == 1.0  # three blocks reach 1.0: the shortcut applies
    got = top_by_score(scores, np.arange(10_000), 3)
    assert got == (7, 10, 5_000)
    spread = np.linspace(0, 1, 10_000, dtype=np.float32)
    assert _lower_bound(spread, 3) > 0.98  # ...and drops nearly every row
    assert top_by_score(spread, np.arange(10_000), 3) == (9_999, 9_998, 9_997)
