"""Replay figures on hand-computed outcomes, and the paired bootstrap's behaviour."""

from __future__ import annotations

import math

from proximity.engine.replay.metrics import PullRequestOutcome, replay_figures


def _o(pr: int, conflicted: bool, **kw: object) -> PullRequestOutcome:
    return PullRequestOutcome(pr=pr, conflicted=conflicted, **kw)  # type: ignore[arg-type]


BASE = [
    _o(1, False, hunks=2, agent_hours=1.0),
    _o(2, True, hunks=2, agent_hours=1.0),
    _o(3, True, hunks=4, agent_hours=2.0),
    _o(4, False, hunks=2, agent_hours=4.0),
]
OBEY = [
    _o(1, False, hunks=2, agent_hours=1.0),
    _o(2, False, hunks=2, delayed_hunks=1, delays_s=(1800.0,), denials=1, agent_hours=1.5),
    _o(3, True, hunks=4, delayed_hunks=2, delays_s=(3600.0, 7200.0), denials=2,
       unnecessary_denials=1, agent_hours=2.0, resync_conflicted=True),
    _o(4, False, hunks=2, denials=1, unnecessary_denials=1, agent_hours=4.0, traffic_advisories=3),
]  # fmt: skip


def test_point_estimates_are_the_plain_ratios() -> None:
    f = replay_figures(OBEY, policy="obey", baseline={o.pr: o for o in BASE}, resamples=50)
    assert (f.merges, f.conflicts, f.hunks, f.delayed_hunks, f.denials) == (4, 1, 10, 3, 4)
    assert f.conflicts_per_100.estimate == 25.0
    assert f.avoided is not None
    assert f.avoided.estimate == 0.5
    assert f.avoided_with_resync is not None
    assert f.avoided_with_resync.estimate == 0.5
    assert (f.conflicts_removed, f.conflicts_added) == (1, 0)
    assert f.share_delayed.estimate == 0.3
    assert f.median_delay_h.estimate == 1.0  # delays 0.5 h, 1 h, 2 h
    assert f.share_unnecessary.estimate == 0.5
    assert math.isclose(f.ra_per_agent_hour.estimate, 4 / 8.5)
    assert math.isclose(f.ta_per_agent_hour, 3 / 8.5)
    assert f.resync_conflicts == 1


def test_intervals_bracket_the_estimate_and_repeat_with_the_seed() -> None:
    one = replay_figures(OBEY, policy="obey", resamples=200, seed=3)
    two = replay_figures(OBEY, policy="obey", resamples=200, seed=3)
    assert one == two
    ci = one.conflicts_per_100
    assert ci.low <= ci.estimate <= ci.high
    assert ci.low == 0.0
    assert ci.high > 25.0


def test_the_baseline_against_itself_avoids_nothing_and_undefined_ratios_are_nan() -> None:
    f = replay_figures(BASE, policy="ignore", baseline={o.pr: o for o in BASE}, resamples=50)
    assert f.avoided is not None
    assert f.avoided.estimate == 0.0
    assert math.isnan(f.share_unnecessary.estimate)  # no denials at all
    assert math.isnan(f.median_delay_h.estimate)


def test_resync_merges_are_counted_apart_from_re_applications() -> None:
    """A re-application that no longer fits (resync only) counts in the conservative figure; a
    mainline merge that met the agent's applied work (both flags) counts in both."""
    base = [_o(1, True), _o(2, True), _o(3, False), _o(4, True)]
    obey = [
        _o(1, False, resync_conflicted=True),  # its deferred diff no longer fit: re-application
        _o(2, False, resync_conflicted=True, resync_merge_conflicted=True),  # its own work met
        _o(3, False),
        _o(4, False),
    ]
    f = replay_figures(obey, policy="obey", baseline={o.pr: o for o in base}, resamples=50)
    assert f.avoided is not None
    assert f.avoided.estimate == 1.0
    assert f.avoided_with_resync is not None
    assert math.isclose(f.avoided_with_resync.estimate, 1 / 3)
    assert f.avoided_with_resync_merges is not None
    assert math.isclose(f.avoided_with_resync_merges.estimate, 2 / 3)
    assert (f.resync_conflicts, f.resync_merge_conflicts) == (2, 1)


def test_knock_on_denials_are_set_apart_from_the_share_the_baseline_judges() -> None:
    """Of 4 denials, 2 are knock-on (their agents had merged by then in the baseline): the
    unnecessary share is of the other 2; with every denial knock-on it is undefined."""
    rows = [
        _o(1, False, denials=3, knock_on_denials=2, unnecessary_denials=1),
        _o(2, False, denials=1),
    ]
    f = replay_figures(rows, policy="obey", resamples=50)
    assert (f.denials, f.knock_on_denials, f.unnecessary_denials) == (4, 2, 1)
    assert f.share_unnecessary.estimate == 0.5
    only = replay_figures([_o(1, False, denials=2, knock_on_denials=2)], policy="obey",
                          resamples=20)  # fmt: skip
    assert math.isnan(only.share_unnecessary.estimate)


def test_a_closed_pull_request_counts_in_no_conflict_figure_but_in_the_denials() -> None:
    """#3 was closed without merging: its pull conflicted in the baseline and it resynced with
    a conflict under the policy; neither is a merge's conflict. Its denial and delay count."""
    base = [
        _o(1, True, hunks=1),
        _o(2, False, hunks=1),
        _o(3, False, pull_conflicted=True, closed=True, hunks=2),
    ]
    obey = [_o(1, False, hunks=1), _o(2, False, hunks=1),
            _o(3, False, closed=True, hunks=2, delayed_hunks=1, delays_s=(3600.0,), denials=1,
               unnecessary_denials=1, resync_conflicted=True, drift_denials=1,
               own_drift_denials=1, unnecessary_own_drift_denials=1)]  # fmt: skip
    b = replay_figures(base, policy="ignore", resamples=20)
    f = replay_figures(obey, policy="obey", baseline={o.pr: o for o in base}, resamples=20)
    assert (b.merges, b.conflicts, b.pull_conflicts, b.conflicts_per_100.estimate) == (
        2,
        1,
        0,
        50.0,
    )
    assert (f.merges, f.conflicts, f.resync_conflicts) == (2, 0, 0)
    assert f.avoided is not None
    assert f.avoided.estimate == 1.0
    assert (f.denials, f.unnecessary_denials, f.delayed_hunks, f.hunks) == (1, 1, 1, 4)
    # the work that merged: none of its hunks waited, and it was never denied
    assert (f.merged_hunks, f.merged_delayed_hunks, f.merged_denials) == (2, 0, 0)
    assert (f.own_drift_denials, f.merged_own_drift_denials) == (1, 0)
    assert f.share_delayed_merged is not None
    assert f.share_delayed_merged.estimate == 0.0
    assert f.share_unnecessary_merged is not None
    assert math.isnan(f.share_unnecessary_merged.estimate)  # nothing to judge: no share
    whole = replay_figures(obey[:2], policy="obey", resamples=20)
    assert (whole.share_delayed_merged, whole.share_unnecessary_merged) == (None, None)
