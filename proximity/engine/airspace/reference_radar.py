"""radar-v1, the straightforward per-pair implementation (the baseline for the fast scorer).

Channels, in noisy-OR order: conflict (dry-run merge), overlap (base-side regions), adjacency
(abutting regions), dependency (undirected, through untouched files), intent, tree (files in
one directory count as siblings, so one file is not counted twice). See docs/DECISIONS.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from proximity.engine.airspace.model import Agent, Airspace, FileChange
from proximity.engine.airspace.paths import is_prefix_path, path_segments
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.recency import recency_weight
from proximity.engine.airspace.reference_ecc import graph_distance
from proximity.engine.airspace.regions import (
    IdentifiedHunks,
    abuts,
    base_key,
    base_regions,
    identified_hunks,
    region_overlap,
    twin_channels,
    union,
)
from proximity.engine.airspace.table import PairTable, all_pairs

__all__ = ["WorkingSet", "radar_pair_channels", "score_radar_reference", "working_sets"]

Interval = tuple[int, int]


class WorkingSet:
    """An agent's files with radar-v1 weights, base regions and active intent.

    ``overlap_weights`` (per base key) take ``overlap_floor`` as their recency floor, the
    profile's ``overlap_recency_floor``: the overlap and adjacency channels' weights.
    """

    def __init__(
        self,
        agent: Agent,
        now_ms: float,
        floor: float,
        half_life_s: float,
        *,
        overlap_floor: float | None = None,
    ) -> None:
        self.weights: dict[str, float] = {}
        by_key: dict[str, list[list[Interval] | None]] = {}
        entries: dict[str, list[FileChange]] = {}
        self.overlap_weights: dict[str, float] = {}
        sticky = floor if overlap_floor is None else max(floor, overlap_floor)
        for f in agent.files:
            w = recency_weight(f, now_ms, floor=floor, half_life_s=half_life_s)
            self.weights[f.path] = max(w, self.weights.get(f.path, 0.0))
            key = base_key(f)
            by_key.setdefault(key, []).append(base_regions(f))
            entries.setdefault(key, []).append(f)
            wo = recency_weight(f, now_ms, floor=sticky, half_life_s=half_life_s)
            self.overlap_weights[key] = max(wo, self.overlap_weights.get(key, 0.0))
        self.regions = {key: union(regions) for key, regions in by_key.items()}
        self.hunks: dict[str, IdentifiedHunks | None] = {
            key: identified_hunks(listed) for key, listed in entries.items()
        }
        self.intent = [i.path for i in agent.intent if i.active(now_ms)]


def working_sets(
    airspace: Airspace, now_ms: float, *, overlap_floor: float | None = None
) -> list[WorkingSet]:
    opts = airspace.options
    return [
        WorkingSet(a, now_ms, opts.recency_floor, opts.half_life_s, overlap_floor=overlap_floor)
        for a in airspace.agents
    ]


def _overlap_adjacency(a: WorkingSet, b: WorkingSet, floor: float | None) -> tuple[float, float]:
    overlap = adjacency = 0.0
    for key in a.regions.keys() & b.regions.keys():
        # overlap and abutting are git's conflict rule: both keep the overlap's recency floor
        w = a.overlap_weights[key] * b.overlap_weights[key]
        twins = twin_channels(a.hunks[key], b.hunks[key])
        if twins is None:
            coefficient = region_overlap(a.regions[key], b.regions[key])
            touching = coefficient == 0 and abuts(a.regions[key], b.regions[key])
        else:
            coefficient, touching = twins
        if floor is not None and coefficient > 0:
            coefficient = max(coefficient, floor)
        overlap = max(overlap, a.overlap_weights[key] * b.overlap_weights[key] * coefficient)
        if touching:
            adjacency = max(adjacency, w)
    return overlap, adjacency


def _dependency(
    a: WorkingSet, b: WorkingSet, undirected: Mapping[str, Sequence[str]], gamma: float, cap: int
) -> float:
    best = 0.0
    for f, wf in a.weights.items():
        for g, wg in b.weights.items():
            d = graph_distance(undirected, f, g, cap=cap)
            if d != 0 and not math.isinf(d):
                best = max(best, wf * wg * gamma ** (d - 1))
    return best


def _intent(a: WorkingSet, b: WorkingSet) -> float:
    best = 0.0
    for x, y in ((a, b), (b, a)):
        for declared in x.intent:
            for path, w in y.weights.items():
                if is_prefix_path(declared, path):
                    best = max(best, w)
            if any(is_prefix_path(declared, o) or is_prefix_path(o, declared) for o in y.intent):
                best = 1.0
    return best


def radar_tree_distance(p: str, q: str) -> float:
    """The reference's tree distance with ``L`` counted over directories only."""
    sp, sq = path_segments(p), path_segments(q)
    common = 0
    for x, y in zip(sp[:-1], sq[:-1], strict=False):
        if x != y:
            break
        common += 1
    return ((len(sp) - common) + (len(sq) - common)) / (len(sp) + len(sq))


def _tree(a: WorkingSet, b: WorkingSet) -> float:
    smallest = min((radar_tree_distance(f, g) for f in a.weights for g in b.weights), default=1.0)
    return 1.0 - smallest


def radar_pair_channels(
    a: WorkingSet,
    b: WorkingSet,
    undirected: Mapping[str, Sequence[str]],
    *,
    conflict: bool,
    gamma: float,
    cap: int,
    overlap_floor: float | None = None,
) -> tuple[float, ...]:
    """radar-v1 channels in profile order for one pair."""
    overlap, adjacency = _overlap_adjacency(a, b, overlap_floor)
    dependency = _dependency(a, b, undirected, gamma, cap)
    return (float(conflict), overlap, adjacency, dependency, _intent(a, b), _tree(a, b))


def undirected_graph(adjacency: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Both directions of every edge, self-loops dropped (shared dependencies become 2 hops)."""
    out: dict[str, list[str]] = {}
    for source, targets in adjacency.items():
        for target in targets:
            if target != source:
                out.setdefault(source, []).append(target)
                out.setdefault(target, []).append(source)
    return out


def conflict_pairs(airspace: Airspace) -> set[frozenset[str]]:
    return {frozenset((c.a, c.b)) for c in airspace.options.conflicts if c.a != c.b}


def score_radar_reference(airspace: Airspace, settings: Settings, now_ms: float) -> PairTable:
    """Every pair, one at a time; pairs whose channels are all 0 are dropped."""
    sets = working_sets(airspace, now_ms, overlap_floor=settings.overlap_recency_floor)
    graph = undirected_graph(airspace.adjacency)
    conflicts = conflict_pairs(airspace)
    ids = [a.agent_id for a in airspace.agents]
    i, j = all_pairs(len(sets))
    values = np.zeros((len(i), len(settings.profile.channels)))
    for k, (x, y) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
        hit = frozenset((ids[x], ids[y])) in conflicts
        values[k] = radar_pair_channels(
            sets[x],
            sets[y],
            graph,
            conflict=hit,
            gamma=settings.dep_decay,
            cap=settings.dependency_cap,
            overlap_floor=settings.overlap_floor,
        )
    keep = values.any(axis=1)
    return PairTable(i[keep], j[keep], values[keep])
