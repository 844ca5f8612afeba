"""Tampered, relabelled, reordered or oversized trails are rejected, and nothing is echoed."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.trail import (
    GENERIC_MESSAGE,
    ShadowTrailError,
    append_acknowledgement,
    verify_shadow_trail,
)
from proximity.engine.trail.canonical import receipt_digest
from tests.engine.trail.factory import LATER, full_chain, observation, round_trip, start

SECRET = "CANARY_SECRET"


def reason_of(trail: object) -> str:
    with pytest.raises(ShadowTrailError) as caught:
        verify_shadow_trail(trail)
    assert str(caught.value) == GENERIC_MESSAGE
    return caught.value.reason


def rehash(trail: dict[str, Any], start_index: int = 0) -> None:
    """Recompute hashes and links from ``start_index`` on, as a forger able to rehash would."""
    receipts = trail["receipts"]
    for index in range(start_index, len(receipts)):
        receipt = receipts[index]
        receipt["previousHash"] = receipts[index - 1]["hash"] if index else "0" * 64
        receipt["hash"] = receipt_digest(
            trail["trailId"],
            receipt["id"],
            receipt["kind"],
            receipt["at"],
            receipt["previousHash"],
            receipt["payload"],
        )


def test_changed_payload_is_rejected_without_echoing_it() -> None:
    tampered = round_trip(start())
    tampered["receipts"][0]["payload"]["observations"][0]["writePaths"] = [SECRET]
    reason = reason_of(tampered)
    assert reason == "receipts[0].hash: does not match the receipt content"
    assert SECRET not in reason


def test_reordered_paths_are_noncanonical() -> None:
    trail = round_trip(
        start(
            observation("a", writePaths=["src/a.js", "src/b.js"]),
            observation("b", writePaths=["src/b.js"]),
        )
    )
    trail["receipts"][0]["payload"]["observations"][0]["writePaths"].reverse()
    assert reason_of(trail) == "receipts[0].payload: not in canonical order"


def test_reordered_payload_keys_are_noncanonical() -> None:
    trail = round_trip(start())
    payload = trail["receipts"][1]["payload"]
    trail["receipts"][1]["payload"] = dict(reversed(list(payload.items())))
    assert reason_of(trail) == "receipts[1].payload: not in canonical order"


def test_relabelled_trail_id_fails_verification() -> None:
    relabelled = round_trip(start())
    relabelled["trailId"] = "different-shadow-trail"
    assert reason_of(relabelled) == "receipts[0].hash: does not match the receipt content"


def test_duplicate_receipt_id_is_refused_on_append_and_on_verify() -> None:
    initial = start()
    with pytest.raises(ShadowTrailError):
        append_acknowledgement(
            initial, id=initial["receipts"][0]["id"], agent_id="a", scope_revision=1, at=LATER
        )
    duplicated = round_trip(full_chain())
    duplicated["receipts"][3]["id"] = "ack-a"
    rehash(duplicated, 3)
    assert reason_of(duplicated) == "receipts[3].id: duplicate receipt id"


def test_edited_risk_is_caught_by_recomputation_even_after_rehashing() -> None:
    forged = round_trip(start())
    forged["receipts"][1]["payload"]["heuristicRisk"] = 0.5
    rehash(forged, 1)
    assert reason_of(forged) == "receipts[1]: advisory: differs from the recomputed advisory"


def test_swapped_receipts_break_the_chain() -> None:
    swapped = round_trip(full_chain())
    receipts = swapped["receipts"]
    receipts[2], receipts[3] = receipts[3], receipts[2]
    assert reason_of(swapped) == "receipts[2].previousHash: does not link to the previous receipt"


def test_a_trail_may_not_end_with_an_advisory_pending() -> None:
    pending = round_trip(full_chain())
    pending["receipts"].pop()
    assert reason_of(pending) == "trail: ends with an advisory pending"


def test_time_may_not_run_backwards() -> None:
    backwards = round_trip(full_chain())
    backwards["receipts"][3]["at"] = "2026-09-15T11:00:00.000Z"
    rehash(backwards, 3)
    assert reason_of(backwards) == "receipts[3].at: earlier than the previous receipt"


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda t: t.update(version=2), "trail.version: not 1"),
        (lambda t: t.update(extra=1), "trail: unknown field"),
        (
            lambda t: t["receipts"].__setitem__(slice(1, None), []),
            "trail.receipts: fewer than 2 receipts",
        ),
        (lambda t: t["receipts"].extend([t["receipts"][0]] * 10), "trail.receipts: too many items"),
        (lambda t: t["receipts"][0].update(kind="verdict"), "receipts[0]: unknown receipt kind"),
        (lambda t: t["receipts"][0].pop("hash"), "receipts[0]: missing field"),
        (
            lambda t: t["receipts"][0].update(hash="A" * 64),
            "receipts[0]: hash fields are not 64 lower-case hex digits",
        ),
        (lambda t: t["receipts"][1].update(version=True), "receipts[1].version: not 1"),
    ],
)
def test_structural_damage_is_named(mutate: Any, reason: str) -> None:
    trail = round_trip(full_chain())
    mutate(trail)
    assert reason_of(trail) == reason


def test_unknown_field_in_an_observation_is_refused_without_echo() -> None:
    with pytest.raises(ShadowTrailError) as caught:
        start(observation("a", summary=SECRET))
    assert caught.value.reason == "observations[0]: unknown field"
    assert SECRET not in str(caught.value) + caught.value.reason
    assert caught.value.__cause__ is None


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (
            {"a": observation("a", writePaths=["../escape"])},
            "observations[0].writePaths[0]: path has",
        ),
        (
            {"a": observation("a", writePaths=["src/a.js"] * 33)},
            "observations[0].writePaths: too many",
        ),
        ({"graph": {"adjacency": {"__proto__": ["src/a.js"]}}}, "graph.adjacency key 0: path has"),
        (
            {"graph": {"adjacency": {f"n{i}.js": [] for i in range(65)}}},
            "graph.adjacency: too many keys",
        ),
        (
            {
                "graph": {
                    "adjacency": {f"n{i}.js": [f"m{j}.js" for j in range(16)] for i in range(17)}
                }
            },
            "graph.adjacency: too many edges",
        ),
        ({"graph": {"adjacency": {"a.js": "b.js"}}}, "graph.adjacency: too many edges"),
        ({"b": observation("a")}, "observations: both observations name the same agent"),
    ],
)
def test_unbounded_or_escaping_input_is_refused(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(ShadowTrailError) as caught:
        start(**options)
    assert caught.value.reason.startswith(reason)
