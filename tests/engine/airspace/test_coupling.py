"""Capped hop distances between touched files, and the dependency matrix built from them,
against a plain BFS and a plain per-pair maximum."""

from __future__ import annotations

import random

import numpy as np
import pytest

from proximity.engine.airspace import coupling
from proximity.engine.airspace.coupling import (
    CompiledGraph,
    CoupledFiles,
    FileHolders,
    coupled_files,
    dependency_matrix,
    node_ids,
)
from proximity.engine.airspace.reference_ecc import graph_distance
from proximity.engine.airspace.reference_radar import undirected_graph


def _closest(found: CoupledFiles) -> dict[tuple[int, int], int]:
    best: dict[tuple[int, int], int] = {}
    f = np.repeat(np.arange(len(found.ptr) - 1), np.diff(found.ptr))
    for pair, d in zip(
        zip(f.tolist(), found.g.tolist(), strict=True), found.d.tolist(), strict=True
    ):
        best[pair] = min(d, best.get(pair, d))
    return best


def _bfs(graph: CompiledGraph, nodes: np.ndarray, cap: int, **kw: bool) -> CoupledFiles:
    return coupling._coupled_by_bfs(graph.forward, nodes, cap=cap, **kw)


@pytest.mark.parametrize("cap", [1, 2, 3, 6])
@pytest.mark.parametrize("seed", [0, 1])
def test_both_strategies_find_every_pair_within_the_cap(cap: int, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"m{k}.py" for k in range(150)]
    adjacency = {n: [rng.choice(names) for _ in range(rng.randint(0, 3))] for n in names}
    touched = [*rng.sample(names, 40), "not/in/graph.py"]
    graph = CompiledGraph(adjacency)
    nodes = node_ids(graph, touched)
    expected = {}
    for f, a in enumerate(touched):
        for g, b in enumerate(touched):
            d = graph_distance(adjacency, a, b, cap=cap)
            if f != g and d <= cap:
                expected[(f, g)] = int(d)
    product = coupled_files(graph.forward, graph.backward, nodes, cap=cap)
    assert _closest(product) == expected
    assert len(product.g) == len(expected)  # the product lists each pair once
    assert _closest(_bfs(graph, nodes, cap)) == expected


def test_undirected_upper_pairs_match_plain_bfs_on_the_symmetric_graph() -> None:
    rng = random.Random(3)
    names = [f"m{k}.py" for k in range(120)]
    adjacency = {n: [rng.choice(names) for _ in range(rng.randint(0, 2))] for n in names}
    touched = rng.sample(names, 50)
    graph = CompiledGraph(adjacency)
    both = undirected_graph(adjacency)
    expected = {
        (f, g): int(graph_distance(both, a, b, cap=2))
        for f, a in enumerate(touched)
        for g, b in enumerate(touched)
        if f < g and graph_distance(both, a, b, cap=2) <= 2
    }
    nodes = node_ids(graph, touched)
    und = graph.undirected
    assert _closest(coupled_files(und, und, nodes, cap=2, upper_only=True)) == expected
    assert _closest(coupling._coupled_by_bfs(und, nodes, cap=2, upper_only=True)) == expected


def test_hub_with_more_shared_middles_than_the_encoding_could_confuse() -> None:
    """Distance 2 through 300 middles must not read as distance 1 (the sum's exponent)."""
    middles = [f"m{k}.py" for k in range(300)]
    adjacency = {"a.py": middles, **{m: ["b.py"] for m in middles}, "b.py": ["c.py"]}
    graph = CompiledGraph(adjacency)
    nodes = node_ids(graph, ["a.py", "b.py", "c.py"])
    found = _closest(coupled_files(graph.forward, graph.backward, nodes, cap=4))
    assert found == {(0, 1): 2, (0, 2): 3, (1, 2): 1}


@pytest.mark.parametrize(
    ("cap", "expected"), [(100, {(1, 2): 70}), (150, {(0, 1): 120, (1, 2): 70})]
)
def test_long_caps_are_exact_on_both_sides_of_the_encoding_budget(
    cap: int, expected: dict[tuple[int, int], int]
) -> None:
    """9 bits per hop on this graph: cap 100 fits the exponent budget, cap 150 takes the BFS."""
    chain = {f"n{k}.py": [f"n{k + 1}.py"] for k in range(200)}
    graph = CompiledGraph(chain)
    nodes = node_ids(graph, ["n0.py", "n120.py", "n190.py"])
    assert _closest(coupled_files(graph.forward, graph.backward, nodes, cap=cap)) == expected


def _plain_dependency(
    pairs: dict[tuple[int, int], int], held: list[list[tuple[int, float]]], n: int, gamma: float
) -> np.ndarray:
    out = np.zeros((n, n))
    for (f, g), d in pairs.items():
        for a, wa in held[f]:
            for b, wb in held[g]:
                value = wa * wb * gamma ** (d - 1)
                out[a, b] = max(out[a, b], value)
                out[b, a] = max(out[b, a], value)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_both_dependency_evaluations_match_the_plain_maximum(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    names = [f"m{k}.py" for k in range(200)]
    adjacency = {n: [rng.choice(names) for _ in range(rng.randint(0, 3))] for n in names}
    touched = rng.sample(names, 60)
    n_agents = 25
    held: list[list[tuple[int, float]]] = [
        [
            (a, rng.uniform(0.15, 1.0))
            for a in sorted(rng.sample(range(n_agents), rng.randint(0, 4)))
        ]
        for _ in touched
    ]
    ptr = np.r_[0, np.cumsum([len(h) for h in held])].astype(np.int64)
    holders = FileHolders(
        ptr,
        np.array([a for h in held for a, _ in h], dtype=np.int64),
        np.array([w for h in held for _, w in h], dtype=np.float64),
    )
    graph = CompiledGraph(adjacency)
    found = coupled_files(graph.forward, graph.backward, node_ids(graph, touched), cap=4)
    expected = _plain_dependency(_closest(found), held, n_agents, 0.3)
    chosen = dependency_matrix(found, holders, n_agents, gamma=0.3)
    count = np.diff(holders.ptr)
    one_side = count[found.g]
    both_sides = np.repeat(count, np.diff(found.ptr)) * one_side
    table = 0.3 ** (np.arange(int(found.d.max()) + 1) - 1.0)
    strategies = {}
    # Tiny blocks and chunks exercise every boundary of the blocked evaluations.
    monkeypatch.setattr(coupling, "_BLOCK_CELLS", 3 * n_agents)
    monkeypatch.setattr(coupling, "_CHUNK_CONTRIBUTIONS", 7)
    for name, run in (
        ("pairwise", lambda out: coupling._pairwise(found, holders, table, both_sides, out)),
        ("field", lambda out: coupling._through_field(found, holders, table, one_side, out)),
    ):
        out = np.zeros((n_agents, n_agents))
        run(out)
        strategies[name] = np.maximum(out, out.T)
    assert chosen.any()
    for result in (chosen, *strategies.values()):
        assert np.allclose(result, expected, rtol=0, atol=1e-12)
