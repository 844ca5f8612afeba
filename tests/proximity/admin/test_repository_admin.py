"""The repository admin: staff add, change and remove repositories through the service's checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from proximity.models import Agent, Repository
from tests.factories import make_caller, make_repository
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db

ADD = "admin:proximity_repository_add"


@pytest.fixture
def staff(client) -> Any:
    """A staff login for a team-a principal, with the repository model's permissions."""
    user = get_user_model().objects.create_user("boss", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__endswith="_repository"))
    principal = make_caller("boss", scopes=["team-a"]).principal
    principal.user = user
    principal.save(update_fields=["user"])
    client.force_login(user)
    return user


def _form(**fields: Any) -> dict[str, Any]:
    base = {"name": "web", "scope": "team-a", "disclosure": "[]", "path": "", "base_branch": "main"}
    return {**base, "profile": "radar-v1", "webhook_url": "", **fields}


def _stored() -> list[dict[str, Any]]:
    return list(Repository.objects.order_by("pk").values())


def test_staff_add_a_repository_and_a_blank_scope_becomes_the_name(staff, client) -> None:
    response = client.post(reverse(ADD), _form(scope="", name="team-a"))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Repository.objects.get().scope == "team-a"


def test_a_watched_clone_is_stored_as_its_top_folder(staff, client, tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(5))
    repo.commit("base")
    form = _form(watch="on", path=str(repo.path() / "app"))
    assert client.post(reverse(ADD), form).status_code == 302
    assert Path(Repository.objects.get().path) == repo.path().resolve()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"watch": "on", "path": "/nonexistent"}, "path"),
        ({"watch": "on"}, "path"),
        ({"base_branch": "--upload-pack=x"}, "base_branch"),
        ({"scope": "team a"}, "scope"),
        ({"name": "not a slug"}, "name"),
        ({"profile": "radar-v9"}, "profile"),
        ({"parked_hours": "-1"}, "parked_hours"),
        ({"parked_hours": "9000"}, "parked_hours"),
        ({"parked_hours": "nan"}, "parked_hours"),
    ],
)
def test_the_form_names_the_bad_field_and_stores_nothing(staff, client, fields, field) -> None:
    make_repository("existing", scope="team-a")
    before = _stored()
    response = client.post(reverse(ADD), _form(**fields))
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert _stored() == before


def test_a_change_goes_through_the_same_checks(staff, client) -> None:
    repo = make_repository("web", scope="team-a")
    url = reverse("admin:proximity_repository_change", args=[repo.pk])
    refused = client.post(url, _form(base_branch="a b"))
    assert "base_branch" in refused.context["adminform"].form.errors
    assert client.post(url, _form(base_branch="trunk")).status_code == 302
    repo.refresh_from_db()
    assert repo.base_branch == "trunk"


def test_staff_set_and_clear_a_repository_s_parked_time(staff, client) -> None:
    """0: never parked; blank: the profile's (docs/DECISIONS.md, "A repository's parked time")."""
    repo = make_repository("web", scope="team-a")
    url = reverse("admin:proximity_repository_change", args=[repo.pk])
    assert client.post(url, _form(parked_hours="0")).status_code == 302
    repo.refresh_from_db()
    assert repo.parked_hours == 0
    assert client.post(url, _form(parked_hours="")).status_code == 302
    repo.refresh_from_db()
    assert repo.parked_hours is None


def test_staff_delete_a_repository_which_archives_it_with_their_name(staff, client) -> None:
    repo = make_repository("web", scope="team-a")
    Agent.objects.create(repository=repo, agent_id="a1")
    url = reverse("admin:proximity_repository_delete", args=[repo.pk])
    assert client.get(url).status_code == 200  # the confirmation needs no rights on its rows
    assert client.post(url, {"post": "yes"}).status_code == 302
    repo.refresh_from_db()
    assert (repo.archived_by, Agent.objects.count()) == ("boss", 1)
    assert repo.archived_at is not None


def test_staff_without_the_models_permissions_only_view(client) -> None:
    user = get_user_model().objects.create_user("viewer", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename="view_repository"))
    client.force_login(user)
    assert client.post(reverse(ADD), _form()).status_code == 403
    assert not Repository.objects.exists()
