"""Dependency coupling at scale: every touched file's capped distances at once (fixes W7).

Instead of two BFS runs per file pair per agent pair, small balls around every touched file
joined by one sparse product find, for every touched file, the touched files within the cap.
Agent pairs then come through an inverted index file -> agents and each agent's field on the
touched files, so cost follows the coupled file pairs times the holders of one side, not N^2 F^2.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import cached_property
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

from proximity.engine.airspace.crossing import ragged_cross, ragged_range
from proximity.engine.airspace.layout import Universe

__all__ = [
    "CompiledGraph",
    "CoupledFiles",
    "FileHolders",
    "compiled_graph",
    "coupled_files",
    "dependency_matrix",
    "node_ids",
    "release_scratch",
]

Ints = NDArray[np.int64]
_CHUNK_ROWS = 512
_CHUNK_CONTRIBUTIONS = 1 << 19
_BLOCK_CELLS = 1 << 23
_EXPONENT_BUDGET = 1000
"""Bits of binary exponent the distance encoding may use (doubles stay normal to 2**-1022)."""
_EMPTY = np.zeros(0, dtype=np.int64)


class CoupledFiles(NamedTuple):
    """Touched file pairs ``(f, g)``, ``f != g``, at hop distance ``d``, grouped by ``f`` (CSR):
    the files coupled to ``f`` are ``g[ptr[f]:ptr[f + 1]]``. Narrow integer types where the
    values allow: there may be tens of millions of pairs."""

    ptr: Ints
    g: NDArray[np.integer[Any]]
    d: NDArray[np.integer[Any]]


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
    # scipy is imported where it is used: a pre-edit check on an empty graph never loads it.
    from scipy.sparse import csr_matrix

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
    forward: csr_matrix,
    backward: csr_matrix,
    node_of: Ints,
    *,
    cap: int,
    upper_only: bool = False,
) -> CoupledFiles:
    """Hop distance along ``forward`` from each touched file to each touched file within ``cap``.

    ``node_of[k]`` is the graph node of touched file ``k`` (-1 when the graph does not know it);
    ``backward`` is ``forward`` transposed. ``upper_only`` keeps ``f < g`` only, for a symmetric
    graph where the rest is redundant.

    Meeting in the middle, joined by one sparse product: a shortest path of length ``d <= cap``
    has a node ``ceil(d/2)`` hops from its start, so balls of radius ``ceil(cap/2)`` forward from
    every touched file and ``floor(cap/2)`` backward, joined on the shared node, find every pair.
    Each ball entry carries ``2**(-B * hops)``; the product sums ``2**(-B * (d1 + d2))`` over the
    shared nodes, and with ``2**B`` above any count of shared nodes the sum's binary exponent
    gives the smallest ``d1 + d2``, which is the distance. Each ball holds about
    ``degree**(cap/2)`` nodes instead of ``degree**cap``, and the product dedupes the pairs.
    """
    present = np.flatnonzero(node_of >= 0)
    n_files, n_nodes = len(node_of), forward.shape[0]
    bits = (n_nodes + 1).bit_length() + 1
    if cap < 1 or len(present) == 0:
        return CoupledFiles(np.zeros(n_files + 1, dtype=np.int64), _EMPTY, _EMPTY)
    if bits * cap > _EXPONENT_BUDGET:
        return _coupled_by_bfs(forward, node_of, cap=cap, upper_only=upper_only)
    from scipy.sparse import csr_matrix

    balls = []
    for matrix, radius in ((forward, (cap + 1) // 2), (backward, cap // 2)):
        row, node, hops = _ball(matrix, node_of[present], radius)
        values = np.ldexp(1.0, -bits * hops)
        balls.append(csr_matrix((values, (present[row], node)), shape=(n_files, n_nodes)))
    product = (balls[0] @ balls[1].T).tocsr()
    # The distance from the binary exponent, read straight from the bits through a table over
    # every biased exponent (the sums are positive normal doubles).
    biased = np.arange(2048, dtype=np.int64)
    table = (-((biased - 1023) // bits)).astype(np.int16)
    distance = table[product.data.view(np.int64) >> 52]
    keep = distance > 0  # only a file and itself meet at distance 0
    if upper_only:
        row = np.repeat(np.arange(n_files, dtype=product.indices.dtype), np.diff(product.indptr))
        keep &= product.indices > row
    dropped = np.flatnonzero(~keep)
    ptr = product.indptr - np.searchsorted(dropped, product.indptr)
    return CoupledFiles(ptr.astype(np.int64), product.indices[keep], distance[keep])


def _coupled_by_bfs(
    matrix: csr_matrix, node_of: Ints, *, cap: int, upper_only: bool = False
) -> CoupledFiles:
    """The same pairs by a capped BFS from every touched file, for caps too long to encode."""
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
    f, g, d = np.concatenate(parts, axis=1)
    order = np.argsort(f, kind="stable")
    ptr = np.searchsorted(f[order], np.arange(len(node_of) + 1)).astype(np.int64)
    return CoupledFiles(ptr, g[order], d[order])


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


def dependency_matrix(
    coupled: CoupledFiles, holders: FileHolders, n_agents: int, *, gamma: float
) -> NDArray[np.float64]:
    """``R[a, b] = max w_f * w_g * gamma**(d - 1)`` over coupled files ``f`` of a, ``g`` of b.

    Symmetric: pairs are expanded as listed and the matrix is folded with its transpose, so
    ``coupled`` may list a pair once or in both orders.

    Two evaluations with the same result, the cheaper one chosen from counts. *Pairwise*
    expands every coupled file pair into holders x holders: best when few pairs are coupled
    (radar-v1's short cap). *Through the field* expands each pair into the holders of one side,
    ``U[f, a] = max w_g * gamma**(d - 1)`` over the files ``g`` of ``a`` coupled to ``f``, then
    takes ``R[b, a] = max w_f * U[f, a]`` over the files ``f`` of ``b`` on dense rows of ``U``:
    best when many pairs are coupled and hot files have many holders (ecc-v0's 6 hops).
    """
    out = np.zeros((n_agents, n_agents))
    if len(coupled.g) == 0 or n_agents == 0:
        return out
    coupling = gamma ** (np.arange(int(coupled.d.max()) + 1, dtype=np.float64) - 1.0)
    count = np.diff(holders.ptr)
    one_side = count[coupled.g]
    both_sides = np.repeat(count, np.diff(coupled.ptr)) * one_side
    # A dense cell of the fold costs about a quarter of a scattered expansion (measured).
    if both_sides.sum() <= one_side.sum() + len(holders.agent) * n_agents // 4:
        _pairwise(coupled, holders, coupling, both_sides, out)
    else:
        _through_field(coupled, holders, coupling, one_side, out)
    folded: NDArray[np.float64] = np.maximum(out, out.T)
    return folded


def _pairwise(
    coupled: CoupledFiles,
    holders: FileHolders,
    coupling: NDArray[np.float64],
    size: Ints,
    out: NDArray[np.float64],
) -> None:
    f_all = np.repeat(np.arange(len(coupled.ptr) - 1), np.diff(coupled.ptr))
    count = np.diff(holders.ptr)
    cuts = np.searchsorted(np.cumsum(size), np.arange(0, size.sum(), _CHUNK_CONTRIBUTIONS))
    for lo, hi in pairwise([*cuts.tolist(), len(size)]):
        f, g = f_all[lo:hi], coupled.g[lo:hi]
        pair, kf, kg = ragged_cross(count[f], count[g])
        ia, ib = holders.ptr[f][pair] + kf, holders.ptr[g][pair] + kg
        values = holders.weight[ia] * holders.weight[ib] * coupling[coupled.d[lo:hi]][pair]
        keys = holders.agent[ia] * out.shape[0] + holders.agent[ib]
        np.maximum.at(out.reshape(-1), keys, values)


def _through_field(
    coupled: CoupledFiles,
    holders: FileHolders,
    coupling: NDArray[np.float64],
    one_side: Ints,
    out: NDArray[np.float64],
) -> None:
    """``U`` a block of rows at a time, so memory stays bounded whatever the airspace."""
    n_files, n_agents = len(coupled.ptr) - 1, out.shape[0]
    expanded = np.zeros(len(coupled.g) + 1, dtype=np.int64)
    np.cumsum(one_side, out=expanded[1:])
    before = expanded[coupled.ptr]  # holder entries expanded before each file's coupled list
    block = max(1, _BLOCK_CELLS // n_agents)
    for lo in range(0, n_files, block):
        hi = min(n_files, lo + block)
        if coupled.ptr[lo] == coupled.ptr[hi]:
            continue
        field = np.zeros((hi - lo, n_agents))
        marks = np.arange(before[lo], before[hi], _CHUNK_CONTRIBUTIONS)
        cuts = np.searchsorted(before, marks, side="right") - 1
        for first, last in pairwise(np.unique(np.r_[np.clip(cuts, lo, hi), hi]).tolist()):
            _field(coupled, holders, coupling, (lo, first, last), field)
        _fold(field, holders, lo, out)


def _field(
    coupled: CoupledFiles,
    holders: FileHolders,
    coupling: NDArray[np.float64],
    rows: tuple[int, int, int],
    field: NDArray[np.float64],
) -> None:
    """``field[f - base]`` = ``U[f]`` for the files ``f`` in ``first:last``.

    Keys arrive grouped by file, so the scattered maximum stays within a few rows (cache-warm).
    """
    base, first, last = rows
    start, stop = int(coupled.ptr[first]), int(coupled.ptr[last])
    g = coupled.g[start:stop]
    item, k = ragged_range(np.diff(holders.ptr)[g])
    entry = holders.ptr[g][item] + k
    row = np.repeat(np.arange(first - base, last - base), np.diff(coupled.ptr[first : last + 1]))
    keys = (row * field.shape[1])[item] + holders.agent[entry]
    values = holders.weight[entry] * coupling[coupled.d[start:stop]][item]
    np.maximum.at(field.reshape(-1), keys, values)


def _fold(
    field: NDArray[np.float64], holders: FileHolders, base: int, out: NDArray[np.float64]
) -> None:
    """``out[b] = max(out[b], w_f * field[f - base])`` for every holding ``(b, f)`` of the block.

    Holdings are taken in agent order and a bounded number of cells at a time, each agent's rows
    reduced at once, so no agent row of ``out`` is read twice per piece.
    """
    lo, hi = holders.ptr[base], holders.ptr[base + len(field)]
    agent = holders.agent[lo:hi]
    order = np.argsort(agent, kind="stable")
    agent, weight = agent[order], holders.weight[lo:hi][order]
    held = np.diff(holders.ptr[base : base + len(field) + 1])
    row = np.repeat(np.arange(len(field)), held)[order]
    starts = np.flatnonzero(np.r_[True, agent[1:] != agent[:-1]])
    step = max(1, _CHUNK_CONTRIBUTIONS // field.shape[1])
    cuts = np.unique(np.r_[np.searchsorted(starts, np.arange(0, len(agent), step)), len(starts)])
    edges = np.r_[starts, len(agent)]
    for first, last in pairwise(cuts.tolist()):
        a, b = int(edges[first]), int(edges[last])
        cells = field[row[a:b]] * weight[a:b, None]
        best = np.maximum.reduceat(cells, starts[first:last] - a, axis=0)
        who = agent[starts[first:last]]
        out[who] = np.maximum(out[who], best)


def node_ids(graph: CompiledGraph, paths: Sequence[str]) -> Ints:
    """Graph node of each touched path, -1 for paths the graph does not contain."""
    return np.array([graph.ids.get(p, -1) for p in paths], dtype=np.int64)
