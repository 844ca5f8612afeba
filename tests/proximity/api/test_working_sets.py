"""Working-set reports: stored as new versions, validated with the field named, scoped."""

from __future__ import annotations

import pytest

from proximity.models import ProximityAdvisory, WorkingSetSnapshot
from tests.factories import file_entry, make_repository, working_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def repo():
    return make_repository("web", scope="team-a")


def test_report_creates_consecutive_versions_and_unchanged_content_creates_none(
    repo, partial, post_json
) -> None:
    body = working_set("web", "a1", [file_entry("src/x.py", [[1, 10]])])
    first = post_json("/api/working-sets", body, partial)
    again = post_json("/api/working-sets", body, partial)
    body["files"][0]["lines"] = [[1, 12]]
    changed = post_json("/api/working-sets", body, partial)
    assert [r.status_code for r in (first, again, changed)] == [201, 201, 201]
    assert [r.json()["version"] for r in (first, again, changed)] == [1, 1, 2]
    assert WorkingSetSnapshot.objects.count() == 2


@pytest.mark.parametrize(
    ("files", "field"),
    [
        ([{"path": "../etc/passwd"}], "files[0].path"),
        ([{"path": "/abs/path.py"}], "files[0].path"),
        ([{"path": "a.py", "lines": [[9, 3]]}], "files[0].lines[0]"),
        ([{"path": "a.py", "lines": [[1, 20_000_000]]}], "files[0].lines[0][1]"),
        ([{"path": "a.py", "weight": -1}], "files[0].weight"),
        ([{"path": "a.py", "colour": "red"}], "files[0].colour"),
        ([{"path": "a.py"}, {"path": "a.py"}], "files[1].path"),
        ([{"path": "a\x00b.py"}], "files[0].path"),
        ([{"path": "a.py", "lines": "all"}], "files[0].lines"),
    ],
)
def test_bad_input_is_422_naming_the_field_and_stores_nothing(
    repo, partial, post_json, files, field
) -> None:
    post_json("/api/working-sets", working_set("web", "a1", [file_entry("ok.py")]), partial)
    before = list(WorkingSetSnapshot.objects.values_list("pk", "version", "files"))
    response = post_json("/api/working-sets", working_set("web", "a1", files), partial)
    assert response.status_code == 422
    assert response.json()["field"] == field
    assert list(WorkingSetSnapshot.objects.values_list("pk", "version", "files")) == before


@pytest.mark.parametrize("bad", ["yes", 1, None, [True]])
def test_published_must_be_true_or_false_and_a_bad_one_changes_nothing(
    repo, partial, post_json, bad
) -> None:
    """``published`` (every change committed, the head on a remote) keeps the agent from
    parking (docs/DECISIONS.md, "Published work waits on review"); only a boolean is taken."""
    from proximity.models import Agent

    body = {**working_set("web", "a1", [file_entry("ok.py")]), "published": True}
    assert post_json("/api/working-sets", body, partial).status_code == 201
    assert Agent.objects.get(agent_id="a1").published
    response = post_json("/api/working-sets", {**body, "published": bad}, partial)
    assert response.status_code == 422
    assert response.json()["field"] == "published"
    assert Agent.objects.get(agent_id="a1").published
    assert post_json("/api/working-sets", {**body, "published": False}, partial).status_code == 201
    assert not Agent.objects.get(agent_id="a1").published


def test_unauthenticated_report_is_401(repo, post_json) -> None:
    response = post_json("/api/working-sets", working_set("web", "a1", []))
    assert response.status_code == 401
    assert response.json()["field"] == "Authorization"


def test_out_of_scope_repository_is_indistinguishable_from_a_missing_one(
    repo, outsider, post_json
) -> None:
    hidden = post_json("/api/working-sets", working_set("web", "a1", []), outsider)
    missing = post_json("/api/working-sets", working_set("nope", "a1", []), outsider)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()


def test_an_agent_id_belongs_to_the_principal_that_first_reported_it(
    repo, partial, lead, post_json
) -> None:
    post_json("/api/working-sets", working_set("web", "a1", []), partial)
    response = post_json("/api/working-sets", working_set("web", "a1", []), lead)
    assert response.status_code == 404


def test_two_agents_on_the_same_lines_get_a_resolution_advisory_in_process(
    repo, partial, post_json, in_process_tasks
) -> None:
    post_json(
        "/api/working-sets", working_set("web", "a1", [file_entry("x.py", [[1, 40]])]), partial
    )
    post_json(
        "/api/working-sets", working_set("web", "a2", [file_entry("x.py", [[10, 20]])]), partial
    )
    advisory = ProximityAdvisory.objects.get()
    assert advisory.band == "resolution"
    assert {advisory.steer.agent_id, advisory.hold.agent_id} == {"a1", "a2"}
    assert advisory.detail["sharedFiles"][0]["path"] == "x.py"


def test_a_leave_retires_the_working_set_now_and_the_pair_s_advisory_expires(
    repo, partial, post_json, client, in_process_tasks
) -> None:
    """The worktree is gone: its lines hold nothing from now, not at the TTL; idempotent."""
    from django.utils import timezone

    from proximity.selectors.airspace import current_snapshots

    for agent, lines in (("a1", [[1, 40]]), ("feature/a2", [[10, 20]])):
        body = working_set("web", agent, [file_entry("x.py", lines)])
        assert post_json("/api/working-sets", body, partial).status_code == 201
    advisory = ProximityAdvisory.objects.get()
    assert advisory.state == "open"
    path = "/api/repositories/web/agents/feature%2Fa2/working-set"

    left = client.delete(path, **partial.headers)
    again = client.delete(path, **partial.headers)

    assert left.status_code == again.status_code == 200
    assert left.json()["agentId"] == "feature/a2"
    assert [left.json()["retired"], again.json()["retired"]] == [True, False]
    assert [s.agent.agent_id for s in current_snapshots(repo, timezone.now())] == ["a1"]
    advisory.refresh_from_db()
    assert advisory.state == "expired"
    # The next report starts a new version: the agent is back, with nothing of the old one.
    body = working_set("web", "feature/a2", [file_entry("x.py", [[10, 20]])])
    back = post_json("/api/working-sets", body, partial)
    assert back.status_code == 201
    assert back.json()["version"] == 2
    assert ProximityAdvisory.objects.filter(state="open").count() == 1


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/api/repositories/web/agents/nobody/working-set", "agent not found"),
        ("/api/repositories/nope/agents/a1/working-set", "repository not found"),
    ],
)
def test_a_leave_of_an_unknown_agent_or_repository_is_404_and_changes_nothing(
    repo, partial, post_json, client, path, detail
) -> None:
    post_json("/api/working-sets", working_set("web", "a1", [file_entry("x.py")]), partial)
    before = list(WorkingSetSnapshot.objects.values_list("pk", "expires_at"))
    response = client.delete(path, **partial.headers)
    assert response.status_code == 404
    assert response.json()["detail"] == detail
    assert list(WorkingSetSnapshot.objects.values_list("pk", "expires_at")) == before


def test_another_principal_cannot_retire_an_agent_it_does_not_hold(
    repo, partial, lead, post_json, client
) -> None:
    post_json("/api/working-sets", working_set("web", "a1", [file_entry("x.py")]), partial)
    before = list(WorkingSetSnapshot.objects.values_list("pk", "expires_at"))
    response = client.delete("/api/repositories/web/agents/a1/working-set", **lead.headers)
    assert response.status_code == 404
    assert response.json()["detail"] == "agent not found"
    assert client.delete("/api/repositories/web/agents/a1/working-set").status_code == 401
    assert list(WorkingSetSnapshot.objects.values_list("pk", "expires_at")) == before
