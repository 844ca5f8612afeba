"""Reciprocal rank fusion and the convex mixture against hand-computed golden values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.overlap.fusion import (
    convex_combination,
    reciprocal_rank_fusion,
    reciprocal_rank_fusion_reference,
)

CASES = [
    # row 1: 1/61 + 1/62; row 3: 1/63 + 1/61; row 2: 1/62 (only list "a")
    ({"a": [1, 2, 3], "b": [3, 1]}, 60, [(1, 1 / 61 + 1 / 62), (3, 1 / 63 + 1 / 61), (2, 1 / 62)]),
    ({"a": [5], "b": []}, 1, [(5, 0.5)]),
    ({"a": [], "b": []}, 60, []),
    # equal scores break ties by row
    ({"a": [9, 4], "b": [4, 9]}, 0, [(4, 1.5), (9, 1.5)]),
]


@pytest.mark.parametrize(("lists", "k", "golden"), CASES)
def test_rrf_matches_reference_and_golden(lists, k, golden):
    """Requirements 20, 21: sum over lists containing a row of 1/(k + rank)."""
    fused = reciprocal_rank_fusion(lists, k=k)
    reference = reciprocal_rank_fusion_reference(lists, k=k)
    assert [c.row for c in fused] == [r for r, _ in golden] == [r for r, _ in reference]
    assert [c.score for c in fused] == pytest.approx([s for _, s in golden], abs=1e-15)
    assert [s for _, s in reference] == pytest.approx([s for _, s in golden], abs=1e-15)


def test_rrf_reports_rank_per_list_and_none_when_absent():
    (first, *_rest) = reciprocal_rank_fusion({"dense": [7], "lexical": [8, 7]}, k=60)
    assert first.row == 7
    assert dict(first.ranks) == {"dense": 1, "lexical": 2}
    assert dict(reciprocal_rank_fusion({"dense": [], "lexical": [8]})[0].ranks)["dense"] is None


def test_rrf_ignores_score_scales():
    """Requirement 20: the same ranks give the same fusion whatever the raw scores were."""
    assert reciprocal_rank_fusion({"a": [1, 2]}) == reciprocal_rank_fusion({"a": [1, 2]})


@pytest.mark.parametrize(
    ("alpha", "golden"), [(0.5, [0.5, 1.0, 0.25]), (1.0, [0.0, 1.0, 0.5]), (0.0, [1.0, 1.0, 0.0])]
)
def test_convex_combination_min_max_normalises_each_list(alpha, golden):
    lexical = np.array([0.0, 4.0, 2.0])
    dense = np.array([0.9, 0.9, 0.1])
    assert convex_combination(lexical, dense, alpha=alpha) == pytest.approx(golden)


def test_convex_combination_rejects_alpha_outside_unit_interval():
    with pytest.raises(ValueError, match="alpha"):
        convex_combination(np.zeros(1), np.zeros(1), alpha=1.5)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(0, 30), unique=True, max_size=20),
    st.lists(st.integers(0, 30), unique=True, max_size=20),
    st.integers(0, 100),
)
def test_rrf_equals_reference_and_is_bounded_for_any_lists(a, b, k):
    """Requirement 20 as a property: same order and scores as the loop; each score is at most
    the number of lists times 1/(k+1)."""
    fused = reciprocal_rank_fusion({"a": a, "b": b}, k=k)
    reference = reciprocal_rank_fusion_reference({"a": a, "b": b}, k=k)
    assert [(c.row, pytest.approx(c.score)) for c in fused] == reference
    assert all(0 < c.score <= 2 / (k + 1) for c in fused)
