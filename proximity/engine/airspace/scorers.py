"""Dispatch a profile and engine to its scorer; each returns a :class:`PairTable`."""

from __future__ import annotations

from proximity.engine.airspace.ecc_fast import score_ecc_fast
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.radar_fast import score_radar_fast
from proximity.engine.airspace.reference_radar import score_radar_reference
from proximity.engine.airspace.reference_scan import score_ecc_reference
from proximity.engine.airspace.table import PairTable

__all__ = ["ENGINES", "score"]

ENGINES = ("fast", "reference")


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
    if engine == "fast":
        return score_radar_fast(airspace, settings, now_ms)
    return score_radar_reference(airspace, settings, now_ms)
