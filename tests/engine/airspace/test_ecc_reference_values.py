"""ecc-v0 golden values: what the reference's own tests and documentation assert.

Each case cites ECC-PROXIMITY.md section 8 (the reference's tests) or section 2 (its
documented examples). Every scan case runs on both engines (fast and per-pair).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from proximity.engine.airspace import build_triggers, collision_risk_paths, scan
from proximity.engine.airspace.closure import closure_rate
from proximity.engine.airspace.lines import line_range_overlap
from proximity.engine.airspace.reference_ecc import graph_distance, tree_distance
from tests.engine.airspace.helpers import agent, airspace, pair_link

ENGINES = ["fast", "reference"]


def ecc(data: dict[str, Any], engine: str) -> dict[str, Any]:
    return scan(data, profile="ecc-v0", engine=engine)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([], [], 1.0),
        ([[1, 10]], [[5, 14]], 0.6),
        ([[1, 200]], [[40, 60]], 1.0),
        ([[1, 5]], [[20, 25]], 0.0),
        ([[1, 10]], [[11, 20]], 0.0),
        ([[1, 10], [30, 40]], [[8, 12], [35, 36]], 5 / 7),
        ([[1, 100]], [[50, 149]], 0.51),
        (None, [[3, 4]], 1.0),
    ],
)
def test_line_range_overlap_matches_reference_examples(a: Any, b: Any, expected: float) -> None:
    assert line_range_overlap(_pairs(a), _pairs(b)) == pytest.approx(expected, abs=1e-12)


def _pairs(ranges: list[list[int]] | None) -> list[tuple[int, int]] | None:
    return None if ranges is None else [(s, e) for s, e in ranges]


def test_line_range_overlap_handles_a_million_lines_without_materialising() -> None:
    assert line_range_overlap([(1, 10**9)], [(10**9 - 9, 10**9 + 10)]) == 0.5


@pytest.mark.parametrize(
    ("p", "q", "expected"),
    [
        ("src/a.js", "src/a.js", 0.0),
        ("x.js", "y.js", 1.0),
        ("a/b/x.js", "a/b/y.js", 1 / 3),
        ("a/b/c/d/e/f/x.js", "a/b/c/d/e/f/y.js", 1 / 7),
        ("src/a.js", "src/deep/x/y/z.js", 5 / 7),
        ("a/b", "a/b/c", 0.2),
    ],
)
def test_tree_distance_matches_documented_values(p: str, q: str, expected: float) -> None:
    assert tree_distance(p, q) == pytest.approx(expected, abs=1e-12)


def test_tree_distance_orders_siblings_cousins_disjoint() -> None:
    sibling = tree_distance("src/api/a.js", "src/api/b.js")
    cousin = tree_distance("src/api/a.js", "src/ui/b.js")
    disjoint = tree_distance("src/api/a.js", "docs/guide.md")
    assert 0 <= sibling < cousin < disjoint <= 1


def test_graph_distance_direct_two_hops_unreachable_and_cap() -> None:
    chain = {f"n{k}": [f"n{k + 1}"] for k in range(8)}
    assert graph_distance(chain, "n0", "n1") == 1
    assert graph_distance(chain, "n0", "n2") == 2
    assert graph_distance(chain, "n0", "n6") == 6
    assert math.isinf(graph_distance(chain, "n0", "n7"))
    assert math.isinf(graph_distance(chain, "n1", "n0"))


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a.js": ["b.js"]}, 0.9),
        ({"a.js": ["m.js"], "m.js": ["b.js"]}, 0.45),
        ({"a.js": ["m.js"], "m.js": ["n.js"], "n.js": ["b.js"]}, 0.225),
        ({"a.js": ["c.js"], "b.js": ["c.js"]}, 0.0),
    ],
)
def test_dependency_alone_gives_documented_risk(
    graph: dict[str, list[str]], expected: float
) -> None:
    # Root-level files have tree distance 1, so only the dependency channel speaks.
    assert collision_risk_paths(["a.js"], ["b.js"], graph) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_same_file_whole_file_edits_give_full_risk(engine: str) -> None:
    result = ecc(airspace(agent("a", "src/users.js"), agent("b", "src/users.js")), engine)
    link = pair_link(result, "a", "b")
    assert link["risk"] == 1.0
    assert link["channels"]["overlap"] > 0


@pytest.mark.parametrize("engine", ENGINES)
def test_overlap_point_six_in_same_file_is_exactly_resolution(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/users.js", "lines": [[1, 10]]}),
        agent("b", {"path": "src/users.js", "lines": [[5, 14]]}),
    )
    link = pair_link(ecc(data, engine), "a", "b")
    assert link["risk"] == 0.7
    assert link["level"] == "resolution"


@pytest.mark.parametrize("engine", ENGINES)
def test_same_file_disjoint_lines_score_the_tree_channel_only(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/users.js", "lines": [[1, 20]]}),
        agent("b", {"path": "src/users.js", "lines": [[500, 540]]}),
    )
    link = pair_link(ecc(data, engine), "a", "b")
    assert link["risk"] == pytest.approx(0.25, abs=1e-12)
    assert link["level"] == "clear"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("lines_a", "lines_b", "above_half", "level_not"),
    [([[1, 50]], [[5, 55]], True, None), ([[1, 120]], [[30, 70]], True, "advisory")],
)
def test_overlapping_ranges_in_one_file_are_high_risk(
    engine: str,
    lines_a: list[list[int]],
    lines_b: list[list[int]],
    above_half: bool,
    level_not: str | None,
) -> None:
    data = airspace(
        agent("a", {"path": "src/api/users.js", "lines": lines_a}),
        agent("b", {"path": "src/api/users.js", "lines": lines_b}),
    )
    link = pair_link(ecc(data, engine), "a", "b")
    assert (link["risk"] > 0.5) is above_half
    assert link["level"] == "resolution"


@pytest.mark.parametrize("engine", ENGINES)
def test_far_apart_files_are_clear(engine: str) -> None:
    data = airspace(agent("a", "src/api/users.js"), agent("b", "docs/guide.md"))
    link = pair_link(ecc(data, engine), "a", "b")
    assert link["risk"] < 0.35
    assert link["level"] == "clear"


@pytest.mark.parametrize("engine", ENGINES)
def test_dependency_edge_couples_more_than_none(engine: str) -> None:
    graph = {"src/api/users.js": ["lib/db/pool.js"]}
    coupled = ecc(
        airspace(agent("a", "src/api/users.js"), agent("b", "lib/db/pool.js"), graph=graph), engine
    )
    loose = ecc(airspace(agent("a", "src/api/users.js"), agent("b", "lib/db/pool.js")), engine)
    risk = pair_link(coupled, "a", "b")["risk"]
    assert risk > pair_link(loose, "a", "b")["risk"]
    assert risk > 0.3


@pytest.mark.parametrize("engine", ENGINES)
def test_lead_with_more_files_holds_and_worker_steers(engine: str) -> None:
    lead = agent(
        "lead",
        {"path": "src/api/users.js", "lines": [[1, 80]]},
        "src/api/auth.js",
        "src/api/index.js",
    )
    worker = agent("worker", {"path": "src/api/users.js", "lines": [[1, 80]]})
    result = ecc(airspace(lead, worker), engine)
    (advisory,) = result["advisories"]
    assert (advisory["level"], advisory["transmit"]) == ("resolution", True)
    assert (advisory["steer"], advisory["hold"]) == ("worker", "lead")
    triggers = build_triggers(result["advisories"])
    steer = next(t for t in triggers if t["type"] == "proximity_steer")
    hold = next(t for t in triggers if t["type"] == "proximity_hold")
    assert (steer["to"], steer["from"], hold["to"]) == ("worker", "lead", "lead")
    assert "steer away" in steer["content"].lower()
    assert ecc(airspace(lead, worker), engine) == result


@pytest.mark.parametrize("engine", ENGINES)
def test_later_start_steers_when_progress_ties(engine: str) -> None:
    data = airspace(
        agent("worker-kb", "src/api/users.js", started="2026-09-15T11:30:00Z"),
        agent("lead-hermes", "src/api/users.js", started="2026-09-15T11:00:00Z"),
        agent("docs-bot", "docs/guide.md", started="2026-09-15T10:00:00Z"),
    )
    result = ecc(data, engine)
    (advisory,) = result["advisories"]
    assert (advisory["steer"], advisory["hold"]) == ("worker-kb", "lead-hermes")
    assert len(result["positions"]) == 3


@pytest.mark.parametrize("engine", ENGINES)
def test_scan_counts_orders_and_omits_the_clear_agent(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/api/users.js", "lines": [[1, 50]]}),
        agent("b", {"path": "src/api/users.js", "lines": [[1, 50]]}),
        agent("c", "docs/guide.md"),
    )
    result = ecc(data, engine)
    assert result["counts"]["agents"] == 3
    assert len(result["advisories"]) >= 1
    assert result["advisories"][0]["risk"] == max(a["risk"] for a in result["advisories"])
    assert all("c" not in (a["a"], a["b"]) for a in result["advisories"])
    assert len(result["positions"]) == 3
    assert len(result["links"]) == 3
    assert pair_link(result, "a", "b")["channels"]["overlap"] == 1
    assert [link["risk"] for link in result["links"]] == sorted(
        (link["risk"] for link in result["links"]), reverse=True
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_intent_is_ignored_by_ecc_v0(engine: str) -> None:
    data = airspace(
        agent("a", intent=["src/shared.js"]),
        agent("b", intent=["src/shared.js"]),
    )
    assert pair_link(ecc(data, engine), "a", "b")["risk"] == 0.0


def test_sibling_agents_sit_closer_than_a_docs_agent() -> None:
    data = airspace(
        agent("a", "src/api/users.js"), agent("b", "src/api/auth.js"), agent("c", "docs/guide.md")
    )
    pos = {p["agentId"]: p["position"] for p in ecc(data, "fast")["positions"]}
    assert math.dist(pos["a"], pos["b"]) < math.dist(pos["a"], pos["c"])


def test_closure_rate_sign_and_zero_interval() -> None:
    assert closure_rate(0.2, 0.5, 1000) > 0
    assert closure_rate(0.6, 0.3, 1000) < 0
    assert closure_rate(0.2, 0.5, 0) == pytest.approx(300.0)


def test_traffic_advisory_asks_both_agents_to_transmit() -> None:
    graph = {"a.js": ["m.js"], "m.js": ["b.js"]}
    result = ecc(airspace(agent("a", "a.js"), agent("b", "b.js"), graph=graph), "fast")
    triggers = build_triggers(result["advisories"])
    assert [(t["to"], t["from"], t["type"]) for t in triggers] == [
        ("a", "b", "proximity_transmit"),
        ("b", "a", "proximity_transmit"),
    ]
    assert "45%" in triggers[0]["content"]
