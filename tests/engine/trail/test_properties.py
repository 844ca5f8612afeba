"""Invariants over generated observation pairs: determinism, persistence, tamper evidence."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.trail import ShadowTrailError, summarize_shadow_trail, verify_shadow_trail
from tests.engine.trail.factory import observation, round_trip, start

POOL = [
    "src/a.js",
    "src/b.js",
    "src/sub/c.js",
    "lib/x.js",
    "docs/é.md",
    "a.js",
    "9",
    "10",
    "src/\U0001f600.js",
]
path_sets = st.lists(st.sampled_from(POOL), max_size=4, unique=True)
graphs = st.dictionaries(
    st.sampled_from(POOL), st.lists(st.sampled_from(POOL), max_size=3, unique=True), max_size=6
)


@st.composite
def trails(draw: st.DrawFn) -> dict[str, Any]:
    a = observation("a", readPaths=draw(path_sets), writePaths=draw(path_sets))
    b = observation("b", readPaths=draw(path_sets), writePaths=draw(path_sets))
    return start(a, b, graph={"adjacency": draw(graphs)})


@settings(max_examples=50, deadline=None)
@given(trails())
def test_every_created_trail_verifies_after_a_json_round_trip(trail: dict[str, Any]) -> None:
    assert verify_shadow_trail(round_trip(trail)) is None


@settings(max_examples=50, deadline=None)
@given(trails())
def test_advisory_is_bounded_and_a_known_hazard_is_never_clear(trail: dict[str, Any]) -> None:
    advisory = summarize_shadow_trail(trail)["latestAdvisory"]
    assert 0 <= advisory["heuristicRisk"] <= 1
    if advisory["hazard"] is not None:
        assert advisory["state"] == "advisory"


@settings(max_examples=50, deadline=None)
@given(trails(), st.sampled_from(["src/zz.js", "zz/a.js"]))
def test_adding_any_path_to_a_persisted_observation_is_detected(
    trail: dict[str, Any], extra: str
) -> None:
    tampered = round_trip(trail)
    write_paths = tampered["receipts"][0]["payload"]["observations"][1]["writePaths"]
    write_paths.append(extra)
    write_paths.sort()
    with pytest.raises(ShadowTrailError) as caught:
        verify_shadow_trail(tampered)
    assert caught.value.reason == "receipts[0].hash: does not match the receipt content"


@settings(max_examples=50, deadline=None)
@given(trails())
def test_creating_the_same_trail_twice_gives_the_same_hashes(trail: dict[str, Any]) -> None:
    payload = trail["receipts"][0]["payload"]
    again = start(*payload["observations"], graph=payload["graph"])
    assert again == trail
