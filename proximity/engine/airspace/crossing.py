"""Vectorised helpers shared by the fast scorers: group cross products and interval algebra."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = [
    "IntervalSets",
    "block_intervals",
    "cross_in_groups",
    "pair_intervals",
    "ragged_cross",
    "ragged_range",
]

Ints = NDArray[np.int64]


def ragged_cross(left_count: Ints, right_count: Ints) -> tuple[Ints, Ints, Ints]:
    """For items ``p`` with ``left_count[p] * right_count[p]`` combinations, every combination
    as ``(p, k_left, k_right)``, in item order."""
    total = left_count * right_count
    item = np.repeat(np.arange(len(total), dtype=np.int64), total)
    offset = np.arange(int(total.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(total) - total, total
    )
    width = right_count[item]
    return item, offset // width, offset % width


def ragged_range(count: Ints) -> tuple[Ints, Ints]:
    """Every ``(p, k)`` with ``0 <= k < count[p]``, in item order (no division needed)."""
    item = np.repeat(np.arange(len(count), dtype=np.int64), count)
    offset = np.arange(len(item), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    return item, offset


def cross_in_groups(left_ptr: Ints, right_ptr: Ints) -> tuple[Ints, Ints]:
    """All ``(left, right)`` index pairs with both in the same group (CSR pointers)."""
    group, k_left, k_right = ragged_cross(np.diff(left_ptr), np.diff(right_ptr))
    return left_ptr[group] + k_left, right_ptr[group] + k_right


class IntervalSets:
    """Disjoint sorted inclusive intervals per item, flattened (CSR)."""

    def __init__(self, ptr: Ints, start: Ints, end: Ints) -> None:
        self.ptr, self.start, self.end = ptr, start, end
        owner = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        lengths = (end - start + 1).astype(np.float64)
        self.size = np.bincount(owner, weights=lengths, minlength=len(ptr) - 1).astype(np.int64)

    @classmethod
    def from_lists(cls, items: list[list[tuple[int, int]]]) -> IntervalSets:
        counts = np.array([len(x) for x in items], dtype=np.int64)
        ptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
        flat = [iv for x in items for iv in x]
        start = np.array([s for s, _ in flat], dtype=np.int64)
        end = np.array([e for _, e in flat], dtype=np.int64)
        return cls(ptr, start, end)


def pair_intervals(sets: IntervalSets, a: Ints, b: Ints) -> tuple[Ints, NDArray[np.bool_]]:
    """For item pairs ``(a[k], b[k])``: the size of the intersection, and whether some interval
    of one touches an interval of the other without sharing a position (see
    :func:`.regions.abuts`: gap 1, or gap 2 between two line positions)."""
    counts_a, counts_b = np.diff(sets.ptr)[a], np.diff(sets.ptr)[b]
    pair, ka, kb = ragged_cross(counts_a, counts_b)
    ia, ib = sets.ptr[a][pair] + ka, sets.ptr[b][pair] + kb
    low = np.maximum(sets.start[ia], sets.start[ib])
    high = np.minimum(sets.end[ia], sets.end[ib])
    inter = np.bincount(pair, weights=np.maximum(high - low + 1, 0), minlength=len(a))
    gap = low - high
    touching = (gap == 1) | ((gap == 2) & (high % 2 == 0))
    touch = np.bincount(pair[touching], minlength=len(a)) > 0
    return inter.astype(np.int64), touch


def _membership(sets: IntervalSets, items: Ints, breaks: Ints, widen: int) -> csr_matrix:
    """Sparse 0/1 (item x elementary segment) coverage; sparse keeps BLAS threads out of it."""
    from scipy.sparse import csr_matrix  # imported here: a pre-edit check never needs scipy

    owner, k = ragged_range(np.diff(sets.ptr)[items])
    interval = sets.ptr[items][owner] + k
    low = np.searchsorted(breaks, sets.start[interval] - widen)
    high = np.searchsorted(breaks, sets.end[interval] + widen + 1)
    run, step = ragged_range(high - low)
    shape = (len(items), len(breaks) - 1)
    data = np.ones(len(run))
    coverage = csr_matrix((data, (owner[run], low[run] + step)), shape=shape)
    coverage.data[:] = 1.0  # overlapping intervals of one item were summed; coverage is 0/1
    return coverage


def block_intervals(
    sets: IntervalSets, rows: Ints, cols: Ints, *, reach: int = 2
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Dense version of :func:`pair_intervals` for one large group (a hot file).

    Intersection sizes come from one sparse product over the elementary segments of all the
    group's intervals; ``near[r, c]`` says some intervals are at most ``reach`` apart.
    """
    members = np.r_[rows, cols]
    owner, k = ragged_range(np.diff(sets.ptr)[members])
    spans = sets.ptr[members][owner] + k
    starts, ends = sets.start[spans], sets.end[spans] + 1
    breaks = np.unique(np.r_[starts, ends, starts - reach, ends + reach])
    from scipy.sparse import diags  # imported here, as in _membership

    lengths = diags(np.diff(breaks).astype(np.float64))
    plain_cols = _membership(sets, cols, breaks, 0).T.tocsr()
    inter = (_membership(sets, rows, breaks, 0) @ lengths @ plain_cols).toarray()
    near = (_membership(sets, rows, breaks, reach) @ plain_cols).toarray() > 0
    return inter, near
