"""radar-v1 display layout: the path tree laid along a 3D Hilbert curve.

Files are ranked in depth-first order of the path tree (segment-wise sort), so siblings are
adjacent and every subtree is a contiguous run; the run is mapped onto a Hilbert curve, which
keeps contiguous runs spatially compact. Deterministic: it depends only on the set of paths.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.paths import path_segments

__all__ = ["hilbert_points", "tree_layout"]


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


def tree_layout(paths: Iterable[str], universe: Iterable[str] = ()) -> dict[str, list[float]]:
    """Coordinates in [-1, 1]^3 for ``paths``, ranked among ``paths`` plus ``universe``.

    Passing the repository's graph as ``universe`` keeps a file's place stable between scans.
    """
    wanted = list(dict.fromkeys(paths))
    ordered = sorted(set(wanted).union(universe), key=path_segments)
    if not ordered:
        return {}
    bits = max(1, int(np.ceil(np.log2(max(2, len(ordered))) / 3)) + 1)
    cells = 1 << (3 * bits)
    rank = {path: k for k, path in enumerate(ordered)}
    index = np.array([(rank[p] * cells) // len(ordered) for p in wanted], dtype=np.int64)
    points = hilbert_points(index, bits).astype(np.float64)
    scaled = (points + 0.5) / (1 << bits) * 2.0 - 1.0
    return {p: [float(v) for v in row] for p, row in zip(wanted, scaled, strict=True)}
