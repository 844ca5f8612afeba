"""Recall on build breaks and the weighted alarm rate, against hand-computed values."""

from __future__ import annotations

import math
from typing import Any

import pytest

from proximity.engine.evaluation.backtest import PAIR_FORMAT, pair_from_json
from proximity.engine.evaluation.buildbreaks import (
    alarm_causes,
    build_break_report,
    clean_pairs,
    format_alarm_causes,
    symbol_airspace,
)


def _pair(n: int, *, brk: bool | None, weight: float = 1.0, conflict: bool = False) -> Any:
    return pair_from_json(
        {
            "format": PAIR_FORMAT, "pairId": f"p{n}", "conflict": conflict, "stratum": "s",
            "weight": weight, "cluster": f"c{n}", "a": {"mergedAt": "2024-01-01T00:00:00Z"},
            "filesA": [], "filesB": [], "buildBreak": brk, "symbols": {"agents": {}},
        }
    )  # fmt: skip


def test_recall_counts_breaks_and_alarm_rate_weights_every_clean_pair() -> None:
    pairs = [
        _pair(1, brk=True),
        _pair(2, brk=True),
        _pair(3, brk=False, weight=3.0),
        _pair(4, brk=False, weight=5.0),
    ]
    scores = [0.9, 0.2, 0.5, 0.0]
    report = build_break_report("t", pairs, scores, thresholds={"traffic": 0.35}, resamples=50)
    band = report.bands["traffic"]
    assert (report.breaks, band.caught) == (2, 1)
    assert band.recall == pytest.approx(0.5)
    assert band.alarm_weighted == pytest.approx((1 + 3) / (1 + 1 + 3 + 5))
    assert band.recall_ci.low <= 0.5 <= band.recall_ci.high


def test_no_break_gives_nan_recall_not_zero() -> None:
    report = build_break_report("t", [_pair(1, brk=False)], [1.0], thresholds={"traffic": 0.35})
    assert math.isnan(report.bands["traffic"].recall)


def test_conflicts_and_unchecked_pairs_leave_the_population() -> None:
    pairs = [_pair(1, brk=None, conflict=True), _pair(2, brk=None), _pair(3, brk=False)]
    clean, unchecked = clean_pairs(pairs)
    assert [p.pair_id for p in clean] == ["p3"]
    assert unchecked == 1


def test_symbols_travel_into_the_airspace_only_when_mined() -> None:
    assert "symbols" in symbol_airspace(_pair(1, brk=False))
    raw = dict(_pair(2, brk=False).raw)
    raw.pop("symbols")
    assert "symbols" not in symbol_airspace(pair_from_json(raw))


def test_pairs_whose_symbol_read_failed_are_unchecked_for_the_symbol_channel_only() -> None:
    raw = dict(_pair(2, brk=False).raw)
    raw.pop("symbols")
    pairs = [_pair(1, brk=False), pair_from_json({**raw, "symbolsError": "over 60 s"})]
    assert [p.pair_id for p in clean_pairs(pairs, symbols=True)[0]] == ["p1"]
    assert clean_pairs(pairs, symbols=True)[1] == 1
    assert len(clean_pairs(pairs)[0]) == 2


def test_alarm_causes_add_up_to_the_weighted_alarm_rate() -> None:
    pairs = [_pair(n, brk=False, weight=w) for n, w in enumerate((1.0, 2.0, 3.0, 4.0))]
    items = ["coupling/calls 0.5", "coupling/calls 0.5", "hazard/removed 0.8", ""]
    causes = alarm_causes(pairs, items, [True, True, True, False], [False, True, False, False])
    assert [(c.item, c.pairs) for c in causes] == [
        ("coupling/calls 0.5", 2),
        ("hazard/removed 0.8", 1),
    ]  # by share: 3/10 each, ties by name
    assert causes[0].share_weighted == pytest.approx(0.3)
    assert causes[0].without_symbols_weighted == pytest.approx(0.2)
    assert sum(c.share_weighted for c in causes) == pytest.approx(0.6)
    assert "| hazard/removed 0.8 | 1 | 0.300 | 0.000 |" in format_alarm_causes(causes)
