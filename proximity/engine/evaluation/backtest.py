"""Backtest pairs: the record format, their two-agent airspaces, and the simple baselines.

A backtest pair is two concurrent pull requests: A's merged tip and B's branch state at the moment A
merged, both diffed against their common merge base, labelled by whether git's three-way merge of
the two conflicts (BACKTEST-NOTES). The miner that writes them lives in
``proximity.lab.backtest``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "PAIR_FORMAT",
    "BacktestPair",
    "base_overlap_score",
    "base_ranges_collide",
    "base_ranges_collide_reference",
    "new_side_overlap_score",
    "pair_airspace",
    "pair_from_json",
    "relevant_subgraph",
    "shares_file_score",
]

PAIR_FORMAT = "overlap-radar/backtest-pair@1"


@dataclass(frozen=True, slots=True)
class BacktestPair:
    """One mined pair; ``files_*`` are airspace file dicts, ``weight`` 1/inclusion probability."""

    pair_id: str
    conflict: bool
    stratum: str
    weight: float
    cluster: str
    merged_at: str
    files_a: tuple[Mapping[str, Any], ...]
    files_b: tuple[Mapping[str, Any], ...]
    imports: Mapping[str, tuple[str, ...]]
    raw: Mapping[str, Any]


def pair_from_json(data: Mapping[str, Any]) -> BacktestPair:
    """Validate one JSONL row of the miner's output; errors name the field."""
    if data.get("format") != PAIR_FORMAT:
        raise ValueError(f"format: expected {PAIR_FORMAT!r}, got {data.get('format')!r}")
    for key in ("pairId", "conflict", "stratum", "weight", "cluster", "a", "filesA", "filesB"):
        if key not in data:
            raise ValueError(f"{key}: missing from backtest pair {data.get('pairId')!r}")
    if not isinstance(data["conflict"], bool):
        raise ValueError(f"conflict: must be a boolean in pair {data['pairId']!r}")
    weight = float(data["weight"])
    if weight < 1.0:
        raise ValueError(
            f"weight: inverse inclusion probability must be >= 1 in {data['pairId']!r}"
        )
    imports = {str(k): tuple(v) for k, v in dict(data.get("imports", {})).items()}
    return BacktestPair(
        pair_id=str(data["pairId"]),
        conflict=data["conflict"],
        stratum=str(data["stratum"]),
        weight=weight,
        cluster=str(data["cluster"]),
        merged_at=str(data["a"].get("mergedAt", "")),
        files_a=tuple(data["filesA"]),
        files_b=tuple(data["filesB"]),
        imports=imports,
        raw=data,
    )


def pair_airspace(
    pair: BacktestPair, *, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The pair as a two-agent airspace in the engine's input shape (agents, graph, options)."""
    agents = [
        {"agentId": "A", "files": [dict(f) for f in pair.files_a]},
        {"agentId": "B", "files": [dict(f) for f in pair.files_b]},
    ]
    adjacency = {k: list(v) for k, v in pair.imports.items()}
    return {"agents": agents, "graph": {"adjacency": adjacency}, "options": dict(options or {})}


def _paths(files: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Files by path, with a rename's old path pointing at the same entry (both are touched)."""
    out: dict[str, Mapping[str, Any]] = {}
    for f in files:
        out[str(f["path"])] = f
        if f.get("oldPath"):
            out[str(f["oldPath"])] = f
    return out


def shares_file_score(pair: BacktestPair) -> float:
    """Baseline: 1 when the two working sets touch a common path (renames count both paths)."""
    return 1.0 if _paths(pair.files_a).keys() & _paths(pair.files_b).keys() else 0.0


def _extents(hunks: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Base hunks in doubled coordinates: line L is 2L, the gap after it 2L+1.

    A replaced or deleted run [s, s+c-1] also claims the gaps on both sides (git merges only changes
    separated by an unchanged line, so touching changes conflict); an insertion after line s is the
    single gap 2s+1.
    """
    out = []
    for start, count in hunks:
        if count > 0:
            out.append((2 * start - 1, 2 * (start + count - 1) + 1))
        else:
            out.append((2 * start + 1, 2 * start + 1))
    return sorted(out)


def base_ranges_collide(hunks_a: Sequence[Sequence[int]], hunks_b: Sequence[Sequence[int]]) -> bool:
    """Whether two sides' base-side hunks overlap or touch, as git's three-way merge judges it.

    Uses a merge sweep over the sorted extents, O((m+n) log(m+n)). Identical changes on both sides
    merge cleanly in git but count as colliding here: the hunks alone cannot tell them apart.
    """
    ea, eb = _extents(hunks_a), _extents(hunks_b)
    i = j = 0
    while i < len(ea) and j < len(eb):
        (a0, a1), (b0, b1) = ea[i], eb[j]
        if a0 <= b1 and b0 <= a1:
            return True
        if a1 < b1:
            i += 1
        else:
            j += 1
    return False


def base_ranges_collide_reference(
    hunks_a: Sequence[Sequence[int]], hunks_b: Sequence[Sequence[int]]
) -> bool:
    """Reference: every pair of hunks, case by case, by "no unchanged base line between them".

    Run [s, e] and run [s2, e2]: conflict iff s2 <= e + 1 and s <= e2 + 1. Insertion after p and run
    [s, e]: iff s - 1 <= p <= e. Two insertions: iff at the same point.
    """
    for sa, ca in hunks_a:
        for sb, cb in hunks_b:
            if ca > 0 and cb > 0:
                hit = sb <= sa + ca and sa <= sb + cb
            elif ca == 0 and cb == 0:
                hit = sa == sb
            else:
                (p, _), (s, c) = ((sa, ca), (sb, cb)) if ca == 0 else ((sb, cb), (sa, ca))
                hit = s - 1 <= p <= s + c - 1
            if hit:
                return True
    return False


def base_overlap_score(pair: BacktestPair) -> float:
    """Baseline: 1 when a shared file's base-side hunks collide, 0.5 for a shared file, else 0."""
    files_a, files_b = _paths(pair.files_a), _paths(pair.files_b)
    shared = files_a.keys() & files_b.keys()
    for path in shared:
        ha, hb = files_a[path].get("baseHunks"), files_b[path].get("baseHunks")
        if ha is None or hb is None or base_ranges_collide(ha, hb):
            return 1.0
    return 0.5 if shared else 0.0


def _merge(ranges: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted((min(r), max(r)) for r in ranges):
        if out and s <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _overlap_coefficient(ra: Sequence[Sequence[int]], rb: Sequence[Sequence[int]]) -> float:
    ma, mb = _merge(ra), _merge(rb)
    inter = sum(max(0, min(a1, b1) - max(a0, b0) + 1) for a0, a1 in ma for b0, b1 in mb)
    size = min(sum(e - s + 1 for s, e in ma), sum(e - s + 1 for s, e in mb))
    return inter / size if size else 0.0


def new_side_overlap_score(pair: BacktestPair) -> float:
    """Baseline: max over shared files of the new-side line overlap coefficient (no lines = whole
    file).

    This is the reference metric's overlap channel (ECC-PROXIMITY section 2) alone, in each branch's
    own coordinates, the weakness W1 names.
    """
    files_a, files_b = _paths(pair.files_a), _paths(pair.files_b)
    best = 0.0
    for path in files_a.keys() & files_b.keys():
        la, lb = files_a[path].get("lines"), files_b[path].get("lines")
        best = max(best, 1.0 if not la or not lb else _overlap_coefficient(la, lb))
    return best


def _bfs(
    adjacency: Mapping[str, Iterable[str]], sources: Iterable[str], hops: int
) -> dict[str, int]:
    dist = dict.fromkeys(sources, 0)
    queue = deque(dist)
    while queue:
        node = queue.popleft()
        if dist[node] >= hops:
            continue
        for nxt in adjacency.get(node, ()):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return dist


def relevant_subgraph(
    adjacency: Mapping[str, Iterable[str]],
    files_a: Iterable[str],
    files_b: Iterable[str],
    *,
    hops: int = 6,
) -> dict[str, tuple[str, ...]]:
    """The part of an import graph that any capped-BFS dependency channel can see for this pair.

    Keeps every node on a directed path of at most ``hops`` edges from a file of one side to a file
    of the other (in either direction), plus the direct imports and importers of every touched file
    (so a shared dependency a->c<-b or a shared dependent is kept), and every edge among the kept
    nodes. Storing this instead of the whole repository's graph keeps mined pairs small.
    """
    fwd = {k: tuple(v) for k, v in adjacency.items()}
    rev: dict[str, list[str]] = {}
    for src, dsts in fwd.items():
        for dst in dsts:
            rev.setdefault(dst, []).append(src)
    sa, sb = set(files_a), set(files_b)
    keep = set(sa | sb)
    for x, y in ((sa, sb), (sb, sa)):
        down, up = _bfs(fwd, x, hops), _bfs(rev, y, hops)
        keep |= {n for n, d in down.items() if n in up and d + up[n] <= hops}
    for f in sa | sb:
        keep |= set(fwd.get(f, ())) | set(rev.get(f, ()))
    return {
        n: tuple(sorted(d for d in fwd[n] if d in keep))
        for n in sorted(keep)
        if n in fwd and any(d in keep for d in fwd[n])
    }
