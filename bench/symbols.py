"""Speed of the symbol index and of the symbol channel (issue 14, item 7).

Run: ``.venv/bin/python -m bench.symbols`` (a few minutes; ``--skip-index`` or
``--skip-channel`` for one half). Three figures, each beside its baseline measured in the same
run, since this machine is shared and absolute times move by 20-30 %:

1. the symbol index of the generated 5,000-file tree (bench/readers.py's generator, committed
   to a fresh repository), cold: target < 5 s; beside the import graph's cold build;
2. the index after one edit (a new commit changing one file, built from the previous index and
   the same extraction cache): target < 100 ms; beside the cold build;
3. the symbol channel's added cost on a radar-v1 scan of the benchmark world at N = 500,
   F = 50: ``radar-v1-symbols`` with symbol data against ``radar-v1`` without, target < 20 %.
   The world has no source text, so its symbol data is generated (see :func:`world_symbols`):
   one changed function per changed range, two uses per change, a call graph of two calls per
   function; it is handed to the scan already built, as the scan service does, and the cost of
   the JSON path (``symbols`` in the airspace, parsed) is printed too.

Wall time counts waiting for a core; CPU time (this process and its git children) is the
load-independent cost, printed beside it as bench/readers.py does.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import tempfile
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from bench.readers import generate_tree
from bench.world import Mulberry32, World, build_agents, build_world, check_world
from proximity.engine.airspace import PROFILES, parse_airspace
from proximity.engine.airspace.parse import graph_adjacency
from proximity.engine.airspace.scan import ScanResult, scan_airspace
from proximity.engine.symbols import (
    CallShape,
    Param,
    Signature,
    Strengths,
    SymbolChange,
    SymbolData,
    SymbolSide,
    SymbolUse,
    symbol_data_to_json,
    symbol_scores,
)
from proximity.sources.imports import build_import_graph
from proximity.sources.symbols import BoundedCache, build_symbol_index
from tests.sources.gitrepo import ScriptedRepo

NOW = "2026-09-15T12:00:00Z"
T = TypeVar("T")
PER_FILE = 20  # functions per world file: one per 100 lines of a 2,000-line file


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _timed(fn: Callable[[], T]) -> tuple[float, float, T]:
    cpu, start = _cpu(), time.perf_counter()
    result = fn()
    return time.perf_counter() - start, _cpu() - cpu, result


def _median(fn: Callable[[], T], repeats: int) -> tuple[float, float, T]:
    walls, cpus, results = [], [], []
    for _ in range(repeats):
        wall, cpu, result = _timed(fn)
        walls.append(wall)
        cpus.append(cpu)
        results.append(result)
    return statistics.median(walls), statistics.median(cpus), results[-1]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def bench_index(files: int, repeats: int) -> list[str]:
    scratch = Path(tempfile.mkdtemp(prefix="radar-symbols-"))
    rows = []
    try:
        repo = ScriptedRepo.create(scratch)
        generate_tree(repo, files)
        head = repo.git("rev-parse", "HEAD").strip()
        cold_wall, cold_cpu, index = _median(
            lambda: build_symbol_index(repo.root, head, cache=BoundedCache()), repeats
        )
        graph_wall, graph_cpu, _ = _median(lambda: build_import_graph(repo.root), repeats)
        refs = sum(len(f.references) for f in index.files.values())
        defs = sum(len(f.definitions) for f in index.files.values())
        rows.append(
            f"| symbol index, cold ({len(index.files)} source files, {defs} definitions, "
            f"{refs} references) | {_ms(cold_wall)} | {_ms(cold_cpu)} | < 5 s | import graph "
            f"cold {_ms(graph_wall)} wall, {_ms(graph_cpu)} CPU: x{cold_cpu / graph_cpu:.2f} CPU |"
        )
        cache = BoundedCache()
        previous = build_symbol_index(repo.root, head, cache=cache)
        walls, cpus, relinked = [], [], []
        target = "src/pkg0/mod0.py"
        for k in range(max(5, repeats)):
            text = repo.read(target).replace("return mod0", f"return mod0  # edit {k}")
            repo.write(target, text)
            commit = repo.commit(f"edit {k}")
            wall, cpu, built = _timed(
                partial(build_symbol_index, repo.root, commit, cache=cache, previous=previous)
            )
            assert built.extracted == (target,), built.extracted
            walls.append(wall)
            cpus.append(cpu)
            relinked.append(len(built.relinked))
            previous = built
        inc_wall, inc_cpu = statistics.median(walls), statistics.median(cpus)
        rows.append(
            f"| same, after one edit (a new commit; 1 file extracted, {max(relinked)} re-linked) "
            f"| {_ms(inc_wall)} | {_ms(inc_cpu)} | < 100 ms | x{cold_wall / inc_wall:.0f} "
            f"faster than cold (wall) |"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return rows


def _symbol(path: str, k: int) -> str:
    return f"{path}::fn{k % PER_FILE}"


def _calls(world: World, symbol: str) -> list[str]:
    """The generated call graph: fn k calls fn k+1 of its file and fn k of its first import."""
    path, _, name = symbol.partition("::")
    k = int(name[2:])
    out = [_symbol(path, k + 1)]
    imported = world.adjacency.get(path) or []
    if imported:
        out.append(_symbol(imported[0], k))
    return out


def _near(
    world: World, start: str, wanted: set[str], callers: dict[str, list[str]]
) -> tuple[tuple[str, int], ...]:
    best: dict[str, int] = {}

    def forward(symbol: str) -> list[str]:
        return _calls(world, symbol)

    def backward(symbol: str) -> list[str]:
        return callers.get(symbol, [])

    steps: tuple[tuple[int, Callable[[str], list[str]]], ...] = ((1, forward), (-1, backward))
    for sign, step in steps:
        seen, frontier = {start}, deque([(start, 0)])
        while frontier:
            node, depth = frontier.popleft()
            if depth == 2:
                continue
            for nxt in step(node):
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append((nxt, depth + 1))
                    if nxt in wanted and abs(best.get(nxt, 3)) > depth + 1:
                        best[nxt] = sign * (depth + 1)
    return tuple(sorted(best.items()))


def _change(rng: Mulberry32, path: str, k: int, start: int, end: int) -> SymbolChange:
    draw = rng()
    kinds: tuple[str, ...] = ("body",)
    if draw < 0.05:
        kinds = ("signature", "body")
    elif draw < 0.10:
        kinds = ("returns", "body")
    elif draw < 0.12:
        kinds = ("renamed",)
    elif draw < 0.14:
        kinds = ("removed",)
    signature = Signature((Param("a"), Param("b", default="signature" not in kinds)))
    return SymbolChange(
        symbol=_symbol(path, k),
        kind="function",
        changes=kinds,
        path=path,
        lines=(start, end),
        base_lines=(start, end),
        renamed_to=_symbol(path, k) + "_new" if "renamed" in kinds else None,
        before="(a, b=…)",
        after=signature.text,
        signature=signature,
        returns_before=("dict{a}",),
        returns_after=("tuple/2",) if "returns" in kinds else ("dict{a}",),
        outcome=f"{rng():.6f}",
        # the locals its changed lines write and read (same_body's condition), from a pool
        # of eight names as a function's own: about half the body edits write one
        local_writes=_locals(rng, 0.5),
        local_reads=_locals(rng, 0.8),
    )


def _locals(rng: Mulberry32, share: float) -> tuple[str, ...]:
    if rng() >= share:
        return ()
    return tuple(sorted({_LOCALS[int(rng() * len(_LOCALS))] for _ in range(2)}))


_LOCALS = ("result", "item", "value", "key", "path", "text", "count", "data")


def world_symbols(world: World, agents: list[dict[str, Any]], seed: int = 14) -> SymbolData:
    """Symbol data for the world's agents: a changed function per changed range (fn
    ``start // 100``), two uses per change of the functions its call graph reaches, and the
    ``near`` lists the producer would compute (restricted to symbols some agent changed, and
    uses that can raise no pair left out, as :func:`~proximity.engine.symbols.with_neighbours`
    does)."""
    rng = Mulberry32(seed)
    raw: dict[str, tuple[list[SymbolChange], list[SymbolUse]]] = {}
    for agent in agents:
        changes, uses = [], []
        for entry in agent["files"]:
            for start, end in entry["lines"]:
                k = start // 100
                change = _change(rng, entry["path"], k, start, end)
                changes.append(change)
                uses += [
                    SymbolUse(
                        target,
                        target.rsplit("::", 1)[-1],
                        "call",
                        entry["path"],
                        start,
                        change.symbol,
                        CallShape(2),
                        True,
                        True,
                    )
                    for target in _calls(world, change.symbol)[:2]
                ]
        raw[agent["agentId"]] = (changes, uses)
    changed = {c.symbol for changes, _ in raw.values() for c in changes}
    callers: dict[str, list[str]] = {}
    for symbol in {s for changes, _ in raw.values() for c in changes for s in (c.symbol,)}:
        for callee in _calls(world, symbol):
            callers.setdefault(callee, []).append(symbol)
    memo: dict[str, tuple[tuple[str, int], ...]] = {}
    sides = {}
    for agent_id, (changes, uses) in raw.items():
        done = []
        for c in changes:
            if c.symbol not in memo:
                memo[c.symbol] = _near(world, c.symbol, changed - {c.symbol}, callers)
            done.append(SymbolChange(**{**_fields(c), "near": memo[c.symbol]}))
        near_uses = []
        for u in uses:  # pruned as the producer prunes (proximity.engine.symbols.sides)
            near = tuple(g for g in _calls(world, u.symbol) if g in changed)
            if near or u.symbol in changed:
                near_uses.append(SymbolUse(**{**_fields(u), "near": near}))
        sides[agent_id] = SymbolSide(tuple(done), tuple(near_uses))
    return SymbolData(sides)


def _fields(record: Any) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__slots__}


def bench_channel(n: int, f: int, repeats: int) -> list[str]:
    world = build_world()
    check_world(world)
    graphs = {"world": graph_adjacency({"adjacency": world.adjacency}, "graph")}
    agents = build_agents(world, n, f)
    data = {"agents": agents, "graphRef": "world", "options": {"now": NOW}}
    symbols = world_symbols(world, agents)
    changes = sum(len(s.changes) for s in symbols.sides.values())
    uses = sum(len(s.uses) for s in symbols.sides.values())

    def plain() -> ScanResult:
        return scan_airspace(parse_airspace(data, graphs=graphs), profile="radar-v1")

    def with_symbols() -> ScanResult:
        parsed = parse_airspace(data, graphs=graphs)
        return scan_airspace(_with(parsed, symbols), profile="radar-v1-symbols")

    as_json = {**data, "symbols": symbol_data_to_json(symbols)}

    def from_json() -> ScanResult:
        return scan_airspace(parse_airspace(as_json, graphs=graphs), profile="radar-v1-symbols")

    plain()
    with_symbols()  # warm both (the graph compiles once per process)
    # The harness's own inputs (world, agents, symbol data: millions of objects) are taken out
    # of the cyclic collector's reach, so its passes over them, whose timing depends on the
    # harness and not on the engine, stop landing at random in one scan or the other.
    gc.collect()
    gc.freeze()
    # Interleaved rounds, each ratio taken within its round: on a shared machine the load
    # drifts between rounds far more than within one.
    rounds = []
    for _ in range(repeats):
        base_wall, base_cpu, _ = _timed(plain)
        sym_wall, sym_cpu, result = _timed(with_symbols)
        rounds.append((base_wall, base_cpu, sym_wall, sym_cpu))
    base_wall, base_cpu, sym_wall, sym_cpu = (
        statistics.median(c) for c in zip(*rounds, strict=True)
    )
    ratio_wall = statistics.median(r[2] / r[0] for r in rounds)
    ratio_cpu = statistics.median(r[3] / r[1] for r in rounds)
    ids = [a["agentId"] for a in agents]
    strengths = Strengths.of(PROFILES["radar-v1-symbols"].symbol_strengths or {})
    alone_wall, alone_cpu, _ = _median(lambda: symbol_scores(ids, symbols, strengths), repeats)
    json_wall, json_cpu, _ = _median(from_json, max(3, repeats // 2))
    table = result.verdicts.table
    interacting = len(table.evidence or {})
    return [
        f"| radar-v1 scan, N={n}, F={f} (no symbol channel) | {_ms(base_wall)} | "
        f"{_ms(base_cpu)} | - | baseline |",
        f"| radar-v1-symbols scan, symbol data built ({changes} changes, {uses} uses; "
        f"{interacting} pairs with symbol items) | {_ms(sym_wall)} | {_ms(sym_cpu)} | "
        f"< +20 % | +{(ratio_wall - 1) * 100:.0f} % wall, +{(ratio_cpu - 1) * 100:.0f} % CPU "
        f"(median of {repeats} interleaved rounds) |",
        f"| the symbol channel alone (``symbol_scores``) | {_ms(alone_wall)} | {_ms(alone_cpu)} "
        f"| - | {alone_cpu / base_cpu * 100:.0f} % of the baseline's CPU |",
        f"| same scan, symbol data as JSON in the airspace (parsed) | {_ms(json_wall)} | "
        f"{_ms(json_cpu)} | - | +{(json_wall / base_wall - 1) * 100:.0f} % wall, "
        f"+{(json_cpu / base_cpu - 1) * 100:.0f} % CPU |",
    ]


def _with(parsed: Any, symbols: SymbolData) -> Any:
    from dataclasses import replace

    return replace(parsed, symbols=symbols)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--agents", type=int, default=500)
    parser.add_argument("--agent-files", type=int, default=50)
    parser.add_argument("--skip-index", action="store_true")
    parser.add_argument("--skip-channel", action="store_true")
    args = parser.parse_args()
    print("| measurement | wall | CPU | target | beside |\n|---|---|---|---|---|", flush=True)
    if not args.skip_index:
        for row in bench_index(args.files, args.repeats):
            print(row, flush=True)
    if not args.skip_channel:
        for row in bench_channel(args.agents, args.agent_files, max(7, args.repeats)):
            print(row, flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
