"""ecc-v0, the straightforward per-pair implementation (ECC-PROXIMITY.md section 2).

Obviously correct and slow on purpose: every cross pair of files, a fresh BFS per direction,
exactly as the reference. The vectorised path (:mod:`.ecc_fast`) is checked against it and it
is the baseline in bench/airspace.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from proximity.engine.airspace.combine import noisy_or
from proximity.engine.airspace.lines import line_range_overlap
from proximity.engine.airspace.model import FileChange
from proximity.engine.airspace.paths import path_segments

__all__ = [
    "dependency_channel",
    "graph_distance",
    "overlap_channel",
    "pair_channels",
    "tree_channel",
    "tree_distance",
]

Adjacency = Mapping[str, Sequence[str]]


def _clamp01(value: float) -> float:
    return min(1.0, max(0.0, value))


def overlap_channel(a: Sequence[FileChange], b: Sequence[FileChange]) -> float:
    """Max of ``w_a * w_b * lineRangeOverlap`` over A's files found in B (last entry wins)."""
    by_path = {f.path: f for f in b}
    best = 0.0
    for fa in a:
        fb = by_path.get(fa.path)
        if fb is not None:
            value = (
                fa.reference_weight * fb.reference_weight * line_range_overlap(fa.lines, fb.lines)
            )
            best = max(best, value)
    return _clamp01(best)


def graph_distance(adjacency: Adjacency, source: str, target: str, *, cap: int = 6) -> float:
    """Hops from ``source`` to ``target`` along out-edges only; ``inf`` beyond ``cap``."""
    if source == target:
        return 0.0
    seen, frontier = {source}, [source]
    for depth in range(1, cap + 1):
        following: list[str] = []
        for node in frontier:
            for neighbour in adjacency.get(node, ()):
                if neighbour == target:
                    return float(depth)
                if neighbour not in seen:
                    seen.add(neighbour)
                    following.append(neighbour)
        frontier = following
    return math.inf


def dependency_channel(
    a: Sequence[FileChange],
    b: Sequence[FileChange],
    adjacency: Adjacency,
    *,
    gamma: float = 0.5,
    cap: int = 6,
) -> float:
    """Max of ``w_f * w_g * gamma**(d - 1)``, ``d`` the smaller of the two directed distances."""
    best = 0.0
    for fa in a:
        for fb in b:
            d = min(
                graph_distance(adjacency, fa.path, fb.path, cap=cap),
                graph_distance(adjacency, fb.path, fa.path, cap=cap),
            )
            if d == 0 or math.isinf(d):
                continue
            best = max(best, fa.reference_weight * fb.reference_weight * gamma ** (d - 1))
    return _clamp01(best)


def tree_distance(p: str, q: str) -> float:
    """``((d_p - L) + (d_q - L)) / (d_p + d_q)`` with ``L`` the common segment prefix."""
    sp, sq = path_segments(p), path_segments(q)
    if not sp or not sq:
        return 1.0
    if p == q:
        return 0.0
    common = 0
    for x, y in zip(sp, sq, strict=False):
        if x != y:
            break
        common += 1
    return _clamp01(((len(sp) - common) + (len(sq) - common)) / (len(sp) + len(sq)))


def tree_channel(a: Sequence[FileChange], b: Sequence[FileChange]) -> float:
    """``1 - min`` tree distance over all cross pairs, starting from 1 (no files gives 0)."""
    smallest = 1.0
    for fa in a:
        for fb in b:
            smallest = min(smallest, tree_distance(fa.path, fb.path))
    return 1.0 - smallest


def pair_channels(
    a: Sequence[FileChange],
    b: Sequence[FileChange],
    adjacency: Adjacency,
    *,
    gamma: float = 0.5,
    cap: int = 6,
) -> tuple[float, float, float]:
    """The three ecc-v0 channels ``(overlap, dependency, tree)`` for agents A and B."""
    return (
        overlap_channel(a, b),
        dependency_channel(a, b, adjacency, gamma=gamma, cap=cap),
        tree_channel(a, b),
    )


def pair_risk(channels: Sequence[float], weights: Sequence[float]) -> float:
    return noisy_or(weights, channels)
