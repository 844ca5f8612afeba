"""Capped hop distances between touched files: both BFS strategies against a plain BFS."""

from __future__ import annotations

import random

import pytest

from proximity.engine.airspace.coupling import (
    CompiledGraph,
    CoupledFiles,
    coupled_files,
    coupled_files_meeting,
    node_ids,
)
from proximity.engine.airspace.reference_ecc import graph_distance
from proximity.engine.airspace.reference_radar import undirected_graph


def _closest(found: CoupledFiles) -> dict[tuple[int, int], int]:
    best: dict[tuple[int, int], int] = {}
    for f, g, d in zip(found.f.tolist(), found.g.tolist(), found.d.tolist(), strict=True):
        best[(f, g)] = min(d, best.get((f, g), d))
    return best


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
    direct = coupled_files(graph.forward, nodes, cap=cap)
    meeting = coupled_files_meeting(graph.forward, graph.backward, nodes, cap=cap)
    assert _closest(direct) == expected
    assert _closest(meeting) == expected


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
    assert _closest(coupled_files(und, nodes, cap=2, upper_only=True)) == expected
    assert _closest(coupled_files_meeting(und, und, nodes, cap=2, upper_only=True)) == expected
