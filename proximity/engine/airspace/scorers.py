"""Dispatch a profile and engine to its scorer; each returns a :class:`PairTable`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

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


def score(
    airspace: Airspace, settings: Settings, now_ms: float, *, engine: str = "fast"
) -> PairTable:
    """Channel values for the profile in ``settings``; ``now_ms`` drives recency and intent."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {ENGINES}")
    if settings.profile.name == "ecc-v0":
        fast = engine == "fast"
        return (
            score_ecc_fast(airspace, settings) if fast else score_ecc_reference(airspace, settings)
        )
    if SYMBOL in settings.profile.channels:
        return _with_symbols(airspace, settings, now_ms, engine)
    if engine == "fast":
        return score_radar_fast(airspace, settings, now_ms)
    return score_radar_reference(airspace, settings, now_ms)


def _with_symbols(airspace: Airspace, settings: Settings, now_ms: float, engine: str) -> PairTable:
    """The radar channels, then the ``symbol`` column (last in the profile's order); pairs
    interacting through either are kept, in the radar tables' pair order."""
    channels = tuple(c for c in settings.profile.channels if c != SYMBOL)
    text_settings = replace(settings, profile=replace(settings.profile, channels=channels))
    text = score(airspace, text_settings, now_ms, engine=engine)
    if airspace.symbols is None or not airspace.symbols.sides:
        zero = np.zeros((len(text.i), 1))
        return PairTable(text.i, text.j, np.hstack([text.channels, zero]), {})
    from proximity.engine.symbols.channel import Strengths, symbol_scores

    strengths = Strengths.of(settings.profile.symbol_strengths or {})
    ids = [a.agent_id for a in airspace.agents]
    found = symbol_scores(ids, airspace.symbols, strengths, engine=engine)
    n = max(len(ids), 1)
    text_keys, found_keys = text.i * n + text.j, found.i * n + found.j  # both ascending
    at = np.minimum(np.searchsorted(text_keys, found_keys), max(len(text_keys) - 1, 0))
    if len(text_keys) and np.array_equal(text_keys[at], found_keys):
        # Usual case (the tree channel pairs nearly everyone): no new pair, one new column.
        out = np.hstack([text.channels, np.zeros((len(text_keys), 1))])
        out[at, len(channels)] = np.clip(found.value, 0, 1)
        return PairTable(text.i, text.j, out, found.items)
    keys = np.union1d(text_keys, found_keys)
    out = np.zeros((len(keys), len(channels) + 1))
    out[np.searchsorted(keys, text_keys), : len(channels)] = text.channels
    out[np.searchsorted(keys, found_keys), len(channels)] = np.clip(found.value, 0, 1)
    return PairTable(keys // n, keys % n, out, found.items)
