"""ecc-v0, vectorised: the same numbers as :mod:`.reference_ecc` for a whole airspace at once.

Overlap runs over the inverted index path -> entries (only agents sharing a file are paired);
dependency over coupled file pairs found by meeting in the middle, in one direction (the
reference's min of two directed distances comes from symmetrising); tree over the path-prefix
trie. Every value is computed with the reference's floating-point operations, in another order
where it saves work, so results agree to the last bit except for non-power-of-two ``depDecay``
(within 1e-12).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.coupling import (
    CoupledFiles,
    FileHolders,
    compiled_graph,
    coupled_files,
    dependency_matrix,
    node_ids,
)
from proximity.engine.airspace.crossing import (
    IntervalSets,
    block_intervals,
    pair_intervals,
    ragged_cross,
)
from proximity.engine.airspace.embedding import touched_files
from proximity.engine.airspace.lines import merge_ranges
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.table import PairTable, all_pairs
from proximity.engine.airspace.treeindex import tree_min_matrix

__all__ = ["holders_of", "score_ecc_fast"]

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
_BLOCK = 48  # paths with this many entries (hot files) are scored as one dense block


def holders_of(path: Ints, agent: Ints, weight: Floats, n_paths: int) -> FileHolders:
    """Inverted index with one row per (path, agent), keeping the largest weight."""
    order = np.lexsort((-weight, agent, path))
    path, agent, weight = path[order], agent[order], weight[order]
    first = np.ones(len(path), dtype=bool)
    first[1:] = (path[1:] != path[:-1]) | (agent[1:] != agent[:-1])
    path, agent, weight = path[first], agent[first], weight[first]
    ptr = np.searchsorted(path, np.arange(n_paths + 1)).astype(np.int64)
    return FileHolders(ptr, agent, weight)


def _entries(
    airspace: Airspace, pid: dict[str, int]
) -> tuple[Ints, Ints, Floats, list[list[tuple[int, int]]]]:
    agent, path, weight, lines = [], [], [], []
    for a, member in enumerate(airspace.agents):
        for f in member.files:
            agent.append(a)
            path.append(pid[f.path])
            weight.append(f.reference_weight)
            lines.append(merge_ranges(f.lines or ()))
    return (
        np.array(agent, dtype=np.int64),
        np.array(path, dtype=np.int64),
        np.array(weight, dtype=np.float64),
        lines,
    )


def _overlap(
    agent: Ints, path: Ints, weight: Floats, lines: list[list[tuple[int, int]]], n: int
) -> Floats:
    """A's every entry against B's last entry of the same path, as the reference."""
    out = np.zeros((n, n))
    if len(agent) == 0:
        return out
    rows = np.lexsort((np.arange(len(agent)), agent, path))
    later = np.ones(len(rows), dtype=bool)
    later[:-1] = (path[rows][1:] != path[rows][:-1]) | (agent[rows][1:] != agent[rows][:-1])
    cols = rows[later]
    n_paths = int(path.max()) + 1
    row_ptr = np.searchsorted(path[rows], np.arange(n_paths + 1)).astype(np.int64)
    col_ptr = np.searchsorted(path[cols], np.arange(n_paths + 1)).astype(np.int64)
    small = np.diff(row_ptr) < _BLOCK
    group, kr, kc = ragged_cross(
        np.where(small, np.diff(row_ptr), 0), np.where(small, np.diff(col_ptr), 0)
    )
    sets = IntervalSets.from_lists(lines)
    r, c = rows[row_ptr[group] + kr], cols[col_ptr[group] + kc]
    _write(out, (agent, weight, sets), r, c, pair_intervals(sets, r, c)[0])
    for p in np.flatnonzero(~small).tolist():
        r_all, c_all = rows[row_ptr[p] : row_ptr[p + 1]], cols[col_ptr[p] : col_ptr[p + 1]]
        block = block_intervals(sets, r_all, c_all)[0]
        gr, gc = np.meshgrid(np.arange(len(r_all)), np.arange(len(c_all)), indexing="ij")
        _write(out, (agent, weight, sets), r_all[gr.ravel()], c_all[gc.ravel()], block.ravel())
    return out


def _write(
    out: Floats, fields: tuple[Ints, Floats, IntervalSets], r: Ints, c: Ints, inter: Floats | Ints
) -> None:
    agent, weight, sets = fields
    keep = agent[r] < agent[c]
    r, c, inter = r[keep], c[keep], inter[keep]
    whole = (sets.size[r] == 0) | (sets.size[c] == 0)
    smallest = np.maximum(np.minimum(sets.size[r], sets.size[c]), 1)
    ratio = np.where(whole, 1.0, inter / smallest)
    flat = agent[r] * out.shape[0] + agent[c]
    np.maximum.at(out.reshape(-1), flat, weight[r] * weight[c] * ratio)


def _coupled(airspace: Airspace, paths: list[str], cap: int) -> CoupledFiles:
    # One direction suffices: the other lists exactly the transposed pairs, and
    # dependency_matrix symmetrises, which takes the smaller of the two directed distances.
    graph = compiled_graph(airspace.adjacency)
    return coupled_files(graph.forward, graph.backward, node_ids(graph, paths), cap=cap)


def score_ecc_fast(airspace: Airspace, settings: Settings) -> PairTable:
    """ecc-v0 channels for every pair ``i < j`` in input order."""
    n = len(airspace.agents)
    paths = touched_files(airspace.agents)
    pid = {p: k for k, p in enumerate(paths)}
    agent, path, weight, lines = _entries(airspace, pid)
    overlap = _overlap(agent, path, weight, lines, n)
    holders = holders_of(path, agent, weight, len(paths))
    coupled = _coupled(airspace, paths, settings.dependency_cap)
    dependency = dependency_matrix(coupled, holders, n, gamma=settings.dep_decay)
    tree = tree_min_matrix(holders.agent.tolist(), [paths[p] for p in _path_of(holders)], n)
    i, j = all_pairs(n)
    channels = np.stack(
        [np.clip(overlap[i, j], 0, 1), np.clip(dependency[i, j], 0, 1), 1.0 - tree[i, j]], axis=1
    )
    return PairTable(i, j, channels)


def _path_of(holders: FileHolders) -> list[int]:
    return np.repeat(np.arange(len(holders.ptr) - 1), np.diff(holders.ptr)).tolist()
