"""Rank fusion for the pipeline, and the convex score mixture used only in offline evaluation.

Reciprocal rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009): ``score(d) = sum over lists
containing d of 1 / (k + rank(d))``, ranks starting at 1. It reads ranks only, so lexical and
cosine scales are never mixed (requirement 20). The convex combination of normalised scores
(Bruch, Gai and Ingber, "An analysis of fusion functions for hybrid retrieval", TOIS 2023) is kept
for the evaluation command, which compares it with RRF; the pipeline never uses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FusedCandidate",
    "convex_combination",
    "reciprocal_rank_fusion",
    "reciprocal_rank_fusion_reference",
]


@dataclass(frozen=True, slots=True)
class FusedCandidate:
    """One fused row with its score and its 1-based rank in each list (None when absent)."""

    row: int
    score: float
    ranks: tuple[tuple[str, int | None], ...]


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[int]], *, k: int = 60
) -> tuple[FusedCandidate, ...]:
    """Fuse ranked lists of rows by reciprocal rank.

    Parameters
    ----------
    rankings : mapping of list name to rows, best first
        Each list is one available ranker's output.
    k : int, default 60
        The RRF constant; 60 is Cormack et al.'s value, used here only as a provisional bootstrap.

    Returns
    -------
    tuple of FusedCandidate
        Descending fused score, ties broken by row. A row present in one list gets only that
        list's contribution (requirement 21).
    """
    names = sorted(rankings)
    position = {n: {row: i + 1 for i, row in enumerate(rankings[n])} for n in names}
    rows = np.fromiter({r for n in names for r in rankings[n]}, dtype=np.int64)
    scores = np.zeros(rows.size, dtype=np.float64)
    for n in names:
        ranks = np.array([position[n].get(int(r), 0) for r in rows], dtype=np.float64)
        scores += np.where(ranks > 0, 1.0 / (k + np.maximum(ranks, 1)), 0.0)
    order = np.lexsort((rows, -scores))
    return tuple(
        FusedCandidate(int(rows[i]), float(scores[i]), _ranks(position, names, int(rows[i])))
        for i in order
    )


def _ranks(
    position: Mapping[str, Mapping[int, int]], names: Sequence[str], row: int
) -> tuple[tuple[str, int | None], ...]:
    return tuple((n, position[n].get(row)) for n in names)


def reciprocal_rank_fusion_reference(
    rankings: Mapping[str, Sequence[int]], *, k: int = 60
) -> list[tuple[int, float]]:
    """Dictionary-loop RRF: the obviously-correct baseline."""
    totals: dict[int, float] = {}
    for rows in rankings.values():
        for rank, row in enumerate(rows, start=1):
            totals[row] = totals.get(row, 0.0) + 1.0 / (k + rank)
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))


def convex_combination(
    lexical: NDArray[np.floating], dense: NDArray[np.floating], *, alpha: float = 0.5
) -> NDArray[np.float64]:
    """``alpha * mm(lexical) + (1 - alpha) * mm(dense)`` with min-max normalisation (Bruch 2023).

    Parameters
    ----------
    lexical, dense : ndarray
        Raw scores of the same candidate rows, in the same order.
    alpha : float, default 0.5
        Weight of the lexical list, in [0, 1]; tuned on development data only.
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    return alpha * _minmax(lexical) + (1.0 - alpha) * _minmax(dense)


def _minmax(scores: NDArray[np.floating]) -> NDArray[np.float64]:
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0:
        return values
    span = float(values.max() - values.min())
    return np.zeros_like(values) if span == 0.0 else (values - values.min()) / span
