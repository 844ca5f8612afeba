"""The ranker contract: explicit availability, ranks over snapshot rows, an index identity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.records import TaskRecord
from proximity.engine.overlap.snapshot import Eligible

__all__ = ["Ranker", "RankerResult", "UnavailableRanker", "safe_rank", "top_by_score"]


@dataclass(frozen=True, slots=True)
class RankerResult:
    """What a ranker returns (requirement 17).

    ``available`` with an empty ``rows`` means "zero candidates", never an outage (requirement 18).
    ``rows`` are snapshot rows, best first; rank ``i + 1`` belongs to ``rows[i]``.
    """

    available: bool
    rows: tuple[int, ...] = ()
    reason: str | None = None
    index_id: str | None = None

    def __post_init__(self) -> None:
        if not self.available and not self.reason:
            raise ValueError("an unavailable ranker result must carry a reason")
        if not self.available and self.rows:
            raise ValueError("an unavailable ranker result cannot carry ranks")


class Ranker(Protocol):
    """Ranks the eligible rows of a snapshot for one query record."""

    def __call__(self, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult: ...


@dataclass(frozen=True, slots=True)
class UnavailableRanker:
    """A ranker whose backend could not be loaded: always unavailable, with the reason."""

    reason: str

    def __call__(self, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult:
        return RankerResult(available=False, reason=self.reason)


def safe_rank(ranker: Ranker, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult:
    """Call ``ranker`` and classify every failure as unavailability before fusion (req. 25).

    A raised exception, a result for rows outside ``eligible`` (which would leak unauthorized or
    incompatible records into rank lists, requirement 10) or duplicate rows all count as
    unavailable with a reason; the rows are never used.
    """
    try:
        result = ranker(query, eligible, depth=depth)
    except Exception as exc:
        return RankerResult(available=False, reason=f"ranker-raised: {type(exc).__name__}: {exc}")
    if not result.available:
        return result
    rows = np.asarray(result.rows, dtype=np.intp)
    if rows.size and (rows.min() < 0 or rows.max() >= eligible.mask.size):
        return RankerResult(available=False, reason="ranker-returned-unknown-row")
    if rows.size and not eligible.mask[rows].all():
        return RankerResult(available=False, reason="ranker-returned-ineligible-row")
    if len(set(result.rows)) != len(result.rows):
        return RankerResult(available=False, reason="ranker-returned-duplicate-row")
    return RankerResult(True, result.rows[:depth], None, result.index_id)


#: Rows per block in ``_lower_bound``; pools below ``4 * depth`` blocks skip the shortcut.
_BLOCK = 64


def _lower_bound(values: NDArray[np.floating[Any]], depth: int) -> Any:
    """A value the ``depth``-th largest of ``values`` is at least: the ``depth``-th largest of
    the maxima of blocks of ``_BLOCK`` values (each maximum is a value, so ``depth`` values reach
    it). None when there are too few blocks to gain anything, or a NaN (whose order differs)."""
    blocks = values.size // _BLOCK
    if depth < 1 or blocks < 4 * depth:
        return None
    maxima = values[: blocks * _BLOCK].reshape(blocks, _BLOCK).max(axis=1)
    if np.isnan(maxima).any():
        return None
    return np.partition(maxima, blocks - depth)[blocks - depth]


def top_by_score(
    scores: NDArray[np.floating[Any]], rows: NDArray[np.intp], depth: int
) -> tuple[int, ...]:
    """The best ``depth`` of ``rows`` by ``scores[rows]``, ties broken by row index.

    On a large pool the rows below a cheap lower bound of the ``depth``-th score are dropped
    first (none of them can be chosen), so the exact selection runs on a few hundred rows
    instead of the whole pool; the result is the same.
    """
    if rows.size > depth:
        values = scores[rows]
        bound = _lower_bound(values, depth)
        if bound is not None:
            rows = rows[values >= bound]
        keep = np.argpartition(-scores[rows], depth - 1)[:depth]
        threshold = scores[rows[keep]].min()
        rows = rows[scores[rows] >= threshold]
    order = np.lexsort((rows, -scores[rows]))
    return tuple(int(r) for r in rows[order][:depth])
