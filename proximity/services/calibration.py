"""The calibrated conflict probability shown beside a raw risk, with what it was fitted on."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from proximity import fixtures
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


def calibrate(risk: float, *, profile: str, scorer_version: str) -> tuple[float | None, str]:
    artefact = _artefact(profile)
    if artefact is None:
        return None, ""
    result = calibrated_risk(artefact, risk, profile=profile)
    note = (
        ""
        if artefact.scorer_version == scorer_version
        else (f"; fitted with scorer {artefact.scorer_version}, scored with {scorer_version}")
    )
    return result.probability, (result.label + note)[:200]
