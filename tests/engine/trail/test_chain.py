"""The receipt chain's behaviour: the reference's shadow-trail tests, in Python."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.trail import (
    ShadowTrailError,
    append_acknowledgement,
    append_reobservation,
    summarize_shadow_trail,
    verify_shadow_trail,
)
from tests.engine.trail.factory import (
    AT,
    LATER,
    LATEST,
    both_acknowledge,
    full_chain,
    observation,
    reobserve,
    revise_b,
    round_trip,
    start,
)


def latest(trail: dict[str, Any]) -> dict[str, Any]:
    advisory: dict[str, Any] = summarize_shadow_trail(trail)["latestAdvisory"]
    return advisory


def test_full_chain_records_observation_to_reobservation_with_declared_only_authority() -> None:
    initial = start()
    assert latest(initial)["state"] == "advisory"
    assert latest(initial)["hazard"] == "write-write"
    acknowledged = both_acknowledge(initial)
    assert summarize_shadow_trail(acknowledged)["latestAdvisoryAcknowledgedBy"] == ["a", "b"]
    complete = reobserve(revise_b(acknowledged))
    summary = summarize_shadow_trail(complete)
    assert summary["mode"] == "shadow-read-only"
    assert summary["latestAdvisory"]["state"] == "no-advisory-in-scope"
    assert summary["outcome"] == "unadjudicated"
    assert summary["scopeChange"]["authority"] == "declared-only"
    assert summary["historicalAcknowledgedBy"] == ["a", "b"]
    assert summary["latestAdvisoryAcknowledgedBy"] == []
    assert verify_shadow_trail(round_trip(complete)) is None
    assert [len(t["receipts"]) for t in (initial, acknowledged, complete)] == [2, 4, 7]
    receipts = complete["receipts"]
    assert all(receipts[i]["previousHash"] == receipts[i - 1]["hash"] for i in range(1, 7))
    assert receipts[0]["previousHash"] == "0" * 64


def test_generated_receipt_ids_follow_the_reference() -> None:
    ids = [receipt["id"] for receipt in full_chain()["receipts"]]
    assert ids == [
        "shadow-1:observation-0",
        "shadow-1:advisory-0",
        "ack-a",
        "ack-b",
        "scope-b2",
        "reobserve-1",
        "reobserve-1:advisory",
    ]


def test_summary_reports_the_scope_change_with_its_time() -> None:
    change = summarize_shadow_trail(full_chain())["scopeChange"]
    assert change["newWritePaths"] == ["docs/guide.md"]
    assert (change["agentId"], change["taskId"], change["at"]) == ("b", "task-b", LATER)


def test_read_read_is_quiet_and_write_read_is_a_direct_hazard() -> None:
    reader = {"readPaths": ["src/shared.js"], "writePaths": []}
    quiet = start(observation("a", **reader), observation("b", **reader))
    assert latest(quiet)["state"] == "no-advisory-in-scope"
    hazard = start(observation("a", **reader), observation("b", writePaths=["src/shared.js"]))
    assert latest(hazard)["hazard"] == "write-read"
    assert latest(hazard)["state"] == "advisory"


def test_a_dependency_edge_alone_is_an_advisory_without_hazard() -> None:
    graph = {
        "adjacency": {"apps/web/page.js": ["packages/core/util.js"], "packages/core/util.js": []}
    }
    coupled = start(
        observation("a", writePaths=["apps/web/page.js"]),
        observation("b", writePaths=["packages/core/util.js"]),
        graph=graph,
    )
    assert latest(coupled)["state"] == "advisory"
    assert latest(coupled)["hazard"] is None


def test_known_overlap_is_never_clear_and_missing_or_stale_data_is_unknown() -> None:
    partial_hazard = start(observation("a", footprint="incomplete"))
    assert latest(partial_hazard)["state"] == "unknown"
    assert latest(partial_hazard)["reason"] == "incomplete-footprint"
    assert latest(partial_hazard)["hazard"] == "write-write"
    partial_quiet = start(
        observation("a", footprint="incomplete", writePaths=[]),
        observation("b", writePaths=["docs/guide.md"]),
    )
    assert latest(partial_quiet)["state"] == "unknown"
    stale = start(observation("a", expiresAt="2026-09-15T11:59:30.000Z"))
    assert latest(stale)["reason"] == "stale-or-future-observation"
    future = start(observation("a", observedAt="2026-09-15T12:00:00.001Z"))
    assert latest(future)["reason"] == "stale-or-future-observation"
    foreign = start(observation("a"), observation("b", baseRevision="b" * 40))
    assert (latest(foreign)["state"], latest(foreign)["reason"]) == (
        "unknown",
        "incomparable-context",
    )
    assert latest(foreign)["hazard"] is None


def _ack(trail: dict[str, Any], agent: str, scope: int, receipt_id: str = "bad-ack") -> None:
    append_acknowledgement(trail, id=receipt_id, agent_id=agent, scope_revision=scope, at=LATER)


def test_wrong_scope_non_member_premature_scope_and_third_ack_are_refused() -> None:
    initial = start()
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        _ack(initial, "a", 2)
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        _ack(initial, "c", 1)
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        revise_b(initial, authorization_ref="evidence-1")
    acknowledged = both_acknowledge(initial)
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        _ack(acknowledged, "a", 1, "third-ack")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({}, {}),  # wrong scope: b still at revision 1
        ({}, {"scopeRevision": 2, "taskId": "other-task"}),  # foreign task
        ({}, {"scopeRevision": 2, "writePaths": ["src/not-declared.js"], "observedAt": LATER}),
        (  # the other agent changed without a revision
            {"writePaths": ["src/changed-without-revision.js"], "observedAt": LATER},
            {"scopeRevision": 2, "writePaths": ["docs/guide.md"], "observedAt": LATER},
        ),
        (  # observed before the scope revision was declared
            {"observedAt": AT},
            {"scopeRevision": 2, "writePaths": ["docs/guide.md"], "observedAt": AT},
        ),
    ],
)
def test_mismatched_reobservations_fail_closed(a: dict[str, Any], b: dict[str, Any]) -> None:
    revised = revise_b(both_acknowledge(start()))
    pair = [observation("a", **a), observation("b", **b)]
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        append_reobservation(revised, id="bad-reobservation", observations=pair, at=LATEST)


def test_unknown_advisory_cannot_be_acknowledged() -> None:
    unknown = start(observation("a", footprint="incomplete", writePaths=[]))
    with pytest.raises(ShadowTrailError) as caught:
        _ack(unknown, "a", 1, "ack-unknown")
    assert caught.value.reason == "receipts[2]: acknowledgement: no open advisory to acknowledge"


def test_scope_revision_needs_both_observations_still_current() -> None:
    acknowledged = both_acknowledge(start(b=observation("b", expiresAt="2026-09-15T12:01:30.000Z")))
    with pytest.raises(ShadowTrailError) as caught:
        revise_b(acknowledged, agent_id="a", at=LATEST)
    assert caught.value.reason == "receipts[4]: scope-revision: an observation is not current"


def test_nothing_follows_the_reobservation_advisory() -> None:
    complete = full_chain()
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        _ack(complete, "a", 1, "late-ack")
    with pytest.raises(ShadowTrailError, match="Invalid shadow"):
        revise_b(complete, id="second-scope", previous_scope_revision=2, new_scope_revision=3)


def test_reobservation_reuses_the_previous_graph_unless_a_new_one_is_given() -> None:
    graph = {"adjacency": {"docs/guide.md": ["src/shared.js"]}}
    complete = reobserve(revise_b(both_acknowledge(start(graph=graph))))
    assert complete["receipts"][5]["payload"]["graph"] == graph
    assert latest(complete)["state"] == "advisory"  # a direct import: 0.9 >= 0.35
    assert latest(complete)["heuristicRisk"] == pytest.approx(0.9)


def test_graph_key_insertion_order_gives_the_same_first_hash() -> None:
    first = start(graph={"adjacency": {"src/z.js": ["src/a.js"], "src/a.js": []}})
    second = start(graph={"adjacency": {"src/a.js": [], "src/z.js": ["src/a.js"]}})
    assert first["receipts"][0]["hash"] == second["receipts"][0]["hash"]
    assert list(first["receipts"][0]["payload"]["graph"]["adjacency"]) == ["src/a.js", "src/z.js"]


def test_mutating_the_original_after_an_append_breaks_it_but_not_the_copy() -> None:
    initial = start()
    appended = append_acknowledgement(
        initial, id="copy-ack", agent_id="a", scope_revision=1, at=LATER
    )
    initial["receipts"][0]["payload"]["observations"][0]["writePaths"][0] = "src/changed.js"
    with pytest.raises(ShadowTrailError):
        verify_shadow_trail(initial)
    assert verify_shadow_trail(appended) is None


def test_appended_trail_shares_no_mutable_structure_with_its_input() -> None:
    initial = start()
    appended = append_acknowledgement(
        initial, id="copy-ack", agent_id="a", scope_revision=1, at=LATER
    )
    appended["receipts"][1]["payload"]["heuristicRisk"] = 0.5
    appended["receipts"][0]["payload"]["graph"]["adjacency"]["x.js"] = []
    assert verify_shadow_trail(initial) is None


def test_create_does_not_keep_references_to_its_inputs() -> None:
    a, b = observation("a"), observation("b")
    trail = start(a, b)
    a["writePaths"].append("src/later.js")
    assert verify_shadow_trail(trail) is None
