"""Dispatch a profile and engine to its scorer; each returns a :class:`PairTable`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.ecc_fast import score_ecc_fast
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.radar_fast import score_radar_fast
from proximity.engine.airspace.reference_radar import score_radar_reference
from proximity.engine.airspace.reference_scan import score_ecc_reference
from proximity.engine.airspace.table import PairTable

__all__ = ["ENGINES", "score"]

ENGINES = ("fast", "reference")
SYMBOL = "symbol"
MERGE_CHECK = "merge-check"
EXTRAS = (SYMBOL, MERGE_CHECK)


def score(
    airspace: Airspace,
    settings: Settings,
    now_ms: float,
    *,
    engine: str = "fast",
    focus: int | None = None,
) -> PairTable:
    """Channel values for the profile in ``settings``; ``now_ms`` drives recency and intent.
    ``focus``: only the pairs of the agent at that index (a pre-edit check's), each with the
    values the whole table gives it: a pair's channels read nothing of any third agent."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {ENGINES}")
    if settings.profile.name == "ecc-v0":
        fast = engine == "fast"
        return _only(
            score_ecc_fast(airspace, settings) if fast else score_ecc_reference(airspace, settings),
            focus,
        )
    if any(c in settings.profile.channels for c in EXTRAS):
        return _with_extras(airspace, settings, now_ms, engine, focus)
    if engine == "fast":
        return score_radar_fast(airspace, settings, now_ms, focus=focus)
    return _only(score_radar_reference(airspace, settings, now_ms), focus)


def _only(table: PairTable, focus: int | None) -> PairTable:
    """The rows of ``table`` that involve ``focus`` (all of them when it is None)."""
    if focus is None:
        return table
    mine = (table.i == focus) | (table.j == focus)
    evidence = table.evidence
    if evidence is not None:
        evidence = {k: v for k, v in evidence.items() if focus in k}
    return PairTable(table.i[mine], table.j[mine], table.channels[mine], evidence)


def _with_extras(
    airspace: Airspace, settings: Settings, now_ms: float, engine: str, focus: int | None
) -> PairTable:
    """The radar channels, then each extra column (``symbol``, ``merge-check``: last in the
    profile's order); pairs interacting through any are kept, in the radar tables' pair order."""
    names = settings.profile.channels
    channels = tuple(c for c in names if c not in EXTRAS)
    if names[: len(channels)] != channels:
        raise ValueError(f"profile {settings.profile.name}: {EXTRAS} must come last")
    text_settings = replace(settings, profile=replace(settings.profile, channels=channels))
    table = score(airspace, text_settings, now_ms, engine=engine, focus=focus)
    for name in names[len(channels) :]:
        if name == SYMBOL:
            table = _symbol_column(airspace, settings, table, engine, focus)
        else:
            table = _merge_check_column(airspace, table, focus)
    return table


def _symbol_column(
    airspace: Airspace, settings: Settings, table: PairTable, engine: str, focus: int | None
) -> PairTable:
    if airspace.symbols is None or not airspace.symbols.sides:
        zero = np.zeros((len(table.i), 1))
        return PairTable(table.i, table.j, np.hstack([table.channels, zero]), {})
    from proximity.engine.symbols.channel import Strengths
    from proximity.engine.symbols.scores import symbol_scores

    strengths = Strengths.of(settings.profile.symbol_strengths or {})
    ids = [a.agent_id for a in airspace.agents]
    found = symbol_scores(ids, airspace.symbols, strengths, engine=engine)
    i, j, value = found.i, found.j, np.clip(found.value, 0, 1)
    items = found.items
    if focus is not None:
        mine = (i == focus) | (j == focus)
        i, j, value = i[mine], j[mine], value[mine]
        items = {k: v for k, v in items.items() if focus in k}
    return _append(table, i, j, value, len(ids), items)


def _merge_check_column(airspace: Airspace, table: PairTable, focus: int | None) -> PairTable:
    """1.0 for a pair whose merge check found a problem only the merge has, else 0."""
    index = {a.agent_id: k for k, a in enumerate(airspace.agents)}
    pairs = sorted(
        {
            (min(index[c.a], index[c.b]), max(index[c.a], index[c.b]))
            for c in airspace.options.merge_checks
            if c.a in index and c.b in index and c.a != c.b
        }
    )
    if focus is not None:
        pairs = [p for p in pairs if focus in p]
    i = np.array([p[0] for p in pairs], dtype=np.int64)
    j = np.array([p[1] for p in pairs], dtype=np.int64)
    return _append(table, i, j, np.ones(len(pairs)), max(len(index), 1), table.evidence)


def _append(
    table: PairTable,
    i: NDArray[np.int64],
    j: NDArray[np.int64],
    values: NDArray[np.float64],
    n: int,
    evidence: Mapping[tuple[int, int], Any] | None,
) -> PairTable:
    """``table`` plus one column, ``values`` at pairs ``(i, j)`` (ascending), 0 elsewhere."""
    n = max(n, 1)
    width = table.channels.shape[1]
    text_keys, found_keys = table.i * n + table.j, i * n + j  # both ascending
    at = np.minimum(np.searchsorted(text_keys, found_keys), max(len(text_keys) - 1, 0))
    if len(text_keys) and np.array_equal(text_keys[at], found_keys):
        # Usual case (the tree channel pairs nearly everyone): no new pair, one new column.
        out = np.hstack([table.channels, np.zeros((len(text_keys), 1))])
        out[at, width] = values
        return PairTable(table.i, table.j, out, evidence)
    keys = np.union1d(text_keys, found_keys)
    out = np.zeros((len(keys), width + 1))
    out[np.searchsorted(keys, text_keys), :width] = table.channels
    out[np.searchsorted(keys, found_keys), width] = values
    return PairTable(keys // n, keys % n, out, evidence)
