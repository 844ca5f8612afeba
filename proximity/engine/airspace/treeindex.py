"""Tree channel for all agent pairs through the path-prefix trie (no F^2 comparisons).

For a pair of agents, the smallest tree distance over their cross file pairs is reached at some
shared trie node (a common path prefix of depth L). At that node only each agent's shallowest
file below it matters, since ``((da - L) + (db - L)) / (da + db)`` grows with ``da + db``; so
``min`` over shared nodes of that value, computed on the same integers as the reference, equals
the reference's ``min`` over file pairs exactly (ECC-PROXIMITY.md section 2, channel 3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.crossing import ragged_cross
from proximity.engine.airspace.paths import path_segments

__all__ = ["tree_min_matrix"]

Ints = NDArray[np.int64]
_BLOCK = 256


def _node_rows(
    agent: Sequence[int], paths: Sequence[str], *, leaf: bool
) -> tuple[Ints, Ints, Ints, Ints]:
    """One row per (agent, trie node above one of its files): agent, node, level, file depth."""
    nodes: dict[tuple[str, ...], int] = {}
    distinct: dict[str, int] = {}
    per_path: list[list[int]] = []
    for path in paths:
        if path not in distinct:
            distinct[path] = len(per_path)
            segments = path_segments(path)
            top = len(segments) if leaf else len(segments) - 1
            per_path.append([nodes.setdefault(segments[:k], len(nodes)) for k in range(1, top + 1)])
    which = np.array([distinct[p] for p in paths], dtype=np.int64)
    count = np.array([len(x) for x in per_path], dtype=np.int64)
    ptr = np.r_[0, np.cumsum(count)].astype(np.int64)
    flat = np.array([n for x in per_path for n in x], dtype=np.int64)
    depth_of = np.array([len(path_segments(p)) for p in distinct], dtype=np.int64)
    item, _, k = ragged_cross(np.ones_like(which), count[which])
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
    first = np.r_[True, (node[1:] != node[:-1]) | (agent[1:] != agent[:-1])]
    return agent[first], node[first], level[first], depth[first]


def _value(
    level: NDArray[np.float64], da: NDArray[np.float64], db: NDArray[np.float64]
) -> NDArray[np.float64]:
    result: NDArray[np.float64] = ((da - level) + (db - level)) / (da + db)
    return result


def tree_min_matrix(
    agent: Sequence[int], paths: Sequence[str], n_agents: int, *, leaf: bool = True
) -> NDArray[np.float64]:
    """``T[a, b]`` = the smallest tree distance between a file of a and a file of b (1 if none).

    ``leaf=False`` drops the file-name node (radar-v1: two agents in one file count as siblings).
    """
    out = np.ones((n_agents, n_agents))
    a, node, level, depth = _shallowest(*_node_rows(agent, paths, leaf=leaf))
    starts = np.r_[0, np.flatnonzero(node[1:] != node[:-1]) + 1, len(node)].astype(np.int64)
    size = np.diff(starts)
    small = np.flatnonzero((size >= 2) & (size <= _BLOCK))
    pair, kx, ky = ragged_cross(size[small], size[small])
    x, y = starts[small][pair] + kx, starts[small][pair] + ky
    keep = a[x] < a[y]
    x, y = x[keep], y[keep]
    values = _value(level[x].astype(float), depth[x].astype(float), depth[y].astype(float))
    np.minimum.at(out, (a[x], a[y]), values)
    for k in np.flatnonzero(size > _BLOCK).tolist():
        members = slice(int(starts[k]), int(starts[k + 1]))
        who, m = a[members], depth[members].astype(float)
        block = _value(np.full(1, float(level[starts[k]])), m[:, None], m[None, :])
        grid = np.ix_(who, who)
        out[grid] = np.minimum(out[grid], block)
    return out
