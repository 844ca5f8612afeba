"""The calibrated conflict probability shown beside a raw risk, with what it was fitted on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from proximity import fixtures
from proximity.engine.airspace.profiles import PROFILES
from proximity.engine.evaluation.calibration import (
    CalibrationArtefact,
    artefact_from_json,
    calibrated_risk,
)

__all__ = ["calibrate"]

_FOLDER = Path(fixtures.__file__).parent / "calibration"


@lru_cache(maxsize=8)
def _artefact(profile: str) -> CalibrationArtefact | None:
    """The shipped isotonic map of a profile, read once per process; None when there is none."""
    path = _FOLDER / f"{profile}-pip-isotonic.json"
    return artefact_from_json(path.read_text()) if path.is_file() else None


@lru_cache(maxsize=8)
def _extends(profile: str) -> tuple[str, tuple[str, ...]] | None:
    """``(base, extra channels)`` when ``profile`` is a mapped profile with channels appended and
    nothing else changed (``radar-v1-symbols`` is ``radar-v1`` plus ``symbol`` and
    ``merge-check``): with the extra channels at 0 its risk is the base's to the bit, so the
    base's map applies to it exactly there."""
    p = PROFILES.get(profile)
    if p is None:
        return None
    for name, base in PROFILES.items():
        n = len(base.channels)
        if name == profile or p.channels[:n] != base.channels or _artefact(name) is None:
            continue
        same = replace(p, name=base.name, channels=base.channels, weights=base.weights,
                       symbol_strengths=base.symbol_strengths)  # fmt: skip
        weights = all(p.weights.get(c) == base.weights.get(c) for c in base.channels)
        if weights and same == base:
            return name, p.channels[n:]
    return None


def calibrate(
    risk: float,
    *,
    profile: str,
    scorer_version: str,
    channels: Mapping[str, float] | None = None,
) -> tuple[float | None, str]:
    """P(textual conflict) for ``risk`` by the profile's shipped map; for a profile that only
    appends channels to a mapped one, by the base's map where the appended channels are silent
    on this pair (``channels``), else none (a symbol coupling is not a textual conflict)."""
    artefact, mapped, via = _artefact(profile), profile, ""
    if artefact is None:
        extends = _extends(profile)
        if extends is None or channels is None or any(channels.get(c) for c in extends[1]):
            return None, ""
        mapped = extends[0]
        artefact = _artefact(mapped)
        via = f"; {mapped}'s map: no {'/'.join(extends[1])} evidence"
    if artefact is None:
        return None, ""
    result = calibrated_risk(artefact, risk, profile=mapped)
    note = (
        ""
        if artefact.scorer_version == scorer_version
        else (f"; fitted with scorer {artefact.scorer_version}, scored with {scorer_version}")
    )
    return result.probability, (result.label + via + note)[:200]
