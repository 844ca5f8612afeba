"""radar-v1 working sets as flat arrays, built without per-file Python objects.

The same quantities as :class:`.reference_radar.WorkingSet` (recency weights, base keys,
merged doubled-coordinate regions, active intent), laid out for the vectorised scorer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.coupling import FileHolders
from proximity.engine.airspace.crossing import IntervalSets
from proximity.engine.airspace.ecc_fast import holders_of
from proximity.engine.airspace.model import Airspace, FileChange
from proximity.engine.airspace.regions import base_key, identified_hunks, twin_channels

__all__ = ["RadarArrays", "Twins", "radar_arrays"]

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


class RadarArrays(NamedTuple):
    paths: list[str]
    holders: FileHolders
    unit_agent: Ints
    unit_key: Ints
    unit_overlap_weight: Floats
    """Each unit's recency weight with the overlap and adjacency channels' floor
    (``overlap_floor``): the weight of git's conflict rule, which does not fade."""
    unit_whole: NDArray[np.bool_]
    regions: IntervalSets
    intent: list[list[str]]
    twins: Twins | None = None
    """Unit pairs that made some hunk identically, with their channels recomputed without
    those hunks (:func:`.regions.twin_channels`); ``None`` when there are none."""


class Twins(NamedTuple):
    """Unordered unit pairs ``min * n_units + max`` (sorted) and each one's overlap
    coefficient and abutting flag with the identical hunks set apart."""

    codes: Ints
    coefficient: Floats
    touching: NDArray[np.bool_]


def _doubled(change: FileChange) -> list[tuple[int, int]] | None:
    if change.base_hunks:
        return [
            (2 * s, 2 * (s + c - 1)) if c > 0 else (2 * s + 1, 2 * s + 1)
            for s, c in change.base_hunks
        ]
    if change.lines:
        return [(2 * s, 2 * e) for s, e in change.lines]
    return None


def _weights(airspace: Airspace, now_ms: float, floor: float) -> Floats:
    """Vectorised :func:`.recency.recency_weight`, the same float operations."""
    opts = airspace.options
    files = [f for a in airspace.agents for f in a.files]
    raw = np.array([f.reference_weight for f in files], dtype=np.float64)
    touched = np.array([np.nan if f.touched_at_ms is None else f.touched_at_ms for f in files])
    base = np.minimum(1.0, np.maximum(0.0, raw))
    age = np.maximum(0.0, (now_ms - np.nan_to_num(touched)) / 1000.0)
    decay = floor + (1.0 - floor) * 0.5 ** (age / opts.half_life_s)
    weights: Floats = np.where(np.isnan(touched), base, base * decay)
    return weights


def _merge(unit: Ints, start: Ints, end: Ints, n_units: int) -> IntervalSets:
    """Union of inclusive integer intervals per unit (adjacent integers merge)."""
    order = np.lexsort((start, unit))
    unit, start, end = unit[order], start[order], end[order]
    if len(unit) == 0:
        return IntervalSets(np.zeros(n_units + 1, dtype=np.int64), start, end)
    shift = int(max(end.max(), 0) - min(start.min(), 0)) + 4
    base = unit * shift - min(int(start.min()), 0)
    reach = np.maximum.accumulate(end + base)
    fresh = np.ones(len(unit), dtype=bool)
    fresh[1:] = (unit[1:] != unit[:-1]) | (start[1:] + base[1:] > reach[:-1] + 1)
    group = np.cumsum(fresh) - 1
    new_start = start[fresh]
    new_end = np.zeros(int(group[-1]) + 1, dtype=np.int64)
    np.maximum.at(new_end, group, end)
    ptr = np.searchsorted(unit[fresh], np.arange(n_units + 1)).astype(np.int64)
    return IntervalSets(ptr, new_start, new_end)


def radar_arrays(
    airspace: Airspace, now_ms: float, *, overlap_floor: float | None = None
) -> RadarArrays:
    """``overlap_floor``: the profile's ``overlap_recency_floor`` (``None``: no separate floor)."""
    files = [(a, f) for a, agent in enumerate(airspace.agents) for f in agent.files]
    floor = airspace.options.recency_floor
    weight = _weights(airspace, now_ms, floor)
    sticky = (
        weight if overlap_floor is None else _weights(airspace, now_ms, max(floor, overlap_floor))
    )
    paths = list(dict.fromkeys(f.path for _, f in files))
    pid = {p: k for k, p in enumerate(paths)}
    agent = np.array([a for a, _ in files], dtype=np.int64)
    holders = holders_of(
        np.array([pid[f.path] for _, f in files], dtype=np.int64), agent, weight, len(paths)
    )
    keys: dict[str, int] = {}
    key = np.array([keys.setdefault(base_key(f), len(keys)) for _, f in files], dtype=np.int64)
    unit_code = agent * max(len(keys), 1) + key
    codes, unit_of = np.unique(unit_code, return_inverse=True)
    n_units = len(codes)
    unit_overlap_weight = np.zeros(n_units)
    np.maximum.at(unit_overlap_weight, unit_of, sticky)
    regions = [_doubled(f) for _, f in files]
    whole = np.zeros(n_units, dtype=bool)
    whole[unit_of[[k for k, r in enumerate(regions) if r is None]]] = True
    owner = [int(unit_of[k]) for k, r in enumerate(regions) if r for _ in r]
    flat = [iv for r in regions if r for iv in r]
    merged = _merge(
        np.array(owner, dtype=np.int64),
        np.array([s for s, _ in flat], dtype=np.int64),
        np.array([e for _, e in flat], dtype=np.int64),
        n_units,
    )
    merged = _without(merged, whole)
    intent = [[i.path for i in a.intent if i.active(now_ms)] for a in airspace.agents]
    n_keys = max(len(keys), 1)
    return RadarArrays(
        paths,
        holders,
        codes // n_keys,
        codes % n_keys,
        unit_overlap_weight,
        whole,
        merged,
        intent,
        _twins(files, unit_of, codes // n_keys, codes % n_keys),
    )


def _twins(
    files: list[tuple[int, FileChange]], unit_of: Ints, unit_agent: Ints, unit_key: Ints
) -> Twins | None:
    """The unit pairs sharing an identical hunk (none unless working sets carry hunk ids);
    only files that two agents changed are looked at."""
    units, keys, agents = unit_of.tolist(), unit_key.tolist(), unit_agent.tolist()
    shared = (np.bincount(unit_key)[unit_key] > 1)[unit_of].tolist()
    listed: dict[int, list[FileChange]] = {}
    holders: dict[tuple[int, int, int, str], list[int]] = {}
    for (_, f), u, both in zip(files, units, shared, strict=True):
        if not both:
            continue
        listed.setdefault(u, []).append(f)
        if f.hunk_ids and f.base_hunks and len(f.hunk_ids) == len(f.base_hunks):
            for (start, count), h in zip(f.base_hunks, f.hunk_ids, strict=True):
                holders.setdefault((keys[u], start, count, h), []).append(u)
    pairs = {
        (min(u, v), max(u, v))
        for us in holders.values()
        if len(us) > 1
        for n, u in enumerate(us)
        for v in us[n + 1 :]
        if agents[u] != agents[v]
    }
    if not pairs:
        return None
    ordered = sorted(pairs)
    hunks = {u: identified_hunks(listed[u]) for pair in ordered for u in pair}
    found = [twin_channels(hunks[u], hunks[v]) for u, v in ordered]
    kept = [(pair, c) for pair, c in zip(ordered, found, strict=True) if c is not None]
    if not kept:
        return None
    n_units = len(unit_agent)
    return Twins(
        np.array([u * n_units + v for (u, v), _ in kept], dtype=np.int64),
        np.array([c[0] for _, c in kept], dtype=np.float64),
        np.array([c[1] for _, c in kept], dtype=bool),
    )


def _without(sets: IntervalSets, whole: NDArray[np.bool_]) -> IntervalSets:
    """Drop the intervals of whole-file units (a whole file needs no ranges)."""
    counts = np.where(whole, 0, np.diff(sets.ptr))
    owner = np.repeat(np.arange(len(whole)), np.diff(sets.ptr))
    keep = ~whole[owner]
    ptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    return IntervalSets(ptr, sets.start[keep], sets.end[keep])
