"""The benchmark world of /work/shared/reference/BENCH-WORLD.md, regenerated bit for bit.

One mulberry32 stream (seed 20260915) builds 20,000 file paths and 60,000 import edges; a new
stream per (N, F) builds the agents. :func:`check_world` asserts the published check values.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["Mulberry32", "World", "build_agents", "build_world", "check_world"]

MASK = 0xFFFFFFFF
SEED = 20260915
BRANCHING = (6, 5, 5, 4, 4, 3, 3)
N_FILES = 20_000
N_EDGES = 60_000
HOT_FILES = 200
START = datetime(2026, 9, 15, 12, 0, 0, tzinfo=UTC)


def _imul(a: int, b: int) -> int:
    return (a * b) & MASK


class Mulberry32:
    """The JavaScript mulberry32 generator, every step masked to 32 bits."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def __call__(self) -> float:
        self.state = (self.state + 0x6D2B79F5) & MASK
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t = (t ^ ((t + _imul(t ^ (t >> 7), t | 61)) & MASK)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296.0

    def rand_int(self, lo: int, hi: int) -> int:
        return lo + int(self() * (hi - lo + 1))


class World:
    """File paths and the import adjacency (every file has an entry, possibly empty)."""

    def __init__(self, files: list[str], adjacency: dict[str, list[str]]) -> None:
        self.files = files
        self.adjacency = adjacency


def build_world(seed: int = SEED) -> World:
    rng = Mulberry32(seed)
    files = []
    for i in range(N_FILES):
        depth = rng.rand_int(3, 8)
        segments = [f"d{k}_{rng.rand_int(0, BRANCHING[k] - 1)}" for k in range(depth - 1)]
        files.append("/".join([*segments, f"f{i}.js"]))
    adjacency: dict[str, list[str]] = {path: [] for path in files}
    seen: set[tuple[int, int]] = set()
    while len(seen) < N_EDGES:
        s, t = rng.rand_int(0, N_FILES - 1), rng.rand_int(0, N_FILES - 1)
        if s == t or (s, t) in seen:
            continue
        seen.add((s, t))
        adjacency[files[s]].append(files[t])
    return World(files, adjacency)


def _agent_file(rng: Mulberry32, files: list[str], chosen: set[int]) -> dict[str, Any] | None:
    hot = rng() < 0.3
    idx = rng.rand_int(0, HOT_FILES - 1) if hot else rng.rand_int(0, N_FILES - 1)
    if idx in chosen:
        return None
    chosen.add(idx)
    lines = []
    for _ in range(rng.rand_int(1, 3)):
        start = rng.rand_int(1, 2000)
        length = rng.rand_int(1, 60)
        lines.append([start, start + length - 1])
    return {"path": files[idx], "lines": lines, "weight": 0.15 + 0.85 * rng()}


def build_agents(world: World, n: int, f: int) -> list[dict[str, Any]]:
    """N agents of F distinct files each, seed ``(20260915 + 1000 N + F) mod 2**32``."""
    rng = Mulberry32((SEED + 1000 * n + f) & MASK)
    agents = []
    for a in range(n):
        chosen: set[int] = set()
        entries: list[dict[str, Any]] = []
        while len(entries) < f:
            entry = _agent_file(rng, world.files, chosen)
            if entry is not None:
                entries.append(entry)
        started = START - timedelta(seconds=rng.rand_int(0, 3600))
        agents.append(
            {
                "agentId": f"agent-{a:03d}",
                "startedAt": started.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                "files": entries,
            }
        )
    return agents


def check_world(world: World) -> None:
    """Assert the check values published in BENCH-WORLD.md."""
    assert world.files[0] == "d0_2/d1_0/d2_1/f0.js"
    assert world.files[19999] == "d0_3/d1_2/d2_3/d3_1/d4_1/f19999.js"
    assert world.adjacency[world.files[0]][0] == "d0_1/d1_0/d2_1/d3_0/d4_3/d5_1/d6_1/f8469.js"
    assert sum(len(v) for v in world.adjacency.values()) == N_EDGES
    first = build_agents(world, 200, 10)[0]["files"][0]
    assert first["path"] == "d0_1/d1_2/d2_3/d3_3/f5093.js"
    assert first["lines"] == [[972, 1000], [241, 249], [1689, 1734]]
    assert first["weight"] == 0.6029326215735636
