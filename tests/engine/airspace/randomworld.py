"""Seeded random airspaces that exercise every input feature (duplicates, renames, intents...)."""

from __future__ import annotations

import random
from typing import Any

DIRS = ["src", "src/api", "src/api/v1", "lib", "lib/db", "docs", ""]
NOW_MS = 1_789_473_600_000.0  # 2026-09-15T12:00:00Z


def _path(rng: random.Random) -> str:
    folder = rng.choice(DIRS)
    name = f"f{rng.randint(0, 3)}.js"
    return f"{folder}/{name}" if folder else name


def _ranges(rng: random.Random) -> list[list[int]]:
    out = []
    for _ in range(rng.randint(1, 3)):
        start = rng.randint(1, 30)
        out.append([start, start + rng.randint(0, 12)])
    return out


def _file(rng: random.Random) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": _path(rng)}
    kind = rng.random()
    if kind < 0.6:
        entry["lines"] = _ranges(rng)
    elif kind < 0.7:
        entry["lines"] = []
    if rng.random() < 0.5:
        entry["baseHunks"] = [[rng.randint(0, 30), rng.choice([0, 1, 3, 8])] for _ in range(2)]
        if rng.random() < 0.6:
            # few distinct texts, so agents often make a hunk identically (twins)
            entry["hunkIds"] = [f"{rng.randint(0, 2):016x}" for _ in entry["baseHunks"]]
    if rng.random() < 0.15:
        entry["status"], entry["oldPath"] = "R", _path(rng)
    elif rng.random() < 0.1:
        entry["status"] = "D"
    if rng.random() < 0.8:
        entry["weight"] = rng.choice([0.0, 0.25, 0.5, 1.0, round(rng.random(), 3)])
    if rng.random() < 0.4:
        entry["touchedAt"] = NOW_MS - rng.randint(0, 7200) * 1000
    return entry


def _twin(rng: random.Random, entry: dict[str, Any]) -> dict[str, Any]:
    """Another agent's entry made again: the same hunks and text, some kept, one maybe added."""
    kept = [k for k in range(len(entry["baseHunks"])) if rng.random() < 0.7] or [0]
    hunks = [entry["baseHunks"][k] for k in kept]
    ids = [entry["hunkIds"][k] for k in kept]
    if rng.random() < 0.5:
        hunks.append([rng.randint(0, 30), rng.choice([0, 1, 3])])
        ids.append(f"{rng.randint(3, 4):016x}")
    twin = {"path": entry["path"], "baseHunks": hunks, "hunkIds": ids}
    for key in ("status", "oldPath", "weight", "touchedAt"):
        if key in entry and rng.random() < 0.7:
            twin[key] = entry[key]
    return twin


def random_airspace(seed: int, n_agents: int = 6, max_files: int = 5) -> dict[str, Any]:
    rng = random.Random(seed)
    agents = []
    for a in range(n_agents):
        files = [_file(rng) for _ in range(rng.randint(0, max_files))]
        earlier = [f for other in agents for f in other["files"] if "hunkIds" in f]
        if earlier and rng.random() < 0.5:
            files.append(_twin(rng, rng.choice(earlier)))
        intent = [
            {
                "path": rng.choice([_path(rng), rng.choice(DIRS[:-1])]),
                "expiresAt": NOW_MS + rng.choice([-1, 1]) * 60_000,
            }
            for _ in range(rng.randint(0, 2))
        ]
        started = None if rng.random() < 0.2 else NOW_MS - rng.randint(0, 3) * 600_000
        agents.append(
            {
                "agentId": f"ag{a}",
                "startedAt": started and _iso(started),
                "files": files,
                "intent": intent,
            }
        )
    nodes = sorted({_path(rng) for _ in range(30)} | {"extra/x.js", "extra/y.js"})
    graph = {n: [rng.choice(nodes) for _ in range(rng.randint(0, 3))] for n in nodes}
    conflicts = [{"a": "ag0", "b": f"ag{n_agents - 1}", "files": []}] if seed % 3 == 0 else []
    return {
        "agents": agents,
        "graph": {"adjacency": graph},
        "options": {"now": NOW_MS, "conflicts": conflicts},
    }


def _iso(ms: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
