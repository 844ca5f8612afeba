"""Registering and removing repositories: one validation for command, API and admin; staff only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proximity.exceptions import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from proximity.models import Agent, Repository, WorkingSetSnapshot
from proximity.services.repositories import repository_create, repository_remove
from proximity.services.watch import repository_watch_tick
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_caller, make_repository, make_staff_caller
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    repo = ScriptedRepo.create(tmp_path / "clone")
    repo.write("app/core.py", numbered(10))
    repo.commit("base")
    return repo.path()


def _stored() -> list[dict[str, Any]]:
    return list(Repository.objects.order_by("pk").values())


def test_a_repository_without_a_scope_is_scoped_by_its_name() -> None:
    repo = repository_create(principal=None, name="web")
    assert (repo.scope, repo.base_branch, repo.profile) == ("web", "main", "radar-v1-symbols")
    assert not repo.watch


def test_a_watched_repository_stores_the_top_of_its_working_tree(clone: Path) -> None:
    (clone / "app").mkdir(exist_ok=True)
    repo = repository_create(principal=None, name="web", path=str(clone / "app"), watch=True)
    assert Path(repo.path) == clone.resolve()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "has space"}, "name"),
        ({"name": "a/b"}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 121}, "name"),
        ({"scope": "team a"}, "scope"),
        ({"base_branch": "--upload-pack=evil"}, "baseBranch"),
        ({"base_branch": "main..dev"}, "baseBranch"),
        ({"base_branch": ""}, "baseBranch"),
        ({"profile": "radar-v9"}, "profile"),
        ({"webhook_url": "ftp://hooks.example/x"}, "webhookUrl"),
        ({"webhook_url": "not a url"}, "webhookUrl"),
        ({"watch": True}, "path"),
        ({"watch": True, "path": "/nonexistent/clone"}, "path"),
    ],
)
def test_bad_settings_name_the_field_and_store_nothing(fields: dict[str, Any], field: str) -> None:
    make_repository("existing", scope="team-a")
    before = _stored()
    with pytest.raises(InvalidInputError) as caught:
        repository_create(principal=None, **{"name": "web", **fields})
    assert caught.value.field == field
    assert _stored() == before


def test_a_watched_path_that_is_not_a_git_repository_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="not a git repository") as caught:
        repository_create(principal=None, name="web", path=str(tmp_path), watch=True)
    assert caught.value.field == "path"
    assert not Repository.objects.exists()


def test_a_taken_name_is_a_conflict_and_changes_nothing() -> None:
    make_repository("web", scope="team-a")
    before = _stored()
    with pytest.raises(ConflictError) as caught:
        repository_create(principal=None, name="web", scope="team-b")
    assert caught.value.field == "name"
    assert _stored() == before


@pytest.mark.parametrize("kind", ["human", "agent", "service"])
def test_only_a_principal_of_a_user_with_the_add_permission_may_register(kind: str) -> None:
    caller = make_caller("someone", scopes=["team-a"], kind=kind)
    with pytest.raises(ForbiddenError):
        repository_create(principal=caller.principal, name="web")
    assert not Repository.objects.exists()


def test_staff_may_register_a_repository_in_a_scope_they_do_not_hold() -> None:
    staff = make_staff_caller("boss", scopes=["team-a"])
    repo = repository_create(principal=staff.principal, name="onboarded", scope="team-z")
    assert repo.scope == "team-z"


def test_a_staff_user_turned_inactive_is_no_longer_staff() -> None:
    staff = make_staff_caller("boss", scopes=["team-a"])
    staff.principal.user.is_active = False
    staff.principal.user.save()
    with pytest.raises(ForbiddenError):
        repository_create(principal=staff.principal, name="web")


def test_removing_a_repository_archives_it_and_keeps_what_was_reported_into_it(
    partial: Any,
) -> None:
    make_repository("web", scope="team-a")
    report = WorkingSetReport("web", "a1", [file_entry("x.py", [[1, 4]])], [])
    working_set_report(principal=partial.principal, report=report)
    repository_remove(principal=None, name="web", by="ops")
    web = Repository.objects.get()
    assert web.archived_at is not None
    assert web.archived_by == "ops"
    assert Agent.objects.count() == WorkingSetSnapshot.objects.count() == 1


def test_staff_cannot_remove_a_repository_they_cannot_see() -> None:
    make_repository("vault", scope="team-b")
    staff = make_staff_caller("boss", scopes=["team-a"])
    with pytest.raises(NotFoundError) as hidden:
        repository_remove(principal=staff.principal, name="vault")
    with pytest.raises(NotFoundError) as missing:
        repository_remove(principal=staff.principal, name="nope")
    assert hidden.value.message == missing.value.message
    assert Repository.objects.filter(name="vault").exists()


def test_a_watch_tick_queued_before_a_removal_does_nothing(clone: Path) -> None:
    repo = repository_create(principal=None, name="web", path=str(clone), watch=True)
    pk = repo.pk
    repository_remove(principal=None, name="web")
    outcome = repository_watch_tick(repository_id=pk)
    assert (outcome.agents, outcome.problems) == (0, ("repository removed",))
