"""Every airspace endpoint, three principals and an anonymous client: nothing leaks out of scope."""

from __future__ import annotations

import pytest
from django.utils import timezone

from proximity.models import ProximityAdvisory
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository

pytestmark = pytest.mark.django_db(transaction=True)


def _seed(owner) -> dict[str, int]:
    """Two repositories with one Resolution advisory each: web (team-a), vault (team-b)."""
    make_repository("web", scope="team-a")
    make_repository("vault", scope="team-b", disclosure=["internal"])
    for repo in ("web", "vault"):
        for agent, lines in (("a1", [[1, 40]]), ("a2", [[5, 9]])):
            report = WorkingSetReport(repo, agent, [file_entry("src/core.py", lines)], [])
            working_set_report(principal=owner, report=report, now=timezone.now())
    return {a.repository.name: a.pk for a in ProximityAdvisory.objects.select_related("repository")}


@pytest.fixture
def seeded(lead, in_process_tasks):
    ids = _seed(lead.principal)
    assert set(ids) == {"web", "vault"}
    return ids


def _get(client, path, caller):
    return client.get(path, **(caller.headers if caller else {}))


def test_repository_list_shows_only_visible_repositories(seeded, client, lead, partial, outsider):
    assert [r["name"] for r in _get(client, "/api/repositories", lead).json()] == ["vault", "web"]
    assert [r["name"] for r in _get(client, "/api/repositories", partial).json()] == ["web"]
    assert _get(client, "/api/repositories", outsider).json() == []
    assert _get(client, "/api/repositories", None).status_code == 401


def test_advisory_list_and_detail_are_scoped(seeded, client, lead, partial, outsider):
    assert len(_get(client, "/api/advisories", lead).json()) == 2
    assert [a["repository"] for a in _get(client, "/api/advisories", partial).json()] == ["web"]
    assert _get(client, "/api/advisories", outsider).json() == []
    vault = seeded["vault"]
    assert _get(client, f"/api/advisories/{vault}", lead).status_code == 200
    hidden = _get(client, f"/api/advisories/{vault}", partial)
    missing = _get(client, "/api/advisories/999999", partial)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()
    assert _get(client, f"/api/advisories/{vault}", None).status_code == 401


def test_acknowledge_outside_scope_is_404_and_changes_nothing(
    seeded, client, partial, outsider, post_json
):
    vault = seeded["vault"]
    response = post_json(f"/api/advisories/{vault}/acknowledge", {"note": "x"}, partial)
    assert response.status_code == 404
    assert ProximityAdvisory.objects.get(pk=vault).state == "open"
    web = seeded["web"]
    ok = post_json(f"/api/advisories/{web}/acknowledge", {"note": "on it"}, partial)
    assert ok.status_code == 200
    assert ok.json()["state"] == "acknowledged"
    assert ok.json()["acknowledgedBy"][0]["by"] == "partial"
    assert post_json(f"/api/advisories/{web}/acknowledge", {}, outsider).status_code == 404


def test_scan_and_messages_are_scoped(seeded, client, lead, partial, outsider):
    assert _get(client, "/api/repositories/vault/scan", lead).status_code == 200
    for path in ("/api/repositories/vault/scan", "/api/repositories/vault/agents/a1/messages"):
        assert _get(client, path, partial).status_code == 404
        assert _get(client, path, outsider).status_code == 404
        assert _get(client, path, None).status_code == 401
    scan = _get(client, "/api/repositories/web/scan", partial).json()
    assert {p["agentId"] for p in scan["positions"]} == {"a1", "a2"}
    assert scan["links"][0]["level"] == "resolution"


def test_reporting_into_an_invisible_repository_stores_nothing(
    seeded, client, partial, outsider, post_json
):
    from proximity.models import WorkingSetSnapshot

    before = WorkingSetSnapshot.objects.count()
    body = {"repository": "vault", "agentId": "spy", "files": [{"path": "src/core.py"}]}
    assert post_json("/api/working-sets", body, partial).status_code == 404
    assert post_json("/api/working-sets", body, outsider).status_code == 404
    assert WorkingSetSnapshot.objects.count() == before
