"""radar-v1 display layout: the path tree laid along a 3D Hilbert curve.

Files are ranked in depth-first order of the path tree (segment-wise sort), so siblings are
adjacent and every subtree is a contiguous run; the run is mapped onto a Hilbert curve, which
keeps contiguous runs spatially compact. Deterministic: it depends only on the set of paths.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.paths import path_segments

__all__ = ["Universe", "hilbert_points", "tree_layout"]


def hilbert_points(index: NDArray[np.int64], bits: int) -> NDArray[np.int64]:
    """Hilbert-curve index to 3D cell coordinates (Skilling's transpose algorithm)."""
    x = np.zeros((3, index.size), dtype=np.int64)
    for b in range(bits):
        for d in range(3):
            shift = 3 * b + (2 - d)
            x[d] |= ((index >> shift) & 1) << b
    top = 2 << (bits - 1)
    t = x[2] >> 1
    for d in (2, 1):
        x[d] ^= x[d - 1]
    x[0] ^= t
    q = 2
    while q != top:
        p = q - 1
        for d in (2, 1, 0):
            hit = (x[d] & q) != 0
            x[0] = np.where(hit, x[0] ^ p, x[0])
            swap = (x[0] ^ x[d]) & p
            x[0] = np.where(hit, x[0], x[0] ^ swap)
            x[d] = np.where(hit, x[d], x[d] ^ swap)
        q <<= 1
    return x.T


class Universe:
    """The paths of a repository graph in depth-first tree order, computed once per graph."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.order = sorted(set(paths), key=path_segments)
        self.keys = [path_segments(p) for p in self.order]
        self.rank = {p: k for k, p in enumerate(self.order)}


def tree_layout(paths: Sequence[str], universe: Universe) -> NDArray[np.float64]:
    """Coordinates in [-1, 1]^3 for ``paths`` ranked in the tree order of universe + paths.

    Passing the repository graph as the universe keeps a file's place stable between scans.
    """
    unknown = sorted({p for p in paths if p not in universe.rank}, key=path_segments)
    unknown_keys = [path_segments(p) for p in unknown]
    total = len(universe.order) + len(unknown)
    if total == 0:
        return np.zeros((0, 3))
    rank = []
    for p in paths:
        key = path_segments(p)
        base = universe.rank.get(p)
        if base is None:
            base = bisect_left(universe.keys, key)
        rank.append(base + bisect_left(unknown_keys, key))
    bits = max(1, int(np.ceil(np.log2(max(2, total)) / 3)) + 1)
    cells = 1 << (3 * bits)
    index = (np.array(rank, dtype=np.int64) * cells) // total
    points = hilbert_points(index, bits).astype(np.float64)
    scaled: NDArray[np.float64] = (points + 0.5) / (1 << bits) * 2.0 - 1.0
    return scaled
