"""Leakage-resistant splits (requirements 64, 65, 68)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.evaluation.splits import (
    LeakageError,
    SplitAssignment,
    SplitRecord,
    assign_splits,
    check_no_leakage,
)


def records(n: int) -> list[SplitRecord]:
    return [SplitRecord(f"t{i}", "r1", f"2026-01-{i % 28 + 1:02d}") for i in range(n)]


@settings(max_examples=50, deadline=None)
@given(
    st.integers(2, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60),
            st.integers(0, 5),
        )
    )
)
def test_no_task_id_or_pair_link_spans_two_splits(case: Any) -> None:
    """Requirement 65: versions share a taskId, so each taskId has one split; links stay inside."""
    n, raw_links, seed = case
    links = [(f"t{a}", f"t{b}") for a, b in raw_links]
    recs = [*records(n), SplitRecord("t0", "r1", "2026-02-01")]  # a second version of t0
    result = assign_splits(recs, links, seed=seed)
    check_no_leakage(result, links)
    assert set(result.split_of) == {f"t{i}" for i in range(n)}
    for comp in result.components:
        assert len({result.split_of[t] for t in comp}) == 1


def test_components_fill_all_three_splits_reproducibly() -> None:
    """Requirement 64: whole components to train, dev or holdout, by a seeded order."""
    recs = records(30)
    links = [(f"t{i}", f"t{i + 1}") for i in range(0, 30, 2)]  # 15 components of two
    a = assign_splits(recs, links, seed=7)
    assert a == assign_splits(recs, links, seed=7)
    assert set(a.split_of.values()) == {"train", "dev", "holdout"}
    assert sum(v == "train" for v in a.split_of.values()) == 18


def test_check_no_leakage_catches_a_crossing_link() -> None:
    bad = SplitAssignment({"a": "train", "b": "holdout"}, (("a",), ("b",)), (), "component", 0)
    with pytest.raises(LeakageError, match="spans train and holdout"):
        check_no_leakage(bad, [("a", "b")])


def test_repository_holdout_pulls_linked_components_into_the_holdout() -> None:
    """Requirement 68: the holdout is a held-out repository."""
    recs = [
        SplitRecord("a", "r1"),
        SplitRecord("b", "r2"),
        SplitRecord("c", "r1"),
        SplitRecord("d", "r1"),
    ]
    result = assign_splits(recs, [("a", "b")], by="repository", holdout_repositories=["r2"])
    assert result.split_of["b"] == result.split_of["a"] == "holdout"
    assert {result.split_of["c"], result.split_of["d"]} <= {"train", "dev"}
    check_no_leakage(result, [("a", "b")])


def test_time_slice_holdout_drops_links_across_the_cut_and_reports_them() -> None:
    """Requirement 68: the holdout is a time slice; crossing links are dropped, never leaked."""
    recs = [
        SplitRecord("a", time="2026-01-01"),
        SplitRecord("b", time="2026-03-01"),
        SplitRecord("c", time="2026-03-02"),
    ]
    links = [("a", "b"), ("b", "c")]
    result = assign_splits(recs, links, by="time", holdout_from="2026-02-01")
    assert result.split_of["b"] == result.split_of["c"] == "holdout"
    assert result.split_of["a"] in {"train", "dev"}
    assert result.dropped_links == (("a", "b"),)
    assert result.split_of_pair("a", "b") is None
    check_no_leakage(result, links)
    with pytest.raises(ValueError, match="holdout_from"):
        assign_splits(recs, links, by="time")
