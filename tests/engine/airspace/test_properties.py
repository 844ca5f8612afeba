"""Invariants of both profiles, checked with hypothesis on generated airspaces."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.airspace import PROFILES, scan
from proximity.engine.airspace.combine import band, noisy_or
from proximity.engine.airspace.layout import hilbert_points
from tests.engine.airspace.randomworld import random_airspace

seeds = st.integers(min_value=0, max_value=10**6)
profiles = st.sampled_from(sorted(PROFILES))
unit = st.floats(min_value=0, max_value=1)


def _distinct_paths(data: dict[str, Any]) -> dict[str, Any]:
    # With a path listed twice, ecc-v0's overlap is asymmetric by design (B's last entry wins).
    for member in data["agents"]:
        member["files"] = list({f["path"]: f for f in member["files"]}.values())
    return data


@settings(max_examples=50, deadline=None)
@given(seed=seeds, profile=profiles)
def test_risk_is_in_unit_interval_and_bands_follow_thresholds(seed: int, profile: str) -> None:
    result = scan(random_airspace(seed), profile=profile)
    for link in result["links"]:
        assert 0.0 <= link["risk"] <= 1.0
        if not link.get("escalated") and not link.get("conflict"):
            assert link["level"] == band(link["risk"], 0.35, 0.7)
        assert link["distance"] == max(0.0, min(1.0, 1.0 - link["risk"]))


def _risks(result: dict[str, Any]) -> dict[frozenset[str], float]:
    return {frozenset((x["a"], x["b"])): x["risk"] for x in result["links"]}


@settings(max_examples=50, deadline=None)
@given(seed=seeds, profile=profiles)
def test_risk_is_symmetric_in_the_two_agents(seed: int, profile: str) -> None:
    data = _distinct_paths(random_airspace(seed, n_agents=4))
    forward = scan(data, profile=profile)
    data["agents"].reverse()
    backward = scan(data, profile=profile)
    left, right = _risks(forward), _risks(backward)
    assert left.keys() == right.keys()
    for key, value in left.items():
        assert abs(value - right[key]) <= 1e-12


@settings(max_examples=50, deadline=None)
@given(
    weights=st.lists(unit, min_size=3, max_size=6),
    values=st.lists(unit, min_size=6, max_size=6),
    k=st.integers(min_value=0, max_value=5),
    bump=unit,
)
def test_noisy_or_is_monotone_in_each_channel(
    weights: list[float], values: list[float], k: int, bump: float
) -> None:
    values = values[: len(weights)]
    k %= len(weights)
    raised = list(values)
    raised[k] = min(1.0, values[k] + bump)
    assert noisy_or(weights, raised) >= noisy_or(weights, values)


@settings(max_examples=50, deadline=None)
@given(seed=seeds, profile=profiles)
def test_output_is_deterministic_and_sorted(seed: int, profile: str) -> None:
    data = random_airspace(seed)
    first, second = scan(data, profile=profile), scan(data, profile=profile)
    assert first == second
    risks = [link["risk"] for link in first["links"]]
    assert risks == sorted(risks, reverse=True)


@settings(max_examples=50, deadline=None)
@given(seed=seeds)
def test_raising_a_weight_never_lowers_ecc_risk(seed: int) -> None:
    rng = random.Random(seed)
    data = _distinct_paths(random_airspace(seed, n_agents=3))
    files = [f for member in data["agents"] for f in member["files"]]
    if not files:
        return
    before = scan(data, profile="ecc-v0")
    target = rng.choice(files)
    target["weight"] = min(1.0, float(target.get("weight", 1.0)) + rng.random())
    after = scan(data, profile="ecc-v0")
    old = {(x["a"], x["b"]): x["risk"] for x in before["links"]}
    for link in after["links"]:
        assert link["risk"] >= old[(link["a"], link["b"])] - 1e-12


def test_hilbert_curve_steps_between_neighbouring_cells() -> None:
    points = hilbert_points(np.arange(512, dtype=np.int64), 3)
    steps = np.abs(np.diff(points, axis=0)).sum(axis=1)
    assert set(steps.tolist()) == {1}
    assert len({tuple(p) for p in points.tolist()}) == 512
