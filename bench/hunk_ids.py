"""What setting identical hunks apart costs a radar-v1 scan (overlap and adjacency).

Run: ``.venv/bin/python -m bench.hunk_ids [--rounds 5]``. The benchmark world's agents
(/work/shared/reference/BENCH-WORLD.md) are given base-side hunks equal to their line ranges,
as a git working set has them, and every fifth agent copies one file entry of the agent before
it (twins). The same airspace is scanned without ``hunkIds`` (the baseline: nothing to set
apart, as before the rule) and with one id per hunk (the twins set apart). Printed: the median
scan time of each and the ratio to the baseline of the same run.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from typing import Any

from bench.world import build_agents, build_world
from proximity.engine.airspace import parse_airspace
from proximity.engine.airspace.parse import graph_adjacency
from proximity.engine.airspace.scan import scan_airspace

NOW = "2026-09-15T12:00:00Z"
SIZES = ((50, 10), (200, 10), (500, 10), (200, 50))


def _with_hunks(agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Base hunks and ids on every entry; every fifth agent also holds a copy of one file
    entry of the agent before it (the same hunks and ids: twins)."""
    out = copy.deepcopy(agents)
    for n, agent in enumerate(out):
        for k, f in enumerate(agent["files"]):
            f["baseHunks"] = [[s, e - s + 1] for s, e in f["lines"]]
            f["hunkIds"] = [f"{n:08x}{k:04x}{h:04x}" for h in range(len(f["baseHunks"]))]
        if n % 5 == 4 and out[n - 1]["files"]:
            twin = copy.deepcopy(out[n - 1]["files"][0])
            agent["files"] = [f for f in agent["files"] if f["path"] != twin["path"]] + [twin]
    return out


def _without_ids(agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**a, "files": [{k: v for k, v in f.items() if k != "hunkIds"} for f in a["files"]]}
        for a in agents
    ]


def _median(data: dict[str, Any], graphs: dict[str, Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        scan_airspace(parse_airspace(data, graphs=graphs), profile="radar-v1")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    world = build_world()
    graphs = {"world": graph_adjacency({"adjacency": world.adjacency}, "graphs.world")}
    print("| N | F | without ids (s) | with ids and twins (s) | ratio |")
    print("|---:|---:|---:|---:|---:|")
    for n, f in SIZES:
        named_agents = _with_hunks(build_agents(world, n, f))
        plain, named = (
            {"agents": agents, "graphRef": "world", "options": {"now": NOW}}
            for agents in (_without_ids(named_agents), named_agents)
        )
        _median(plain, graphs, 1)  # warm the compiled graph and numpy
        base, ours = _median(plain, graphs, args.rounds), _median(named, graphs, args.rounds)
        print(f"| {n} | {f} | {base:.3f} | {ours:.3f} | {ours / base:.2f} |")


if __name__ == "__main__":
    main()
