"""The stored 7-receipt chain pins the hash encoding; it must never drift silently."""

from __future__ import annotations

import json
from typing import Any

from proximity.engine.trail import summarize_shadow_trail, verify_shadow_trail
from tests.engine.trail.factory import full_chain, round_trip, start
from tests.engine.trail.golden import GOLDEN


def golden() -> dict[str, Any]:
    trail: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return trail


def test_golden_chain_verifies_as_stored() -> None:
    assert verify_shadow_trail(golden()) is None
    summary = summarize_shadow_trail(golden())
    assert summary["receiptCount"] == 7
    assert summary["latestAdvisory"]["state"] == "no-advisory-in-scope"


def test_rebuilding_the_chain_reproduces_every_stored_hash() -> None:
    stored = [receipt["hash"] for receipt in golden()["receipts"]]
    assert [receipt["hash"] for receipt in full_chain()["receipts"]] == stored
    assert stored[0] == "c82b0aa15b3ceb99cb67667d0e46a748fddaa41aa0826173d936973ec69e0459"


def test_rebuilt_chain_equals_the_stored_file_and_survives_a_json_round_trip() -> None:
    built = full_chain()
    assert built == golden()
    assert verify_shadow_trail(round_trip(built)) is None


def test_first_hash_does_not_depend_on_graph_key_insertion_order() -> None:
    edges = {"src/shared.js": ["lib/z.js"], "lib/z.js": [], "docs/a.md": ["src/shared.js"]}
    forward = start(graph={"adjacency": edges})
    backward = start(graph={"adjacency": dict(reversed(list(edges.items())))})
    assert forward["receipts"][0]["hash"] == backward["receipts"][0]["hash"]
    assert forward["receipts"][1]["hash"] == backward["receipts"][1]["hash"]
