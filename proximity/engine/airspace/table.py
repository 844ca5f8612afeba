"""Scored agent pairs as arrays, the one shape every scorer returns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from proximity.engine.symbols.channel import Item

__all__ = ["PairTable", "all_pairs"]


class PairTable(NamedTuple):
    """Channel values per agent pair ``(i, j)``, ``i < j``, in the profile's channel order.

    ecc-v0 scorers return every pair in input order; radar-v1 scorers return the pairs that
    interact (every other pair has all channels 0).
    """

    i: NDArray[np.int64]
    j: NDArray[np.int64]
    channels: NDArray[np.float64]
    evidence: Mapping[tuple[int, int], tuple[Item, ...]] | None = None
    """The symbol channel's items per pair ``(i, j)``, when the profile has that channel."""


def all_pairs(n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every unordered pair ``i < j`` in the reference's loop order."""
    i, j = np.triu_indices(n, k=1)
    return i.astype(np.int64), j.astype(np.int64)
