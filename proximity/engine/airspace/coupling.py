"""Dependency coupling at scale: capped BFS from every touched file at once (fixes W7).

Instead of two BFS runs per file pair per agent pair, one frontier expansion per hop (a sparse
matrix product) finds, for every touched file, the touched files within the cap. Agent pairs
then come from an inverted index file -> agents, so cost follows the number of coupled file
pairs times their holders, not N^2 F^2.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import cached_property
from itertools import pairwise
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix

from proximity.engine.airspace.crossing import ragged_cross, ragged_range
from proximity.engine.airspace.layout import Universe

__all__ = [
    "CompiledGraph",
    "CoupledFiles",
    "FileHolders",
    "compiled_graph",
    "coupled_files",
    "coupled_files_meeting",
    "dependency_matrix",
    "node_ids",
    "release_scratch",
]

Ints = NDArray[np.int64]
_CHUNK_ROWS = 512
_CHUNK_CONTRIBUTIONS = 4_000_000
MEETING_LIMIT = 2000
"""Up to this many touched files, coupled pairs are found by meeting in the middle."""


class CoupledFiles(NamedTuple):
    """Touched file pairs ``(f, g)``, ``f != g``, at hop distance ``d`` (both orders listed)."""

    f: Ints
    g: Ints
    d: Ints


class FileHolders(NamedTuple):
    """Inverted index, CSR over touched files: the agents holding each file and their weight."""

    ptr: Ints
    agent: Ints
    weight: NDArray[np.float64]


class CompiledGraph:
    """A repository graph as sparse matrices, built once and shared by every scan using it."""

    def __init__(self, adjacency: Mapping[str, Sequence[str]]) -> None:
        ids: dict[str, int] = {}
        for source, targets in adjacency.items():
            ids.setdefault(source, len(ids))
            for target in targets:
                ids.setdefault(target, len(ids))
        rows = np.array([ids[s] for s, ts in adjacency.items() for _ in ts], dtype=np.int64)
        cols = np.array([ids[t] for ts in adjacency.values() for t in ts], dtype=np.int64)
        self.ids = ids
        self.names = list(ids)
        self.forward = _matrix(rows, cols, len(ids))
        self.backward = self.forward.T.tocsr()
        self.undirected = _matrix(np.r_[rows, cols], np.r_[cols, rows], len(ids))

    @cached_property
    def universe(self) -> Universe:
        """Tree order of every graph node, for the radar-v1 layout."""
        return Universe(self.names)

    def touched_edges(self, paths: Sequence[str]) -> tuple[Ints, Ints]:
        """Undirected edges between touched paths, as (row, row) pairs in ``paths``."""
        nodes = node_ids(self, paths)
        present = np.flatnonzero(nodes >= 0)
        column_of = np.full(len(self.names), -1, dtype=np.int64)
        column_of[nodes[present]] = present
        indptr, indices = self.undirected.indptr, self.undirected.indices
        degree = (indptr[nodes[present] + 1] - indptr[nodes[present]]).astype(np.int64)
        item, k = ragged_range(degree)
        target = column_of[indices[indptr[nodes[present]][item] + k]]
        keep = target >= 0
        return present[item][keep], target[keep]


def _matrix(rows: Ints, cols: Ints, n: int) -> csr_matrix:
    keep = rows != cols
    data = np.ones(int(keep.sum()), dtype=np.float32)
    matrix = csr_matrix((data, (rows[keep], cols[keep])), shape=(n, n))
    matrix.data[:] = 1.0
    return matrix


_CACHE: dict[int, tuple[Mapping[str, Sequence[str]], CompiledGraph]] = {}


def compiled_graph(adjacency: Mapping[str, Sequence[str]]) -> CompiledGraph:
    """The compiled form of ``adjacency``, memoised on the mapping's identity.

    Parsed graphs are never mutated, so identity is a safe key; the cache holds the mapping
    itself so its id cannot be reused while cached, and keeps the last few graphs only.
    """
    hit = _CACHE.get(id(adjacency))
    if hit is not None and hit[0] is adjacency:
        return hit[1]
    compiled = CompiledGraph(adjacency)
    if len(_CACHE) >= 4:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[id(adjacency)] = (adjacency, compiled)
    return compiled


class _Scratch:
    """Visited bitmap and dedupe stamps for one chunk of sources, reused chunk after chunk.

    Reuse matters: a fresh 40 MB bitmap per chunk costs more in page faults than the BFS.
    """

    def __init__(self, rows: int, n: int) -> None:
        self.visited = np.zeros(rows * n, dtype=np.bool_)
        self.stamp = np.empty(rows * n, dtype=np.int32)


_LOCAL = threading.local()


def _scratch(rows: int, n: int) -> _Scratch:
    """A scratch buffer big enough for ``rows`` x ``n``, reused by later scans in this thread.

    Thread-local because scans may run concurrently in threads; each BFS leaves the bitmap
    all-False again, so reuse needs no clearing.
    """
    cached: _Scratch | None = getattr(_LOCAL, "scratch", None)
    if cached is None or len(cached.visited) < rows * n:
        cached = _Scratch(rows, n)
        _LOCAL.scratch = cached
    return cached


def release_scratch() -> None:
    """Drop this thread's BFS scratch buffers (for memory measurements and long idle spells)."""
    _LOCAL.__dict__.pop("scratch", None)


def _levels(
    matrix: csr_matrix, sources: Ints, column_of: Ints, cap: int, scratch: _Scratch
) -> list[Ints]:
    """Level-synchronous BFS of many sources at once; a state is (row, node), key row*n+node."""
    n = matrix.shape[0]
    indptr, indices = matrix.indptr, matrix.indices
    visited, stamp = scratch.visited, scratch.stamp
    row = np.arange(len(sources), dtype=np.int64)
    node = sources.astype(np.int64)
    touched = [row * n + node]
    visited[touched[0]] = True
    found: list[Ints] = []
    try:
        for depth in range(1, cap + 1):
            item, k = ragged_range((indptr[node + 1] - indptr[node]).astype(np.int64))
            row, node = row[item], indices[indptr[node][item] + k].astype(np.int64)
            keys = row * n + node
            fresh = ~visited[keys]
            row, node, keys = row[fresh], node[fresh], keys[fresh]
            order = np.arange(len(keys), dtype=np.int32)
            stamp[keys] = order
            first = stamp[keys] == order
            row, node, keys = row[first], node[first], keys[first]
            if len(keys) == 0:
                break
            visited[keys] = True
            touched.append(keys)
            target = column_of[node]
            keep = target >= 0
            level = np.full(int(keep.sum()), depth, dtype=np.int64)
            found.append(np.stack([row[keep], target[keep], level]))
    finally:
        # Leave the shared bitmap all-False even on error, so the next scan may reuse it.
        for keys in touched:
            visited[keys] = False
    return found


def coupled_files(
    matrix: csr_matrix, node_of: Ints, *, cap: int, upper_only: bool = False
) -> CoupledFiles:
    """Hop distance along ``matrix`` from each touched file to each touched file within ``cap``.

    ``node_of[k]`` is the graph node of touched file ``k`` (-1 when the graph does not know it).
    ``upper_only`` keeps ``f < g`` only, for a symmetric matrix where the rest is redundant.
    """
    present = np.flatnonzero(node_of >= 0)
    column_of = np.full(matrix.shape[0], -1, dtype=np.int64)
    column_of[node_of[present]] = present
    parts: list[Ints] = [np.zeros((3, 0), dtype=np.int64)]
    scratch = _scratch(min(_CHUNK_ROWS, len(present)), matrix.shape[0])
    for first in range(0, len(present), _CHUNK_ROWS):
        chunk = present[first : first + _CHUNK_ROWS]
        for level in _levels(matrix, node_of[chunk], column_of, cap, scratch):
            level[0] = chunk[level[0]]
            parts.append(level[:, level[0] < level[1]] if upper_only else level)
    table = np.concatenate(parts, axis=1)
    return CoupledFiles(table[0], table[1], table[2])


def _ball(matrix: csr_matrix, nodes: Ints, radius: int) -> tuple[Ints, Ints, Ints]:
    """Every node within ``radius`` hops of each source: (source row, node, hops), hops >= 0."""
    n = matrix.shape[0]
    identity = np.arange(n, dtype=np.int64)
    rows, found, hops = [np.arange(len(nodes))], [nodes.astype(np.int64)], [np.zeros(len(nodes))]
    scratch = _scratch(max(1, min(_CHUNK_ROWS, len(nodes))), n)
    for first in range(0, len(nodes), _CHUNK_ROWS):
        for level in _levels(matrix, nodes[first : first + _CHUNK_ROWS], identity, radius, scratch):
            rows.append(level[0] + first)
            found.append(level[1])
            hops.append(level[2])
    return (
        np.concatenate(rows).astype(np.int64),
        np.concatenate(found).astype(np.int64),
        np.concatenate(hops).astype(np.int64),
    )


def coupled_files_meeting(
    forward: csr_matrix, backward: csr_matrix, node_of: Ints, *, cap: int, upper_only: bool = False
) -> CoupledFiles:
    """Same pairs as :func:`coupled_files` (possibly repeated, never closer than the truth),
    found by meeting in the middle: balls of radius ceil(cap/2) forward from every touched
    file and floor(cap/2) backward from every touched file, joined on the shared node.

    A shortest path of length d <= cap has a node at ceil(d/2) hops from its start, so the
    smallest ``d1 + d2`` over the shared nodes is the distance; larger sums only repeat a pair
    at a weaker coupling, which the max in :func:`dependency_matrix` ignores. Cheap when few
    files are touched: each ball holds about degree**(cap/2) nodes instead of degree**cap.
    """
    present = np.flatnonzero(node_of >= 0)
    out_row, out_node, out_hops = _ball(forward, node_of[present], (cap + 1) // 2)
    in_row, in_node, in_hops = _ball(backward, node_of[present], cap // 2)
    n = forward.shape[0]
    out_order, in_order = np.argsort(out_node, kind="stable"), np.argsort(in_node, kind="stable")
    out_ptr = np.searchsorted(out_node[out_order], np.arange(n + 1))
    in_ptr = np.searchsorted(in_node[in_order], np.arange(n + 1))
    group, k_out, k_in = ragged_cross(np.diff(out_ptr), np.diff(in_ptr))
    left = out_order[out_ptr[group] + k_out]
    right = in_order[in_ptr[group] + k_in]
    f, g = present[out_row[left]], present[in_row[right]]
    d = out_hops[left] + in_hops[right]
    keep = (f != g) & (d >= 1) & (d <= cap)
    if upper_only:
        keep &= f < g
    return CoupledFiles(f[keep], g[keep], d[keep])


def dependency_matrix(
    coupled: CoupledFiles, holders: FileHolders, n_agents: int, *, gamma: float
) -> NDArray[np.float64]:
    """``R[a, b] = max w_f * w_g * gamma**(d - 1)`` over coupled files ``f`` of a, ``g`` of b.

    Symmetric: each coupled pair is expanded in one orientation and the matrix is then
    folded with its transpose, so ``coupled`` may list a pair once or in both orders.
    """
    out = np.zeros((n_agents, n_agents))
    count = np.diff(holders.ptr)
    size = count[coupled.f] * count[coupled.g]
    coupling = gamma ** (coupled.d.astype(np.float64) - 1.0)
    if not size.sum():
        return out
    cuts = np.searchsorted(np.cumsum(size), np.arange(0, size.sum(), _CHUNK_CONTRIBUTIONS))
    bounds = [*cuts.tolist(), len(size)]
    for lo, hi in pairwise(bounds):
        _expand(coupled, holders, coupling, slice(int(lo), int(hi)), out)
    folded: NDArray[np.float64] = np.maximum(out, out.T)
    return folded


def _expand(
    coupled: CoupledFiles,
    holders: FileHolders,
    coupling: NDArray[np.float64],
    part: slice,
    out: NDArray[np.float64],
) -> None:
    f, g = coupled.f[part], coupled.g[part]
    count = np.diff(holders.ptr)
    pair, kf, kg = ragged_cross(count[f], count[g])
    ia, ib = holders.ptr[f][pair] + kf, holders.ptr[g][pair] + kg
    values = holders.weight[ia] * holders.weight[ib] * coupling[part][pair]
    np.maximum.at(out.reshape(-1), holders.agent[ia] * out.shape[0] + holders.agent[ib], values)


def node_ids(graph: CompiledGraph, paths: Sequence[str]) -> Ints:
    """Graph node of each touched path, -1 for paths the graph does not contain."""
    return np.array([graph.ids.get(p, -1) for p in paths], dtype=np.int64)
