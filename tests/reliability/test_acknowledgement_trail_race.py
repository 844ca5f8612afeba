"""Concurrent acknowledgements of one pair are all kept in its trail, each costs a bounded number
of queries, and a removal racing reports answers 204/409, never 503 (issue 31, items 5 and 6).

The probes: two acknowledgements at once both answered success but the pair's receipt trail kept
one; each acknowledgement read the pair's trails one query at a time; deleting a repository with
active agents answered 503 (an IntegrityError race) 10 times out of 10.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from proximity.engine.trail import verify_shadow_trail
from proximity.models import EditAcknowledgement, ShadowTrail
from proximity.services.acknowledgements import edit_acknowledge
from proximity.services.scans import scan_run
from tests.factories import (
    bind_agents,
    file_entry,
    make_caller,
    make_repository,
    make_staff_caller,
    working_set,
)
from tests.reliability.locks import a_session_waits_on_a_lock, in_thread

BASE = "c" * 40


def _pair(post_json, *, scanned: bool = True):
    web = make_repository("web", scope="team-a")
    alice = bind_agents(make_caller("alice", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob", scopes=["team-a"], kind="agent"), "web", "bob")
    for caller, name in ((alice, "alice"), (bob, "bob")):
        body = working_set("web", name, [file_entry("core.py", [[22, 22]])])
        assert post_json("/api/working-sets", body, caller).status_code == 201
    if scanned:
        scan_run(repository_id=web.pk)
    return alice, bob


def _ack(caller, me: str, other: str):
    return edit_acknowledge(
        principal=caller.principal,
        repository="web",
        agent_id=me,
        other_id=other,
        paths=["core.py"],
        base_revision=BASE,
        note=me,
        now=timezone.now(),
    )


def _receipts() -> list[str]:
    kinds = []
    for trail in ShadowTrail.objects.order_by("pk"):
        document = json.loads(trail.document)
        verify_shadow_trail(document)
        kinds += [r["payload"].get("agentId", "") for r in document["receipts"]
                  if r["kind"] == "acknowledgement"]  # fmt: skip
    return kinds


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_two_sides_acknowledging_at_once_both_land_in_the_trail(post_json) -> None:
    # Not scanned: no live advisory whose row lock would order the two by chance.
    alice, bob = _pair(post_json, scanned=False)
    held, release = threading.Event(), threading.Event()

    def slow() -> None:
        with transaction.atomic():  # the first keeps its transaction, and the pair's lock, open
            _ack(alice, "alice", "bob")
            held.set()
            release.wait(10)

    first = in_thread(slow)
    assert held.wait(10)
    second = in_thread(lambda: _ack(bob, "bob", "alice"))
    assert a_session_waits_on_a_lock(), "the second acknowledgement did not wait for the first"
    release.set()
    first.join(10)
    second.join(10)
    assert EditAcknowledgement.objects.count() == 2
    assert sorted(_receipts()) == ["alice", "bob"]


@pytest.mark.django_db
def test_an_acknowledgement_costs_the_same_queries_however_many_trails_the_pair_has(
    post_json,
) -> None:
    alice, bob = _pair(post_json)
    counts = []
    for n in range(12):
        caller, me, other = (alice, "alice", "bob") if n % 2 else (bob, "bob", "alice")
        with CaptureQueriesContext(connection) as queries:
            _ack(caller, me, other)
        counts.append(len(queries))
    assert ShadowTrail.objects.count() >= 3, "the pair needs several trails for this to show"
    assert max(counts[2:]) <= 30, counts
    assert max(counts[2:]) - min(counts[2:]) <= 2, counts  # no query per earlier trail
    assert len(_receipts()) == 12


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_removal_racing_reports_answers_204_and_the_reports_201_or_409(lead) -> None:
    make_repository("web", scope="team-a")
    remover = make_staff_caller("ops", scopes=["team-a"])

    def reports(worker: int) -> list[int]:
        client, codes = Client(), []
        try:
            for n in range(8):
                body = working_set("web", f"w{worker}", [file_entry(f"f{n}.py", [[1, n + 1]])])
                answer = client.post(
                    "/api/working-sets", json.dumps(body), "application/json", **lead.headers
                )
                codes.append(answer.status_code)
        finally:
            connection.close()
        return codes

    with ThreadPoolExecutor(max_workers=4) as pool:
        running = [pool.submit(reports, w) for w in range(4)]
        removal = Client().delete("/api/repositories/web", **remover.headers)
        codes = [c for future in running for c in future.result(timeout=60)]
    assert removal.status_code == 204, removal.content
    assert set(codes) <= {201, 409}, codes
    after = Client().post(
        "/api/working-sets",
        json.dumps(working_set("web", "w0", [file_entry("late.py")])),
        "application/json",
        **lead.headers,
    )
    assert after.status_code == 409
