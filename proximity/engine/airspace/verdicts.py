"""From channel values to verdicts: risk, bands, right of way, escalation, link selection."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.closure import closure_rates
from proximity.engine.airspace.combine import band_codes, noisy_or_arrays
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.rightofway import (
    cluster_right_of_way,
    ecc_priority_key,
    pair_right_of_way,
    parks_at_ms,
    radar_priority_key,
)
from proximity.engine.airspace.table import PairTable

__all__ = ["Verdicts", "decide"]


@dataclass(frozen=True, slots=True)
class Verdicts:
    """Per row of the pair table; ``links`` lists the rows to publish, best first."""

    table: PairTable
    risk: NDArray[np.float64]
    level: NDArray[np.int8]
    hold: NDArray[np.int64]
    steer: NDArray[np.int64]
    conflict: NDArray[np.bool_]
    escalated: NDArray[np.bool_]
    closure: NDArray[np.float64]
    cluster: NDArray[np.int64]
    links: NDArray[np.int64]
    parked: NDArray[np.bool_] | None = None
    """Per agent: parked, so yielding right of way (radar profiles; ``rightofway.is_parked``)."""
    parks_at_ms: NDArray[np.float64] | None = None
    """Per agent: when it counts as parked if it changes nothing more (NaN: never), what a
    steerer is told as the time to ask again (``rightofway.parks_at_ms``)."""
    published: NDArray[np.bool_] | None = None
    """Per agent: its work is published, so it never parks (``Agent.published``), told to a
    steerer while the repository has a parked time (the holder keeps its lines until it merges)."""


def _risk(table: PairTable, settings: Settings) -> NDArray[np.float64]:
    if len(table.i) == 0:
        return np.zeros(0)
    columns = [table.channels[:, k] for k in range(table.channels.shape[1])]
    return noisy_or_arrays(settings.weights, columns)


def _ecc_hold(
    airspace: Airspace, now_ms: float, table: PairTable, rows: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    keys = [ecc_priority_key(a, now_ms) for a in airspace.agents]
    hold = np.full(len(table.i), -1, dtype=np.int64)
    steer = hold.copy()
    for r in rows.tolist():
        hold[r], steer[r] = pair_right_of_way(keys, int(table.i[r]), int(table.j[r]))
    return hold, steer


def _order(risk: NDArray[np.float64], rows: NDArray[np.int64]) -> NDArray[np.int64]:
    # Stable sort by risk descending keeps the input pair order among ties, as the reference.
    ordered: NDArray[np.int64] = rows[np.argsort(-risk[rows], kind="stable")]
    return ordered


def decide(airspace: Airspace, settings: Settings, table: PairTable, now_ms: float) -> Verdicts:
    """Bands, right of way and published links for the profile in ``settings``."""
    risk = _risk(table, settings)
    level = band_codes(risk, settings.ta, settings.ra)
    n_rows = len(table.i)
    if settings.profile.name == "ecc-v0":
        hold, steer = _ecc_hold(airspace, now_ms, table, np.flatnonzero(level == 2))
        nothing = np.zeros(n_rows, dtype=bool)
        return Verdicts(
            table,
            risk,
            level,
            hold,
            steer,
            nothing,
            nothing,
            np.full(n_rows, np.nan),
            np.full(n_rows, -1, dtype=np.int64),
            _order(risk, np.arange(n_rows)),
        )
    return _decide_radar(airspace, settings, table, risk, level, now_ms)


def _decide_radar(
    airspace: Airspace,
    settings: Settings,
    table: PairTable,
    risk: NDArray[np.float64],
    level: NDArray[np.int8],
    now_ms: float,
) -> Verdicts:
    channels = settings.profile.channels
    conflict = table.channels[:, channels.index("conflict")] > 0
    ids = [a.agent_id for a in airspace.agents]
    closure = closure_rates(ids, table.i, table.j, risk, airspace.options.history, now_ms)
    escalated = (level == 1) & (closure >= airspace.options.closure_threshold)
    level = np.where(escalated | conflict, np.int8(2), level).astype(np.int8)
    rows = np.flatnonzero(level == 2)
    after_h = airspace.options.parked_after_hours
    after_s = settings.profile.parked_after_s if after_h is None else after_h * 3600.0
    after_ms = None if after_s is None else after_s * 1000.0
    keys = [radar_priority_key(a, now_ms, after_ms) for a in airspace.agents]
    parked = np.array([k[0] > 0 for k in keys], dtype=bool)
    parks_at = [parks_at_ms(a, after_ms) for a in airspace.agents]
    parks = np.array([np.nan if t is None else t for t in parks_at], dtype=np.float64)
    timed = after_ms is not None and after_ms > 0
    published = np.array([timed and a.published for a in airspace.agents], dtype=bool)
    row_of_way = cluster_right_of_way(keys, table.i[rows], table.j[rows])
    hold = np.full(len(risk), -1, dtype=np.int64)
    steer, cluster = hold.copy(), hold.copy()
    hold[rows], steer[rows], cluster[rows] = row_of_way.hold, row_of_way.steer, row_of_way.cluster
    links = _bounded_links(table, risk, level, len(ids), airspace.options.links_per_agent)
    return Verdicts(
        table, risk, level, hold, steer, conflict, escalated, closure, cluster, links,
        parked=parked, parks_at_ms=parks, published=published,
    )  # fmt: skip


def _bounded_links(
    table: PairTable, risk: NDArray[np.float64], level: NDArray[np.int8], n: int, per_agent: int
) -> NDArray[np.int64]:
    """Every non-clear pair plus each agent's ``per_agent`` riskiest non-zero pairs (W15).

    "Riskiest" is by risk, then input pair order, the order links are published in.
    """
    keep = level > 0
    order = _order(risk, np.arange(len(risk)))
    if per_agent > 0 and len(risk) and n > 1:
        rank = np.empty(len(risk), dtype=np.int64)
        rank[order] = np.arange(len(risk))
        rank[risk <= 0] = len(risk)
        grid = np.full((n, n), len(risk), dtype=np.int64)
        grid[table.i, table.j] = grid[table.j, table.i] = rank
        k = min(per_agent, n - 1)
        kth = np.partition(grid, k - 1, axis=1)[:, k - 1]
        keep |= ((rank <= kth[table.i]) | (rank <= kth[table.j])) & (risk > 0)
    return order[keep[order]]
