"""Whole scan outputs frozen in tests/engine/data/airspace/ (positions, order, every field).

The expected file was produced by this engine and reviewed by hand against the reference's
rules (ECC-PROXIMITY.md sections 2-3); a change to it needs a SCORER_VERSION bump.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from proximity.engine.airspace import scan

DATA = Path(__file__).resolve().parents[1] / "data" / "airspace" / "small_scan.json"


def _close(got: Any, want: Any) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        return math.isclose(got, want, rel_tol=0, abs_tol=1e-9)
    if isinstance(want, dict):
        return got.keys() == want.keys() and all(_close(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want, strict=True))
    return bool(got == want)


@pytest.mark.parametrize("profile", ["ecc-v0", "radar-v1"])
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_scan_output_matches_the_golden_file(profile: str, engine: str) -> None:
    golden = json.loads(DATA.read_text())
    got = scan(golden["input"], profile=profile, engine=engine)
    want = golden["output"][profile]
    assert _close(got, want)
