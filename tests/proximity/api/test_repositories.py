"""POST and DELETE /api/repositories: staff only (403 for others), 422 naming the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proximity.models import Agent, Repository
from tests.factories import make_caller, make_repository, make_staff_caller
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Any:
    return make_staff_caller("boss", scopes=["team-a"])


def _stored() -> list[dict[str, Any]]:
    return list(Repository.objects.order_by("pk").values())


def test_staff_registers_a_repository_and_everyone_in_scope_lists_it(
    staff, partial, client, post_json
) -> None:
    created = post_json("/api/repositories", {"name": "web", "scope": "team-a"}, staff)
    assert created.status_code == 201
    assert created.json() == {
        "name": "web",
        "scope": "team-a",
        "baseBranch": "main",
        "profile": "radar-v1-symbols",  # the default (issue 30)
        "agentCount": 0,
        "mergeChecks": False,
        "mergeCheckTests": False,
        "parkedHours": None,
        "archivedAt": None,
    }
    listed = client.get("/api/repositories", **partial.headers).json()
    assert [r["name"] for r in listed] == ["web"]


def test_a_watched_clone_is_registered_with_its_top_folder(staff, post_json, tmp_path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(5))
    repo.commit("base")
    body = {"name": "web", "path": str(repo.path() / "app"), "watch": True, "baseBranch": "main"}
    assert post_json("/api/repositories", body, staff).status_code == 201
    assert Path(Repository.objects.get().path) == repo.path().resolve()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "not a slug"}, "name"),
        ({"name": "web", "watch": True}, "path"),
        ({"name": "web", "watch": True, "path": "/nonexistent"}, "path"),
        ({"name": "web", "webhookUrl": "gopher://x"}, "webhookUrl"),
        ({"name": "web", "profile": "radar-v9"}, "profile"),
        ({"name": "web", "baseBranch": "--upload-pack=x"}, "baseBranch"),
        ({"name": "web", "scope": "team a"}, "scope"),
        ({"name": "web", "colour": "red"}, "colour"),
        ({"name": "web", "watch": "sometimes"}, "watch"),
        ({}, "name"),
        ({"name": "web", "mergeChecks": True}, "path"),
        ({"name": "web", "path": "/srv/web", "mergeCheckTests": True}, "mergeCheckTests"),
        ({"name": "web", "parkedHours": -1}, "parkedHours"),
        ({"name": "web", "parkedHours": 8761}, "parkedHours"),
        ({"name": "web", "parkedHours": True}, "parkedHours"),
        ({"name": "web", "parkedHours": "a week"}, "parkedHours"),
    ],
)
def test_bad_input_is_422_naming_the_field_and_stores_nothing(
    staff, post_json, body, field
) -> None:
    make_repository("existing", scope="team-a")
    before = _stored()
    response = post_json("/api/repositories", body, staff)
    assert response.status_code == 422, response.content
    assert response.json()["field"] == field
    assert _stored() == before


def test_staff_opts_a_repository_in_to_merge_checks_with_tests(staff, post_json) -> None:
    body = {"name": "web", "path": "/srv/web", "mergeChecks": True, "mergeCheckTests": True}
    created = post_json("/api/repositories", body, staff)
    assert created.status_code == 201
    assert (created.json()["mergeChecks"], created.json()["mergeCheckTests"]) == (True, True)
    stored = Repository.objects.get()
    assert (stored.merge_checks, stored.merge_check_tests) == (True, True)


@pytest.mark.parametrize(("sent", "stored"), [(0, 0.0), (36.5, 36.5), (None, None)])
def test_staff_sets_a_repository_s_parked_time(staff, post_json, sent, stored) -> None:
    """0: never parked; null: the profile's (docs/DECISIONS.md, "A repository's parked time")."""
    created = post_json("/api/repositories", {"name": "web", "parkedHours": sent}, staff)
    assert created.status_code == 201, created.content
    assert created.json()["parkedHours"] == stored
    assert Repository.objects.get().parked_hours == stored


def test_a_taken_name_is_409_naming_it(staff, post_json) -> None:
    make_repository("web", scope="team-b")
    response = post_json("/api/repositories", {"name": "web"}, staff)
    assert response.status_code == 409
    assert response.json()["field"] == "name"
    assert Repository.objects.get().scope == "team-b"


@pytest.mark.parametrize("kind", ["human", "agent", "service"])
def test_a_principal_without_a_permitted_user_is_403_even_with_a_bad_body(
    kind, post_json, client
) -> None:
    caller = make_caller("someone", scopes=["team-a"], kind=kind)
    make_repository("web", scope="team-a")
    for body in ({"name": "new"}, {"name": "not a slug", "colour": "red"}):
        response = post_json("/api/repositories", body, caller)
        assert response.status_code == 403
        detail = "registering a repository needs the proximity.add_repository permission"
        assert response.json()["detail"] == detail
    assert client.delete("/api/repositories/web", **caller.headers).status_code == 403
    assert list(Repository.objects.values_list("name", flat=True)) == ["web"]


def test_anonymous_is_401(post_json, client) -> None:
    make_repository("web", scope="team-a")
    assert post_json("/api/repositories", {"name": "new"}).status_code == 401
    assert client.delete("/api/repositories/web").status_code == 401
    assert Repository.objects.count() == 1


def test_staff_removes_a_visible_repository_which_is_archived_with_its_agents(
    staff, client
) -> None:
    web = make_repository("web", scope="team-a")
    Agent.objects.create(repository=web, agent_id="feature/login")
    response = client.delete("/api/repositories/web", **staff.headers)
    assert response.status_code == 204
    web.refresh_from_db()
    assert (web.archived_by, Agent.objects.count()) == ("boss", 1)
    again = client.delete("/api/repositories/web", **staff.headers)
    assert again.status_code == 404


def test_removing_a_hidden_repository_answers_like_a_missing_one(staff, client) -> None:
    make_repository("vault", scope="team-b")
    hidden = client.delete("/api/repositories/vault", **staff.headers)
    missing = client.delete("/api/repositories/nope", **staff.headers)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()
    assert Repository.objects.filter(name="vault").exists()
