"""ImportGraph.distances: what the dependency channel reads, by hand."""

from __future__ import annotations

from proximity.engine.imports import EdgeFlags, ImportGraph


def _graph(edges: dict[str, list[str]]) -> ImportGraph:
    flags = {a: {b: EdgeFlags() for b in bs} for a, bs in edges.items()}
    return ImportGraph(flags, tuple(sorted(edges)), {})


def test_undirected_distances_up_to_the_cap() -> None:
    # a -> b -> c -> d, e -> b; x imports itself
    graph = _graph({"a": ["b"], "b": ["c"], "c": ["d"], "e": ["b"], "x": ["x"]})
    got = graph.distances(["a", "c", "d", "e", "x"])
    assert got == {
        ("a", "c"): 2,
        ("c", "a"): 2,
        ("a", "e"): 2,
        ("e", "a"): 2,
        ("c", "d"): 1,
        ("d", "c"): 1,
        ("c", "e"): 2,
        ("e", "c"): 2,
    }
    assert graph.distances(["a", "d"]) == {}  # three steps apart
    assert graph.distances(["a", "d"], cap=3) == {("a", "d"): 3, ("d", "a"): 3}
