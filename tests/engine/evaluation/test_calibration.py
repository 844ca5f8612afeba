"""Isotonic and Platt calibration, and the versioned calibration artefact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from proximity.engine.evaluation.calibration import (
    CalibrationArtefact,
    apply_calibration,
    artefact_from_json,
    artefact_to_json,
    calibrated_risk,
    fit_isotonic,
    fit_platt,
    pool_adjacent_violators,
    pool_adjacent_violators_reference,
)


@pytest.mark.parametrize("impl", [pool_adjacent_violators, pool_adjacent_violators_reference])
@pytest.mark.parametrize(
    ("y", "w", "expected"),
    [
        ([1, 3, 2, 4], None, [1, 2.5, 2.5, 4]),
        ([3, 2, 1], None, [2, 2, 2]),
        ([0, 1, 0], [1, 1, 3], [0, 0.25, 0.25]),
        ([1, 2, 3], None, [1, 2, 3]),
    ],
)
def test_pav_matches_hand_computed_fits(impl: Any, y: Any, w: Any, expected: Any) -> None:
    assert impl(y, w) == pytest.approx(expected)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.9, 1.0]), st.booleans(), st.floats(0.5, 5)
        ),
        min_size=2,
        max_size=40,
    )
)
def test_isotonic_fit_agrees_with_scikit_learn_and_is_monotone(rows: Any) -> None:
    s, y, w = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    fitted = fit_isotonic(s, y, weights=w)
    grid = np.linspace(-0.2, 1.2, 29)
    ours = fitted(grid)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w).predict(grid)
    assert ours == pytest.approx(ref, abs=1e-9)
    assert np.all(np.diff(ours) >= -1e-12)
    assert pool_adjacent_violators(y, w) == pytest.approx(pool_adjacent_violators_reference(y, w))


def test_platt_map_is_increasing_and_tracks_the_base_rate() -> None:
    rng = np.random.default_rng(0)
    s = rng.random(2000)
    y = rng.random(2000) < s
    m = fit_platt(s, y)
    p = m(np.array([0.0, 0.5, 1.0]))
    assert m.a < 0
    assert np.all(np.diff(p) > 0)
    assert p[1] == pytest.approx(0.5, abs=0.06)


def test_platt_stays_finite_on_separable_data() -> None:
    s = np.array([0.1] * 50 + [1.0] * 10)
    y = np.array([False] * 50 + [True] * 10)
    m = fit_platt(s, y, weights=np.r_[np.full(50, 6.5), np.ones(10)])
    p = m(np.array([0.1, 1.0]))
    assert abs(m.a) < 1e3
    assert 0 < p[0] < 0.05
    assert 0.8 < p[1] < 1


def _artefact() -> Any:
    iso = fit_isotonic([0.1, 0.5, 0.9], [0, 1, 1])
    return CalibrationArtefact(
        kind="isotonic",
        profile="radar-v1",
        scorer_version="test",
        params={"x": list(iso.x), "y": list(iso.y)},
        provenance={"repository": "demo", "commitRange": "a..b", "splitSeed": 0},
        fitted_on="demo train split",
    )


def test_artefact_round_trips_and_reports_probabilities_with_its_digest() -> None:
    """Requirement 67: the stored map is versioned by a digest of its content."""
    art = _artefact()
    back = artefact_from_json(artefact_to_json(art))
    assert back.digest == art.digest
    assert apply_calibration(back, [0.1, 0.9]) == pytest.approx([0.0, 1.0])


def test_tampered_artefact_is_rejected() -> None:
    text = artefact_to_json(_artefact()).replace('"demo train split"', '"other"')
    with pytest.raises(ValueError, match="digest"):
        artefact_from_json(text)


def test_artefact_missing_a_field_names_it() -> None:
    with pytest.raises(ValueError, match="provenance"):
        artefact_from_json(
            '{"format":"overlap-radar/calibration@1","kind":"isotonic","profile":"p",'
            '"scorerVersion":"s","params":{"x":[0],"y":[0]},"fittedOn":"f"}'
        )


def test_calibrated_risk_is_labelled_with_its_data_and_never_validated() -> None:
    """Requirement 72: a local probability says where it was fitted."""
    art = _artefact()
    shown = calibrated_risk(art, 0.9, profile="radar-v1")
    assert shown.probability == pytest.approx(1.0)
    assert "demo train split" in shown.label
    assert art.digest in shown.label
    assert "locally selected" in shown.label
    assert "validated" not in shown.label
    with pytest.raises(ValueError, match="profile"):
        calibrated_risk(art, 0.9, profile="ecc-v0")


@pytest.mark.parametrize("kind", ["isotonic", "platt"])
def test_committed_backtest_artefacts_verify_and_carry_their_provenance(kind: str) -> None:
    """The stored maps load, match their digests, and say what they were fitted on."""
    path = Path(__file__).parents[3] / f"proximity/fixtures/calibration/radar-v1-pip-{kind}.json"
    art = artefact_from_json(path.read_text(encoding="utf-8"))
    assert art.kind == kind
    assert art.profile == "radar-v1"
    for key in ("repository", "train", "firstMerge", "lastMerge", "pairs", "splitSeed"):
        assert key in art.provenance
    probs = art.probability(np.linspace(0, 1, 11))
    assert np.all(np.diff(probs) >= -1e-12)
    assert 0.0 <= probs[0] <= probs[-1] <= 1.0


@pytest.mark.parametrize("kind", ["isotonic", "platt"])
def test_committed_artefacts_match_the_current_scorer_and_radar_v1_defaults(kind: str) -> None:
    """A shipped map is applied to every radar-v1 risk, so it must have been fitted with this
    scorer on the profile's current defaults; a changed SCORER_VERSION or default fails here until
    the maps are refitted (bench/backtest.py --setting profile-defaults, docs/EVALUATION.md).
    """
    from proximity.engine.airspace import PROFILES, SCORER_VERSION

    v1 = PROFILES["radar-v1"]
    path = Path(__file__).parents[3] / f"proximity/fixtures/calibration/radar-v1-pip-{kind}.json"
    art = artefact_from_json(path.read_text(encoding="utf-8"))
    assert art.scorer_version == SCORER_VERSION
    assert art.metrics["setting"] == {
        "channelWeights": dict(v1.weights),
        "depDecay": v1.dep_decay,
        "dependencyCap": v1.dependency_cap,
        "overlapFloor": v1.overlap_floor,
    }
    assert (art.metrics["traffic"], art.metrics["resolution"]) == (v1.ta, v1.ra)
