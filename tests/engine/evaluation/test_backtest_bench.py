"""bench/backtest.py: calibration maps fitted for a fixed setting (radar-v1's current defaults)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import backtest
from proximity.engine.airspace import PROFILES, SCORER_VERSION
from proximity.engine.evaluation.calibration import artefact_from_json
from proximity.engine.evaluation.tuning import radar_risk

V1 = PROFILES["radar-v1"]

# (base hunks of A in x.py, base hunks of B in x.py or None for another file, conflict)
KINDS: dict[str, tuple[list[list[int]], list[list[int]] | None, bool]] = {
    "overlap": ([[10, 3]], [[11, 2]], True),
    "touching lines": ([[10, 2]], [[12, 1]], True),
    # insertions after lines 10 and 11: gap 2 in doubled positions, so the tuning features'
    # margin-2 rule calls them abutting; the scan has not since airspace-2026.11.2 (git merges them)
    "insertions a line apart": ([[10, 0]], [[11, 0]], False),
    "far apart": ([[10, 1]], [[40, 1]], False),
    "other file": ([[10, 1]], None, False),
}


def _row(n: int, kind: str, merged: str, repo: str) -> dict[str, Any]:
    a, b, conflict = KINDS[kind]
    files_b = (
        [{"path": "pkg/x.py", "baseHunks": b, "status": "M"}]
        if b is not None
        else [{"path": "docs/y.md", "baseHunks": [[1, 1]], "status": "M"}]
    )
    return {
        "format": "overlap-radar/backtest-pair@1",
        "repo": repo,
        "pairId": f"{repo}#{n}",
        "conflict": conflict,
        "stratum": "shared-file" if b is not None else "disjoint",
        "weight": 1.0 if b is not None else 3.0,
        "cluster": f"c{n % 7}",
        "a": {"pr": n, "mergedAt": merged},
        "b": {"pr": n + 1000, "mergedAt": merged},
        "filesA": [{"path": "pkg/x.py", "baseHunks": a, "status": "M"}],
        "filesB": files_b,
        "imports": {},
    }


def _write(path: Path, dates: list[str], repo: str) -> Path:
    rows = [
        _row(i * len(KINDS) + k, kind, d, repo)
        for i, d in enumerate(dates)
        for k, kind in enumerate(KINDS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def pair_files(tmp_path: Path) -> tuple[Path, Path]:
    dates = ["2019-01-05", "2019-06-01", "2020-02-01", "2022-01-01", "2023-01-01"]
    tune = _write(tmp_path / "tune.jsonl", [f"{d}T00:00:00Z" for d in dates], "o/tune")
    external = _write(
        tmp_path / "ext.jsonl", ["2018-01-01T00:00:00Z", "2024-01-01T00:00:00Z"], "o/ext"
    )
    return tune, external


def _run(tune: Path, external: Path, *extra: str) -> None:
    argv = ["--tune", str(tune), "--cut", "2021-01-01", "--external", str(external)]
    assert backtest.main([*argv, "--resamples", "5", *extra]) == 0


def test_profile_defaults_fits_the_scanned_risk_and_records_the_profile(
    pair_files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tune, external = pair_files
    target = tmp_path / "cal" / "radar-v1-t.json"
    _run(tune, external, "--setting", "profile-defaults", "--artefact", str(target))
    printed = capsys.readouterr().out
    assert "radar-v1 defaults (scan)" in printed

    train = [p for p in backtest.load(str(tune)) if p.merged_at < "2021-01-01"]
    scanned = backtest.profile_risk(train, "radar-v1")
    featured = radar_risk(backtest.features(train), backtest.feature_setting(V1))
    assert not np.allclose(scanned, featured)  # the insertion pairs tell the two rules apart

    expected_setting = {
        "channelWeights": dict(V1.weights),
        "depDecay": V1.dep_decay,
        "dependencyCap": V1.dependency_cap,
        "overlapFloor": V1.overlap_floor,
    }
    for kind in ("isotonic", "platt"):
        path = tmp_path / "cal" / f"radar-v1-t-{kind}.json"
        art = artefact_from_json(path.read_text(encoding="utf-8"))
        assert (art.kind, art.profile, art.scorer_version) == (kind, "radar-v1", SCORER_VERSION)
        assert art.metrics["setting"] == expected_setting
        assert (art.metrics["traffic"], art.metrics["resolution"]) == (V1.ta, V1.ra)
        assert art.provenance["repository"] == "o/tune"
        assert (art.provenance["pairs"], art.provenance["conflicts"]) == (15, 6)
        assert art.fitted_on == "o/tune train slice (< 2021-01-01)"
    iso = artefact_from_json((tmp_path / "cal" / "radar-v1-t-isotonic.json").read_text())
    # breakpoints are the distinct risks the scan gives the train pairs, not the features' risks
    assert list(iso.params["x"]) == sorted(set(scanned.tolist()))
    # the fitted rates: overlap and touching lines always conflict, everything else never
    probs = iso.probability(scanned)
    labels = np.array([p.conflict for p in train])
    assert probs[labels] == pytest.approx(1.0)
    assert probs[~labels] == pytest.approx(0.0)


def test_profile_defaults_refuses_other_thresholds(pair_files: tuple[Path, Path]) -> None:
    tune, external = pair_files
    with pytest.raises(SystemExit):
        _run(tune, external, "--setting", "profile-defaults", "--ta", "0.5")
    _run(tune, external, "--setting", "profile-defaults", "--ta", str(V1.ta), "--ra", str(V1.ra))


def test_tuned_setting_still_records_the_best_train_setting(
    pair_files: tuple[Path, Path], tmp_path: Path
) -> None:
    tune, external = pair_files
    target = tmp_path / "t.json"
    _run(tune, external, "--artefact", str(target), "--ta", "0.35", "--ra", "0.7")
    art = artefact_from_json((tmp_path / "t-platt.json").read_text(encoding="utf-8"))
    assert art.scorer_version == SCORER_VERSION
    keys = {"channelWeights", "depDecay", "dependencyCap", "adjacencyMargin", "overlapFloor"}
    assert set(art.metrics["setting"]) == keys
    assert "risk" not in art.metrics


def test_features_measure_the_raw_overlap_not_the_profiles_floor(tmp_path: Path) -> None:
    """radar-v1's default overlap floor (1.0) must not leak into the grid's raw channels."""
    row = _row(1, "overlap", "2019-01-01T00:00:00Z", "o/r")
    row["filesA"][0]["baseHunks"] = [[10, 10]]  # lines 10-19
    row["filesB"][0]["baseHunks"] = [[19, 5]]  # lines 19-23: one shared line
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    pairs = backtest.load(str(path))
    coefficient = float(backtest.features(pairs).overlap[0])
    assert 0.0 < coefficient < 0.5
    assert backtest.profile_risk(pairs, "radar-v1")[0] == pytest.approx(1.0)  # floored by the scan
