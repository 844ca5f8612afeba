"""Backtest pair records, baselines, subgraphs, time splits and score reports."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from proximity.engine.evaluation.backtest import (
    base_overlap_score,
    base_ranges_collide,
    base_ranges_collide_reference,
    new_side_overlap_score,
    pair_airspace,
    pair_from_json,
    relevant_subgraph,
    shares_file_score,
)
from proximity.engine.evaluation.report import backtest_reports, format_reports
from proximity.engine.evaluation.scoring import split_by_time

ROW: dict[str, Any] = {
    "format": "overlap-radar/backtest-pair@1",
    "pairId": "r#1-2@abc",
    "conflict": True,
    "stratum": "shared-file",
    "weight": 1.0,
    "cluster": "abc",
    "a": {"pr": 1, "mergedAt": "2021-02-01T00:00:00Z"},
    "b": {"pr": 2, "mergedAt": "2021-03-01T00:00:00Z"},
    "filesA": [{"path": "x.py", "baseHunks": [[3, 2]], "lines": [[3, 4]]}],
    "filesB": [{"path": "x.py", "baseHunks": [[5, 1]], "lines": [[9, 9]]}],
    "imports": {"y.py": ["x.py"]},
}


def row(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(ROW)
    out.update(changes)
    return out


@pytest.mark.parametrize("impl", [base_ranges_collide, base_ranges_collide_reference])
@pytest.mark.parametrize(
    ("a", "b", "hit"),
    [
        ([[3, 2]], [[5, 1]], True),  # lines 3-4 and 5 touch
        ([[3, 2]], [[6, 1]], False),  # line 5 unchanged between
        ([[3, 0]], [[4, 1]], True),  # insertion after 3 touches line 4
        ([[3, 0]], [[5, 1]], False),
        ([[0, 0]], [[0, 0]], True),  # both add at the top (or both create the file)
        ([[10, 1]], [[1, 1], [12, 0]], False),
    ],
)
def test_base_side_rule_follows_git_touching_changes_conflict(
    impl: Any, a: list[list[int]], b: list[list[int]], hit: bool
) -> None:
    assert impl(a, b) is hit
    assert impl(b, a) is hit


def test_baselines_rank_by_shared_file_and_base_or_new_side_overlap() -> None:
    p = pair_from_json(ROW)
    assert shares_file_score(p) == 1.0
    assert base_overlap_score(p) == 1.0  # base hunks touch
    assert new_side_overlap_score(p) == 0.0  # new-side lines 3-4 vs 9: W1 in action
    far = pair_from_json(row(filesB=[{"path": "x.py", "baseHunks": [[9, 1]], "lines": [[9, 9]]}]))
    assert base_overlap_score(far) == 0.5
    none = pair_from_json(row(filesB=[{"path": "z.py", "baseHunks": [[1, 1]]}]))
    assert (shares_file_score(none), base_overlap_score(none)) == (0.0, 0.0)
    renamed = pair_from_json(row(filesB=[{"path": "w.py", "oldPath": "x.py", "status": "R100"}]))
    assert shares_file_score(renamed) == 1.0


def test_pair_record_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="format"):
        pair_from_json(row(format="x"))
    with pytest.raises(ValueError, match="conflict"):
        pair_from_json(row(conflict="yes"))
    with pytest.raises(ValueError, match="weight"):
        pair_from_json(row(weight=0.5))
    bad = row()
    del bad["cluster"]
    with pytest.raises(ValueError, match="cluster"):
        pair_from_json(bad)


def test_pair_airspace_has_two_agents_and_the_import_graph() -> None:
    space = pair_airspace(pair_from_json(ROW), options={"depDecay": 0.5})
    assert [a["agentId"] for a in space["agents"]] == ["A", "B"]
    assert space["graph"]["adjacency"] == {"y.py": ["x.py"]}
    assert space["options"] == {"depDecay": 0.5}


def test_relevant_subgraph_keeps_short_paths_and_neighbours_only() -> None:
    adjacency = {
        "a": ["m"],
        "m": ["n"],
        "n": ["o"],
        "o": ["b"],
        "far1": ["far2"],
        "c": ["a"],  # importer of a touched file
        "b": ["d"],
        "d": ["e"],  # two hops beyond b: not needed
    }
    sub = relevant_subgraph(adjacency, ["a"], ["b"], hops=6)
    assert sub == {"a": ("m",), "b": ("d",), "c": ("a",), "m": ("n",), "n": ("o",), "o": ("b",)}
    # With 2 hops the middle of the 4-hop path is dropped; neighbours of touched files stay.
    short = relevant_subgraph(adjacency, ["a"], ["b"], hops=2)
    assert short == {"a": ("m",), "b": ("d",), "c": ("a",), "o": ("b",)}


def test_time_split_keeps_each_pull_request_on_one_side() -> None:
    early = pair_from_json(ROW)
    late = pair_from_json(row(a={"pr": 3, "mergedAt": "2022-01-01"}, b={"mergedAt": "2022-02-01"}))
    straddle = pair_from_json(row(b={"mergedAt": "2022-02-01"}))
    train, test, dropped = split_by_time([early, late, straddle], "2021-06-01")
    assert (train, test, dropped) == ((early,), (late,), 1)


def test_reports_cover_the_profile_and_every_baseline_on_the_same_pairs() -> None:
    pairs = [
        pair_from_json(ROW),
        pair_from_json(row(pairId="2", conflict=False, cluster="q", filesB=[{"path": "z.py"}])),
        pair_from_json(row(pairId="3", conflict=False, cluster="r", weight=4.0)),
    ]
    reports = backtest_reports(
        pairs, {"const": lambda p: 0.5}, thresholds={"traffic": 0.35}, resamples=10
    )
    names = [r.name for r in reports]
    assert names[0] == "const"
    assert {"baseline:shares-file", "baseline:base-overlap"} <= set(names)
    assert reports[0].auc == pytest.approx(0.5)
    assert reports[0].thresholds_weighted["traffic"].flagged_rate == 1.0
    text = format_reports(reports, ["traffic"])
    assert text.count("\n") == len(reports) + 1
    assert np.isclose(reports[0].thresholds_weighted["traffic"].precision or 0, 1 / 6)
