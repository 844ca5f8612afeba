"""radar-v1, vectorised: the same numbers as :mod:`.reference_radar` for a whole airspace.

Agents are paired only through shared base-side files (overlap, adjacency), coupled files
within the dependency cap on the undirected whole-repository graph, intent prefixes, supplied
conflicts, and shared directories (tree, via the trie).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.coupling import (
    compiled_graph,
    coupled_files,
    dependency_matrix,
    node_ids,
)
from proximity.engine.airspace.crossing import (
    block_intervals,
    pair_intervals,
    ragged_cross,
)
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.paths import path_segments
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.radar_arrays import RadarArrays, Twins, radar_arrays
from proximity.engine.airspace.reference_radar import conflict_pairs
from proximity.engine.airspace.table import PairTable, all_pairs
from proximity.engine.airspace.treeindex import tree_min_matrix

__all__ = ["score_radar_fast"]

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
_BLOCK = 48  # groups this large (hot files) are scored as one dense block


def _write(
    out: Floats, agent_x: Ints, agent_y: Ints, values: Floats, mask: NDArray[np.bool_] | None = None
) -> None:
    if mask is not None:
        agent_x, agent_y, values = agent_x[mask], agent_y[mask], values[mask]
    np.maximum.at(out.reshape(-1), agent_x * out.shape[0] + agent_y, values)


def _overlap_adjacency(
    arrays: RadarArrays, n: int, floor: float | None, focus: int | None = None
) -> tuple[Floats, Floats]:
    """Units (agent, base key) sharing a key, as pairs for small groups and blocks for hot ones;
    with ``focus``, only the pairs of that agent (a hot group is then its units against the
    rest, which needs no block)."""
    overlap, adjacency = np.zeros((n, n)), np.zeros((n, n))
    agent, key, sticky = arrays.unit_agent, arrays.unit_key, arrays.unit_overlap_weight
    if len(agent) == 0:
        return overlap, adjacency
    order = np.lexsort((agent, key))
    ptr = np.searchsorted(key[order], np.arange(int(key.max()) + 2)).astype(np.int64)
    size = np.diff(ptr)
    interval_sets, whole = arrays.regions, arrays.unit_whole
    group, kx, ky = ragged_cross(np.where(size < _BLOCK, size, 0), np.where(size < _BLOCK, size, 0))
    x, y = order[ptr[group] + kx], order[ptr[group] + ky]
    keep = agent[x] < agent[y]
    if focus is not None:
        keep &= (agent[x] == focus) | (agent[y] == focus)
    x, y = x[keep], y[keep]
    inter, touch = pair_intervals(interval_sets, x, y)
    fields = (agent, sticky, whole, interval_sets.size, arrays.twins)
    _score(overlap, adjacency, fields, x, y, inter, touch, floor)
    for g in np.flatnonzero(size >= _BLOCK).tolist():
        members = order[ptr[g] : ptr[g + 1]]
        if focus is not None:
            x, y = _against(members, agent, focus)
            inter, touch = pair_intervals(interval_sets, x, y)
            _score(overlap, adjacency, fields, x, y, inter, touch, floor)
            continue
        block, near = block_intervals(interval_sets, members, members)
        bx, by = np.triu_indices(len(members), k=1)
        bx_units, by_units, shared = members[bx], members[by], block[bx, by]
        # "near" (gap <= 2) over-approximates touching; refine those few pairs exactly.
        check = near[bx, by] & (shared == 0)
        touching = np.zeros(len(bx_units), dtype=bool)
        touching[check] = pair_intervals(interval_sets, bx_units[check], by_units[check])[1]
        _score(overlap, adjacency, fields, bx_units, by_units, shared, touching, floor)
    return overlap, adjacency


def _against(members: Ints, agent: Ints, focus: int) -> tuple[Ints, Ints]:
    """Every unit of ``focus`` in ``members`` against every other agent's, as ``(x, y)`` unit
    pairs with ``agent[x] < agent[y]``."""
    mine, rest = members[agent[members] == focus], members[agent[members] != focus]
    ours, theirs = np.repeat(mine, len(rest)), np.tile(rest, len(mine))
    first = agent[theirs] < focus
    return np.where(first, theirs, ours), np.where(first, ours, theirs)


def _score(
    overlap: Floats,
    adjacency: Floats,
    fields: tuple[Ints, Floats, NDArray[np.bool_], Ints, Twins | None],
    x: Ints,
    y: Ints,
    inter: NDArray[np.float64] | Ints,
    near: NDArray[np.bool_],
    floor: float | None,
) -> None:
    agent, sticky, whole, size, twins = fields
    smallest = np.maximum(np.minimum(size[x], size[y]), 1)
    coefficient = np.where(whole[x] | whole[y], 1.0, inter / smallest)
    if twins is not None:
        # pairs that made a hunk identically: their channels without it (few, precomputed)
        codes = np.minimum(x, y) * len(whole) + np.maximum(x, y)
        at = np.minimum(np.searchsorted(twins.codes, codes), len(twins.codes) - 1)
        hit = twins.codes[at] == codes
        coefficient = np.where(hit, twins.coefficient[at], coefficient)
        near = np.where(hit, twins.touching[at], near)
    if floor is not None:
        coefficient = np.where(coefficient > 0, np.maximum(coefficient, floor), coefficient)
    _write(overlap, agent[x], agent[y], sticky[x] * sticky[y] * coefficient)
    # Abutting lines conflict in git as surely as shared ones, however old: the overlap's floor.
    _write(adjacency, agent[x], agent[y], sticky[x] * sticky[y], (coefficient == 0) & near)


def _dependency(airspace: Airspace, arrays: RadarArrays, n: int, settings: Settings) -> Floats:
    if not arrays.paths or not any(airspace.adjacency.values()):
        return np.zeros((n, n))  # no edges, no coupling (and no sparse matrices to build)
    graph = compiled_graph(airspace.adjacency)
    nodes = node_ids(graph, arrays.paths)
    cap, both = settings.dependency_cap, graph.undirected
    coupled = coupled_files(both, both, nodes, cap=cap, upper_only=True)
    return dependency_matrix(coupled, arrays.holders, n, gamma=settings.dep_decay)


def _holdings(arrays: RadarArrays) -> tuple[list[int], list[str], list[float]]:
    """(agent, path, weight) per distinct file of each agent."""
    ptr = arrays.holders.ptr
    path_of = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr)).tolist()
    return (
        arrays.holders.agent.tolist(),
        [arrays.paths[p] for p in path_of],
        arrays.holders.weight.tolist(),
    )


def _intent(arrays: RadarArrays, n: int) -> Floats:
    out = np.zeros((n, n))
    if not any(arrays.intent):
        return out
    under: dict[tuple[str, ...], dict[int, float]] = {}
    for a, path, w in zip(*_holdings(arrays), strict=True):
        segments = path_segments(path)
        for level in range(1, len(segments) + 1):
            slot = under.setdefault(segments[:level], {})
            slot[a] = max(w, slot.get(a, 0.0))
    declared = [(a, path_segments(p)) for a, paths in enumerate(arrays.intent) for p in paths]
    for a, prefix in declared:
        for b, w in under.get(prefix, {}).items():
            if a != b:
                out[a, b] = out[b, a] = max(out[a, b], w)
        for b, other in declared:
            near = other[: len(prefix)] == prefix or prefix[: len(other)] == other
            if a != b and near:
                out[a, b] = out[b, a] = 1.0
    return out


def _conflicts(airspace: Airspace) -> Floats:
    n = len(airspace.agents)
    out = np.zeros((n, n))
    index = {a.agent_id: k for k, a in enumerate(airspace.agents)}
    for pair in conflict_pairs(airspace):
        a, b = sorted(pair)
        if a in index and b in index:
            out[index[a], index[b]] = out[index[b], index[a]] = 1.0
    return out


def _tree(arrays: RadarArrays, n: int) -> Floats:
    agent, paths, _ = _holdings(arrays)
    return 1.0 - tree_min_matrix(agent, paths, n, leaf=False)


def score_radar_fast(
    airspace: Airspace, settings: Settings, now_ms: float, *, focus: int | None = None
) -> PairTable:
    """radar-v1 channels for every pair with a non-zero channel, ``i < j`` in input order;
    with ``focus`` (an agent's index), only that agent's pairs, with the same values."""
    arrays = radar_arrays(airspace, now_ms, overlap_floor=settings.overlap_recency_floor)
    n = len(airspace.agents)
    overlap, adjacency = _overlap_adjacency(arrays, n, settings.overlap_floor, focus)
    matrices = (
        _conflicts(airspace),
        overlap,
        adjacency,
        _dependency(airspace, arrays, n, settings),
        _intent(arrays, n),
        _tree(arrays, n),
    )
    i, j = all_pairs(n)
    if focus is not None:
        mine = (i == focus) | (j == focus)
        i, j = i[mine], j[mine]
    channels = np.stack([np.clip(m[i, j], 0.0, 1.0) for m in matrices], axis=1)
    keep = channels.any(axis=1)
    return PairTable(i[keep], j[keep], channels[keep])
