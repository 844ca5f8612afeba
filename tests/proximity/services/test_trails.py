"""Shadow trails are stored only when they verify, grow only by appends, and read back verified."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from proximity.exceptions import ConflictError, InvalidInputError
from proximity.models import ShadowTrail
from proximity.services.trails import trail_record
from tests.factories import make_repository

pytestmark = pytest.mark.django_db
GOLDEN = Path(__file__).resolve().parents[2] / "engine" / "data" / "trail_full_chain.json"


@pytest.fixture
def trail() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.fixture
def repo():
    return make_repository("web", scope="team-a")


def _changed_payload(doc: dict) -> None:
    doc["receipts"][1]["payload"]["heuristicRisk"] = 0.01


def _reordered_paths(doc: dict) -> None:
    obs = doc["receipts"][0]["payload"]["observations"][0]
    obs["writePaths"] = ["zz.js", "aa.js"]


def _relabelled(doc: dict) -> None:
    doc["trailId"] = "shadow-2"


def _duplicate_id(doc: dict) -> None:
    doc["receipts"][3]["id"] = doc["receipts"][2]["id"]


@pytest.mark.parametrize(
    "tamper",
    [_changed_payload, _reordered_paths, _relabelled, _duplicate_id],
    ids=["changed-payload", "reordered-paths", "relabelled-trail-id", "duplicate-receipt-id"],
)
def test_tampered_trails_are_rejected_and_nothing_is_stored(repo, trail, tamper) -> None:
    bad = copy.deepcopy(trail)
    tamper(bad)
    with pytest.raises(InvalidInputError) as info:
        trail_record(repository=repo, document=bad)
    assert info.value.field == "trail"
    assert not ShadowTrail.objects.exists()


def test_a_trail_survives_a_json_round_trip_through_the_database(repo, trail, client, lead) -> None:
    trail_record(repository=repo, document=trail)
    stored = ShadowTrail.objects.get()
    assert stored.receipt_count == 7
    assert stored.head_hash == trail["receipts"][-1]["hash"]
    body = client.get("/api/trails/shadow-1", **lead.headers).json()
    assert body["verified"] is True
    assert body["document"] == trail
    assert body["summary"]["mode"] == "shadow-read-only"


def test_a_stored_trail_may_grow_but_never_be_rewritten(repo, trail) -> None:
    prefix = {**trail, "receipts": trail["receipts"][:4]}
    trail_record(repository=repo, document=prefix)
    assert trail_record(repository=repo, document=trail).receipt_count == 7
    with pytest.raises(ConflictError):
        trail_record(repository=repo, document=prefix)


def test_trails_are_read_only_and_scoped(repo, trail, client, partial, outsider) -> None:
    trail_record(repository=repo, document=trail)
    assert client.get("/api/trails/shadow-1", **partial.headers).status_code == 200
    assert client.get("/api/trails/shadow-1", **outsider.headers).status_code == 404
    assert client.post("/api/trails/shadow-1", **partial.headers).status_code == 405
