"""Airspace engine speed on the benchmark world (/work/shared/reference/BENCH-WORLD.md).

For each profile, F in {10, 50} and N in {10, 50, 200, 500, 2000}: the median scan time, the
peak memory (tracemalloc, one extra run), and the ratio to the straightforward per-pair
implementation of the same profile measured in this run. Where the per-pair path would take
longer than ``--budget`` seconds, it runs on a random sample of pairs and its time is
extrapolated to all pairs (marked "~"). The reference implementation's published figures are
printed alongside.

What is timed: parse the agents + score + bands/right of way + positions, i.e.
``scan_airspace(parse_airspace(data, graphs=...))``; not the JSON dict building. The
repository graph is parsed and compiled once per process, as ``--graphs`` does for JSONL.

Run: ``.venv/bin/python -m bench.airspace`` (a few minutes; ``--quick`` for N <= 200).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from bench.world import World, build_agents, build_world, check_world
from proximity.engine.airspace import parse_airspace
from proximity.engine.airspace.coupling import release_scratch
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.parse import graph_adjacency
from proximity.engine.airspace.profiles import PROFILES, Settings, resolve
from proximity.engine.airspace.reference_ecc import pair_channels
from proximity.engine.airspace.reference_radar import (
    conflict_pairs,
    radar_pair_channels,
    undirected_graph,
    working_sets,
)
from proximity.engine.airspace.scan import scan_airspace

NOW = "2026-09-15T12:00:00Z"
NOW_MS = 1_789_473_600_000.0
SIZES_N = (10, 50, 200, 500, 2000)
SIZES_F = (10, 50)

# BENCH-WORLD.md: scanAirspace with the graph, Node 20, median of 5 (or ">60 s").
REFERENCE = {
    (10, 10): "3.685 s",
    (10, 50): ">60 s (warm-up 136 s)",
    (50, 10): ">60 s (warm-up 134 s)",
}


def _airspace(world_graph: Any, agents: list[dict[str, Any]]) -> dict[str, Any]:
    return {"agents": agents, "graphRef": "world", "options": {"now": NOW}}


def _fast(data: dict[str, Any], graphs: dict[str, Any], profile: str) -> Callable[[], object]:
    return lambda: scan_airspace(parse_airspace(data, graphs=graphs), profile=profile)


def _per_pair_function(parsed: Airspace, settings: Settings) -> Callable[[int, int], object]:
    agents = parsed.agents
    if settings.profile.name == "ecc-v0":
        return lambda a, b: pair_channels(
            agents[a].files,
            agents[b].files,
            parsed.adjacency,
            gamma=settings.dep_decay,
            cap=settings.dependency_cap,
        )
    sets = working_sets(parsed, NOW_MS)
    graph = undirected_graph(parsed.adjacency)
    conflicts = conflict_pairs(parsed)
    ids = [a.agent_id for a in agents]
    return lambda a, b: radar_pair_channels(
        sets[a],
        sets[b],
        graph,
        conflict=frozenset((ids[a], ids[b])) in conflicts,
        gamma=settings.dep_decay,
        cap=settings.dependency_cap,
    )


def per_pair_seconds(parsed: Airspace, profile: str, budget: float) -> tuple[float, bool]:
    """Per-pair time for all pairs; extrapolated from a random sample past ``budget`` seconds."""
    start = time.perf_counter()
    settings = resolve(PROFILES[profile], parsed.options)
    score = _per_pair_function(parsed, settings)
    n = len(parsed.agents)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    random.Random(7).shuffle(pairs)
    setup = time.perf_counter() - start
    done = 0
    for a, b in pairs:
        score(a, b)
        done += 1
        if time.perf_counter() - start > budget:
            break
    spent = time.perf_counter() - start - setup
    if done == len(pairs):
        return setup + spent, False
    return setup + spent / done * len(pairs), True


def _time(run: Callable[[], object], limit: float) -> tuple[float, int, float]:
    first = time.perf_counter()
    run()
    warm = time.perf_counter() - first
    repeats = 5 if warm < 2 else (3 if warm < limit / 4 else 1)
    times = [warm] if repeats == 1 else []
    for _ in range(repeats if repeats > 1 else 0):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return statistics.median(times), len(times), warm


def _peak_mb(run: Callable[[], object]) -> float:
    release_scratch()  # count the BFS scratch too, as a first scan in a process would
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def _fmt_seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def bench(
    world: World, profiles: list[str], sizes_n: tuple[int, ...], budget: float, limit: float
) -> list[str]:
    graphs = {"world": graph_adjacency({"adjacency": world.adjacency}, "graph")}
    rows = []
    for profile in profiles:
        for f in SIZES_F:
            skipping, previous = False, None
            for n in sizes_n:
                # Skip a size whose predicted time (quadratic in N) passes the limit.
                if previous is not None and previous[1] * (n / previous[0]) ** 2 > limit:
                    skipping = True
                if skipping:
                    rows.append(
                        f"| {profile} | {n} | {f} | skipped (predicted > {limit:.0f} s) | | | |"
                    )
                    print(rows[-1], flush=True)
                    continue
                data = _airspace(None, build_agents(world, n, f))
                run = _fast(data, graphs, profile)
                median, count, warm = _time(run, limit)
                peak = _peak_mb(run) if warm < limit / 2 else float("nan")
                parsed = parse_airspace(data, graphs=graphs)
                slow, extrapolated = per_pair_seconds(parsed, profile, budget)
                mark = "~" if extrapolated else ""
                reference = REFERENCE.get((n, f), "skipped (>60 s at a smaller size)")
                rows.append(
                    f"| {profile} | {n} | {f} | {_fmt_seconds(median)} (n={count}) | {peak:.0f} MB "
                    f"| {mark}{_fmt_seconds(slow)} = {mark}{slow / median:,.0f}x | {reference} |"
                )
                print(rows[-1], flush=True)
                previous = (n, median)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="radar-v1,ecc-v0")
    parser.add_argument("--quick", action="store_true", help="N <= 200 only")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds per per-pair run")
    parser.add_argument("--limit", type=float, default=60.0, help="skip larger N past this")
    args = parser.parse_args()
    world = build_world()
    check_world(world)
    print("benchmark world regenerated; BENCH-WORLD.md check values hold")
    header = (
        "| profile | N | F | engine median | peak memory | per-pair (same profile) = ratio "
        "| reference (Node, published) |\n|---|---|---|---|---|---|---|"
    )
    print(header, flush=True)
    sizes = tuple(n for n in SIZES_N if n <= 200) if args.quick else SIZES_N
    bench(world, args.profiles.split(","), sizes, args.budget, args.limit)


if __name__ == "__main__":
    main()
