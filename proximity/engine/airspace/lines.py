"""Line-range arithmetic on sorted, merged intervals (fixes W4: no per-line sets)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["covered", "intersection_size", "line_range_overlap", "merge_ranges"]

Interval = tuple[int, int]


def merge_ranges(ranges: Iterable[Interval]) -> list[Interval]:
    """Union of inclusive integer ranges as disjoint sorted ranges (reversed pairs are fixed)."""
    fixed = sorted((min(s, e), max(s, e)) for s, e in ranges)
    out: list[Interval] = []
    for start, end in fixed:
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def covered(merged: Iterable[Interval]) -> int:
    return sum(end - start + 1 for start, end in merged)


def intersection_size(a: list[Interval], b: list[Interval]) -> int:
    """Number of integers in both unions; ``a`` and ``b`` must be merged."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if low <= high:
            total += high - low + 1
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def line_range_overlap(a: Iterable[Interval] | None, b: Iterable[Interval] | None) -> float:
    """Overlap coefficient ``|A ∩ B| / min(|A|, |B|)`` of two line sets.

    Missing or empty ranges mean a whole-file edit and give 1 (ECC-PROXIMITY.md section 2,
    ``lineRangeOverlap``); computed on merged intervals, so a ``[1, 10**6]`` range is O(1).
    """
    ma, mb = merge_ranges(a or ()), merge_ranges(b or ())
    if not ma or not mb:
        return 1.0
    smallest = min(covered(ma), covered(mb))
    return 0.0 if smallest == 0 else intersection_size(ma, mb) / smallest
