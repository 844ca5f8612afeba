"""Permissions, not staff flags, and nothing erased without a trace (issue 31, items 4 and 5).

The probes: an adjudicator's token (staff, to reach the desk) registered a repository at a server
path with merge-check tests on and deleted repositories, which the admin refuses; a delete erased
advisories, acknowledgements and hash-chained trails. Run on PostgreSQL and SQLite.
"""

from __future__ import annotations

import json

import pytest

from proximity.engine.trail import verify_shadow_trail
from proximity.models import Agent, EditAcknowledgement, Repository, ShadowTrail
from tests.factories import (
    bind_agents,
    file_entry,
    make_caller,
    make_repository,
    make_staff_caller,
    working_set,
)
from tests.proximity.admin.factories import make_adjudicator

pytestmark = pytest.mark.django_db

BASE = "b" * 40
PROBE = {"name": "probe", "path": "/srv", "mergeChecks": True, "mergeCheckTests": True}


def _adjudicator_caller():
    user = make_adjudicator("reviewer", scopes=["team-a"])
    principal = user.principal
    from proximity.services.tokens import token_issue

    raw, _ = token_issue(principal=principal)
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def test_an_adjudicators_token_can_neither_register_nor_remove(client, post_json) -> None:
    make_repository("web", scope="team-a")
    headers = _adjudicator_caller()
    created = client.post("/api/repositories", json.dumps(PROBE), "application/json", **headers)
    assert created.status_code == 403
    assert "proximity.add_repository" in created.json()["detail"]
    assert client.delete("/api/repositories/web", **headers).status_code == 403
    assert list(Repository.objects.values_list("name", "archived_at")) == [("web", None)]


@pytest.mark.parametrize(
    ("permissions", "register", "remove"),
    [
        ((), 403, 403),
        (("view_repository", "change_repository"), 403, 403),
        (("add_repository",), 201, 403),
        (("delete_repository",), 403, 204),
    ],
)
def test_each_write_needs_the_permission_the_admin_needs(
    client, post_json, permissions, register, remove
) -> None:
    make_repository("web", scope="team-a")
    staff = make_staff_caller("boss", scopes=["team-a"], permissions=permissions)
    body = {"name": "new", "scope": "team-a"}
    assert post_json("/api/repositories", body, staff).status_code == register
    assert client.delete("/api/repositories/web", **staff.headers).status_code == remove


def test_a_superuser_without_staff_is_refused_as_the_admin_refuses(client, post_json) -> None:
    caller = make_staff_caller("root", scopes=["team-a"])
    caller.principal.user.is_staff, caller.principal.user.is_superuser = False, True
    caller.principal.user.save()
    assert post_json("/api/repositories", {"name": "x"}, caller).status_code == 403


@pytest.fixture
def encounter(post_json):
    """Two agents on one line of web, scanned, and bob's acknowledgement in the pair's trail."""
    from proximity.services.scans import scan_run

    web = make_repository("web", scope="team-a")
    alice = bind_agents(make_caller("alice", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob", scopes=["team-a"], kind="agent"), "web", "bob")
    for caller, name in ((alice, "alice"), (bob, "bob")):
        body = working_set("web", name, [file_entry("core.py", [[22, 22]])])
        assert post_json("/api/working-sets", body, caller).status_code == 201
    scan_run(repository_id=web.pk)
    ack = {"repository": "web", "agentId": "bob", "other": "alice", "baseRevision": BASE}
    assert post_json("/api/acknowledgements", ack, bob).status_code == 201
    return web, alice, bob


def test_removing_archives_agents_stop_and_the_records_and_trail_stay(
    encounter, lead, client, post_json
) -> None:
    web, alice, _ = encounter
    trail = ShadowTrail.objects.get()
    advisories = client.get("/api/advisories?repository=web", **lead.headers).json()
    remover = make_staff_caller("ops", scopes=["team-a"])
    assert client.delete("/api/repositories/web", **remover.headers).status_code == 204
    web.refresh_from_db()
    assert web.archived_by == "ops"
    assert web.archived_at is not None
    # Agents stop: a report or an acknowledgement is a 409 naming the repository; nothing stored.
    body = working_set("web", "alice", [file_entry("core.py", [[1, 2]])])
    refused = post_json("/api/working-sets", body, alice)
    assert (refused.status_code, refused.json()["field"]) == (409, "repository")
    ack = {"repository": "web", "agentId": "alice", "other": "bob", "baseRevision": BASE}
    assert post_json("/api/acknowledgements", ack, alice).status_code == 409
    assert EditAcknowledgement.objects.count() == 1
    # The records stay readable to whoever sees the scope; the trail still verifies.
    assert client.get("/api/advisories?repository=web", **lead.headers).json() == advisories
    read = client.get(f"/api/trails/{trail.trail_id}", **lead.headers)
    assert (read.status_code, read.json()["verified"]) == (200, True)
    verify_shadow_trail(json.loads(ShadowTrail.objects.get().document))
    listed = client.get("/api/repositories", **lead.headers).json()
    assert [r["archivedAt"] is not None for r in listed if r["name"] == "web"] == [True]
    assert Agent.objects.filter(repository=web).count() == 2
    # The name stays taken: trails and advisories are filed under it.
    again = post_json("/api/repositories", {"name": "web", "scope": "team-a"}, remover)
    assert (again.status_code, again.json()["field"]) == (409, "name")


def test_removed_repositories_are_not_watched_and_not_scanned() -> None:
    from proximity.services.repositories import repository_remove
    from proximity.services.scan_requests import scan_request
    from proximity.tasks import watch_repositories

    web = make_repository("web", scope="team-a", watch=True, path="/srv/web")
    repository_remove(principal=None, name="web", by="ops")
    assert watch_repositories.apply().get() == 0
    assert scan_request(repository_id=web.pk) is False
    web.refresh_from_db()
    assert (web.watch_claimed_at, web.scan_requested_at) == (None, None)
