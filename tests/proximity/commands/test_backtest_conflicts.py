"""``manage.py backtest_conflicts``: mine a scripted repository, then score the pairs."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.lab.test_backtest import build_history


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cmd")
    repo = build_history(root / "repo")
    out = root / "pairs.jsonl"
    call_command("backtest_conflicts", str(repo), "--max-pairs", "10", "--out", str(out),
                 stderr=StringIO())  # fmt: skip
    return out


def test_mining_writes_sorted_labelled_pairs(mined: Path) -> None:
    rows = [json.loads(line) for line in mined.read_text().splitlines()]
    assert [(r["a"]["pr"], r["b"]["pr"]) for r in rows] == [
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ]
    assert [r["conflict"] for r in rows] == [True, False, False, False, False, False]
    assert rows[0]["pairId"] == f"repo#1-2@{rows[0]['b']['commit'][:12]}"


def test_mining_twice_gives_identical_output(mined: Path, tmp_path: Path) -> None:
    repo = mined.parent / "repo"
    again = tmp_path / "again.jsonl"
    call_command("backtest_conflicts", str(repo), "--max-pairs", "10", "--out", str(again),
                 stderr=StringIO())  # fmt: skip
    assert again.read_bytes() == mined.read_bytes()


@pytest.mark.parametrize("profile", ["ecc-v0", "radar-v1"])
def test_scoring_reports_rank_metrics_thresholds_and_reliability(mined: Path, profile: str) -> None:
    out = StringIO()
    call_command("backtest_conflicts", "--score", str(mined), "--profile", profile,
                 "--resamples", "20", stdout=out)  # fmt: skip
    text = out.getvalue()
    for needle in (
        "AUC (95% CI)",
        "traffic: threshold",
        "| 0.35 / ",
        "| 0.7 / ",
        "baseline:shares-file",
        "baseline:base-overlap",
        "baseline:new-side-overlap",
        "Reliability of",
    ):
        assert needle in text
    row = next(line for line in text.splitlines() if line.startswith("| baseline:base-overlap"))
    assert row.split("|")[4].strip().startswith("1.000")  # git's own rule ranks the conflict first


def test_bad_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="REPO"):
        call_command("backtest_conflicts")
    with pytest.raises(CommandError, match="--score"):
        call_command("backtest_conflicts", "--score", str(tmp_path / "missing.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "nope"}\n')
    with pytest.raises(CommandError, match="format"):
        call_command("backtest_conflicts", "--score", str(bad))
