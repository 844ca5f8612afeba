"""Tree channel for all agent pairs through the path-prefix trie (no F^2 comparisons).

For a pair of agents, the smallest tree distance over their cross file pairs is reached at some
shared trie node (a common path prefix of depth L). At that node only each agent's shallowest
file below it matters, since ``((da - L) + (db - L)) / (da + db)`` grows with ``da + db``; so
``min`` over shared nodes of that value, computed on the same integers as the reference, equals
the reference's ``min`` over file pairs exactly (ECC-PROXIMITY.md section 2, channel 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.crossing import ragged_cross, ragged_range
from proximity.engine.airspace.paths import path_segments

__all__ = ["tree_min_matrix"]

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
_BLOCK = 64


@lru_cache(maxsize=262144)
def _prefixes(path: str, leaf: bool) -> tuple[str, ...]:
    """Trie nodes above a file (its folders, and itself when ``leaf``), as joined strings."""
    segments = path_segments(path)
    top = len(segments) if leaf else len(segments) - 1
    return tuple("/".join(segments[:k]) for k in range(1, top + 1))


def _node_rows(
    agent: Sequence[int], paths: Sequence[str], *, leaf: bool
) -> tuple[Ints, Ints, Ints, Ints]:
    """One row per (agent, trie node above one of its files): agent, node, level, file depth."""
    nodes: dict[str, int] = {}
    distinct: dict[str, int] = {}
    per_path: list[list[int]] = []
    for path in paths:
        if path not in distinct:
            distinct[path] = len(per_path)
            per_path.append([nodes.setdefault(p, len(nodes)) for p in _prefixes(path, leaf)])
    which = np.array([distinct[p] for p in paths], dtype=np.int64)
    count = np.array([len(x) for x in per_path], dtype=np.int64)
    ptr = np.r_[0, np.cumsum(count)].astype(np.int64)
    flat = np.array([n for x in per_path for n in x], dtype=np.int64)
    depth_of = np.array([len(path_segments(p)) for p in distinct], dtype=np.int64)
    item, k = ragged_range(count[which])
    source = which[item]
    return (
        np.asarray(agent, dtype=np.int64)[item],
        flat[ptr[source] + k],
        k + 1,
        depth_of[source],
    )


def _shallowest(agent: Ints, node: Ints, level: Ints, depth: Ints) -> tuple[Ints, Ints, Ints, Ints]:
    order = np.lexsort((depth, agent, node))
    agent, node, level, depth = agent[order], node[order], level[order], depth[order]
    first = np.ones(len(node), dtype=bool)
    first[1:] = (node[1:] != node[:-1]) | (agent[1:] != agent[:-1])
    return agent[first], node[first], level[first], depth[first]


def _value(level: Floats, da: Floats, db: Floats) -> Floats:
    result: Floats = ((da - level) + (db - level)) / (da + db)
    return result


class _Codes:
    """Every value the formula can take, ranked, so the matrix holds 2-byte ranks, not floats.

    ``min`` over ranks is ``min`` over values, and decoding returns the exact float the
    reference computes from the same integers.
    """

    def __init__(self, max_level: int, max_depth: int) -> None:
        levels, sums = np.meshgrid(
            np.arange(1, max_level + 1), np.arange(2, 2 * max_depth + 1), indexing="ij"
        )
        ok = sums >= 2 * levels
        values = _value(levels[ok].astype(float), np.zeros(1), sums[ok].astype(float))
        self.table = np.unique(np.r_[values, 1.0])
        self.lookup = np.full((max_level + 1, 2 * max_depth + 1), len(self.table) - 1)
        self.lookup[levels[ok], sums[ok]] = np.searchsorted(self.table, values)
        self.none = len(self.table) - 1

    def code(self, level: Ints, da: Ints, db: Ints) -> NDArray[np.uint16]:
        ranked: NDArray[np.uint16] = self.lookup[level, da + db].astype(np.uint16)
        return ranked


def tree_min_matrix(
    agent: Sequence[int], paths: Sequence[str], n_agents: int, *, leaf: bool = True
) -> Floats:
    """``T[a, b]`` = the smallest tree distance between a file of a and a file of b (1 if none).

    ``leaf=False`` drops the file-name node (radar-v1: two agents in one file count as siblings).
    Symmetric; read either triangle.
    """
    a, node, level, depth = _shallowest(*_node_rows(agent, paths, leaf=leaf))
    if len(node) == 0:
        return np.ones((n_agents, n_agents))
    codes = _Codes(int(level.max()), int(depth.max()))
    out = np.full((n_agents, n_agents), codes.none, dtype=np.uint16)
    starts = np.r_[0, np.flatnonzero(node[1:] != node[:-1]) + 1, len(node)].astype(np.int64)
    size = np.diff(starts)
    small = np.where((size >= 2) & (size <= _BLOCK), size, 0)
    group, kx, ky = ragged_cross(small, small)
    x, y = starts[group] + kx, starts[group] + ky
    keep = a[x] < a[y]
    x, y = x[keep], y[keep]
    flat = out.reshape(-1)
    np.minimum.at(flat, a[x] * n_agents + a[y], codes.code(level[x], depth[x], depth[y]))
    for k in np.flatnonzero(size > _BLOCK).tolist():
        _block(out, codes, a, level, depth, slice(int(starts[k]), int(starts[k + 1])))
    folded = np.minimum(out, out.T)
    return codes.table[folded]


def _block(
    out: NDArray[np.uint16], codes: _Codes, a: Ints, level: Ints, depth: Ints, members: slice
) -> None:
    """One hot trie node: agents grouped by their shallowest depth, one scalar per group pair."""
    who, m = a[members], depth[members]
    at = int(level[members.start])
    groups = [who[m == d] for d in np.unique(m).tolist()]
    values = np.unique(m).tolist()
    for gi, di in zip(groups, values, strict=True):
        for gj, dj in zip(groups, values, strict=True):
            if di <= dj:
                grid = np.ix_(gi, gj)
                out[grid] = np.minimum(out[grid], codes.lookup[at, di + dj])
