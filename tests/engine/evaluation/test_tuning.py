"""Recomputing radar-v1 risk for candidate settings from per-pair channel features."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.evaluation.tuning import (
    ChannelFeatures,
    RadarSetting,
    choose_threshold,
    dependency_distance,
    min_region_gap,
    radar_risk,
    radar_risk_reference,
    search_settings,
)

INF = math.inf


@pytest.mark.parametrize(
    ("overlap", "gap", "distance", "tree", "expected"),
    [
        (0.0, INF, 1.0, 0.0, 0.6),  # a direct import alone: Traffic, not Resolution
        (0.0, INF, 2.0, 0.0, 0.3),
        (0.0, INF, 3.0, 0.0, 0.0),  # beyond the cap of 2
        (0.0, 2.0, INF, 0.0, 0.75),  # abutting regions
        (0.0, 4.0, INF, 0.0, 0.0),  # one unchanged line between them
        (1.0, INF, INF, 0.5, 1.0),
        (0.0, INF, 1.0, 0.5, 1 - 0.4 * 0.875),
        (0.02, INF, INF, 0.0, 0.02),  # a one-line overlap inside large edits counts little...
    ],
)
def test_risk_matches_hand_computed_values(
    overlap: float, gap: float, distance: float, tree: float, expected: float
) -> None:
    s = RadarSetting()
    f = ChannelFeatures(*(np.array([v]) for v in (overlap, gap, distance, tree)))
    assert radar_risk(f, s)[0] == pytest.approx(expected)
    assert radar_risk_reference(overlap, gap, distance, tree, s) == pytest.approx(expected)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1),
            st.sampled_from([1.0, 2.0, 3.0, 5.0, INF]),
            st.sampled_from([1.0, 2.0, 3.0, INF]),
            st.floats(0, 1),
        ),
        min_size=1,
        max_size=20,
    ),
    st.sampled_from([0.25, 0.5]),
    st.integers(1, 3),
    st.sampled_from([2, 4, 8]),
)
def test_vectorised_risk_agrees_with_reference_and_stays_in_unit_interval(
    rows: list[tuple[float, float, float, float]], gamma: float, cap: int, margin: int
) -> None:
    s = RadarSetting(gamma=gamma, cap=cap, margin=margin)
    f = ChannelFeatures(*(np.array(c, dtype=float) for c in zip(*rows, strict=True)))
    fast = radar_risk(f, s)
    ref = [radar_risk_reference(*r, s) for r in rows]
    assert fast == pytest.approx(ref)
    assert np.all((fast >= 0) & (fast <= 1))


def test_overlap_floor_makes_any_overlap_count() -> None:
    """...unless the floor is raised: git conflicts on one shared line as on a hundred."""
    f = ChannelFeatures(np.array([0.02, 0.0]), np.array([INF, INF]), np.array([INF, INF]),
                        np.zeros(2))  # fmt: skip
    assert radar_risk(f, RadarSetting(overlap_floor=1.0)) == pytest.approx([1.0, 0.0])
    assert radar_risk_reference(0.02, INF, INF, 0.0, RadarSetting(overlap_floor=1.0)) == 1.0


def test_dependency_distance_inverts_the_measured_channel() -> None:
    assert dependency_distance(1.0, gamma=0.5) == 1
    assert dependency_distance(0.25, gamma=0.5) == 3
    assert dependency_distance(0.0, gamma=0.5) == INF


@pytest.mark.parametrize(
    ("a", "b", "gap"),
    [
        ([[3, 1]], [[3, 1]], 0.0),
        ([[1, 3]], [[4, 2]], 2.0),  # consecutive lines: the abutting rule
        ([[1, 3]], [[5, 1]], 4.0),  # one unchanged line between
        ([[3, 0]], [[4, 1]], 1.0),  # insertion right before the changed line
        ([], [[1, 1]], INF),
    ],
)
def test_region_gap_uses_doubled_base_positions(
    a: list[list[int]], b: list[list[int]], gap: float
) -> None:
    assert min_region_gap(a, b) == gap


def test_search_prefers_the_setting_that_ranks_conflicts_first() -> None:
    # Conflicts only on abutting pairs; imports everywhere: a quiet dependency weight wins.
    f = ChannelFeatures(
        overlap=np.zeros(6),
        gap=np.array([2.0, 2.0, INF, INF, INF, INF]),
        distance=np.array([1.0, INF, 1.0, 1.0, 1.0, 1.0]),
        tree=np.zeros(6),
    )
    y = np.array([True, True, False, False, False, False])
    ranked = search_settings(f, y, np.ones(6), {"w_dependency": [0.0, 0.9], "w_adjacency": [0.75]})
    assert ranked[0].setting.w_dependency == 0.0
    assert ranked[0].ap_weighted == pytest.approx(1.0)
    assert ranked[-1].ap_weighted < 1.0


def test_thresholds_meet_their_targets_or_say_none() -> None:
    s = np.array([0.1, 0.4, 0.6, 0.8, 0.9])
    y = np.array([False, False, True, False, True])
    w = np.ones(5)
    # Halfway below the qualifying score: flags the same pairs, off the plateau value.
    assert choose_threshold(s, y, w, min_precision=0.6) == pytest.approx(0.5)
    assert choose_threshold(s, y, w, min_recall=1.0) == pytest.approx(0.5)
    assert choose_threshold(s, y, w, min_recall=0.5) == pytest.approx(0.85)
    assert choose_threshold(s, y, w, min_precision=1.01) is None
    with pytest.raises(ValueError, match="target"):
        choose_threshold(s, y, w)
