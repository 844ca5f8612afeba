"""Task ids are namespaced per scope: declaring, reading, listing and revising by (scope, id)."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.models import OverlapAdvisory, TaskRecord, TaskVersion
from tests.factories import make_caller
from tests.proximity.admin.factories import make_pair, make_version

pytestmark = pytest.mark.django_db


def _task(task_id: str | None, scope: str, **extra: Any) -> dict[str, Any]:
    body = {
        "scope": scope,
        "objective": "Export invoices as a CSV file for the accountants",
        "deliverable": "a CSV download on the invoices page",
        "acceptance": ["test_invoice_csv passes"],
        **extra,
    }
    return {"taskId": task_id, **body} if task_id else body


def _revision(scope: str, previous: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        **_task(None, scope, deliverable="an XLSX download", **extra),
        "previousVersion": previous,
    }


@pytest.fixture
def alice():
    return make_caller("alice", scopes=["team-a"], clearances=["internal"])


@pytest.fixture
def vera():
    return make_caller("vera", scopes=["team-b"])


@pytest.fixture
def both():
    return make_caller("both", scopes=["team-a", "team-b"], clearances=["internal"])


def _without(answer: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k not in keys}


def test_an_id_used_only_in_a_hidden_scope_answers_as_an_unused_one(alice, vera, post_json):
    assert post_json("/api/tasks", _task("T-1", "team-b"), vera).status_code == 201
    reused = post_json("/api/tasks", _task("T-1", "team-a"), alice)
    unused = post_json("/api/tasks", _task("T-NEW", "team-a"), alice)
    assert reused.status_code == unused.status_code == 201
    assert _without(reused.json(), "taskId", "createdAt") == _without(
        unused.json(), "taskId", "createdAt"
    )
    records = TaskRecord.objects.filter(task_id="T-1").order_by("scope")
    assert [(r.scope, r.declared_by.name) for r in records] == [
        ("team-a", "alice"),
        ("team-b", "vera"),
    ]


def test_an_id_used_in_the_same_scope_is_a_409_naming_task_id(alice, post_json):
    assert post_json("/api/tasks", _task("T-1", "team-a"), alice).status_code == 201
    again = post_json("/api/tasks", _task("T-1", "team-a", objective="other"), alice)
    assert again.status_code == 409
    assert again.json()["field"] == "taskId"
    assert TaskVersion.objects.filter(record__task_id="T-1").count() == 1


def test_each_viewer_reads_the_task_of_its_own_scope(alice, vera, client, post_json):
    post_json("/api/tasks", _task("T-1", "team-b", objective="Cache currency rates"), vera)
    post_json("/api/tasks", _task("T-1", "team-a"), alice)
    for caller, scope in ((alice, "team-a"), (vera, "team-b")):
        versions = client.get("/api/tasks/T-1", **caller.headers).json()
        assert [(v["scope"], v["workVersion"]) for v in versions] == [(scope, 1)]


def test_an_id_visible_in_two_scopes_needs_the_scope(alice, vera, both, client, post_json):
    post_json("/api/tasks", _task("T-1", "team-b", objective="Cache currency rates"), vera)
    post_json("/api/tasks", _task("T-1", "team-a"), alice)
    for path in ("/api/tasks/T-1", "/api/tasks/T-1/run"):
        ambiguous = client.get(path, **both.headers)
        assert ambiguous.status_code == 409, path
        assert ambiguous.json()["field"] == "scope"
        assert "team-a, team-b" in ambiguous.json()["detail"]
    chosen = client.get("/api/tasks/T-1", {"scope": "team-b"}, **both.headers).json()
    assert [v["objective"] for v in chosen] == ["Cache currency rates"]
    # A scope the viewer does not hold answers as a missing task, whether the id is used or not.
    hidden = client.get("/api/tasks/T-1", {"scope": "team-c"}, **both.headers)
    missing = client.get("/api/tasks/T-404", {"scope": "team-c"}, **both.headers)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()
    # For a viewer of one scope there is no ambiguity and no scope to name.
    assert client.get("/api/tasks/T-1", **alice.headers).status_code == 200


def test_advisories_name_each_sides_scope_and_filter_by_it(alice, vera, both, client):
    a1 = make_version("T-1", alice.principal, scope="team-a")
    b1 = make_version("T-1", vera.principal, scope="team-b")
    in_a = make_pair(make_version("T-2", alice.principal, scope="team-a"), a1)
    in_b = make_pair(make_version("T-3", vera.principal, scope="team-b"), b1)
    OverlapAdvisory.objects.update(features=[])  # the factory's are not the API's shape

    def listed(caller, **params):
        answer = client.get("/api/overlap-advisories", {"task": "T-1", **params}, **caller.headers)
        return {(a["id"], a["taskB"], a["scopeB"]) for a in answer.json()}

    assert listed(both) == {(in_a.pk, "T-1", "team-a"), (in_b.pk, "T-1", "team-b")}
    assert listed(both, scope="team-b") == {(in_b.pk, "T-1", "team-b")}
    assert listed(alice) == {(in_a.pk, "T-1", "team-a")}
    detail = client.get(f"/api/overlap-advisories/{in_b.pk}", **both.headers).json()
    assert (detail["taskA"], detail["scopeA"], detail["scopeB"]) == ("T-3", "team-b", "team-b")


def test_a_revision_never_moves_a_task_to_another_scope(both, post_json):
    assert post_json("/api/tasks", _task("T-1", "team-a"), both).status_code == 201
    moved = post_json("/api/tasks/T-1/versions", _revision("team-b"), both)
    assert moved.status_code == 422
    assert moved.json()["field"] == "scope"
    assert "team-a" in moved.json()["detail"]
    assert TaskVersion.objects.filter(record__task_id="T-1").count() == 1


def test_a_revision_revises_the_task_of_its_scope(alice, vera, both, post_json):
    post_json("/api/tasks", _task("T-1", "team-b"), vera)
    post_json("/api/tasks", _task("T-1", "team-a"), alice)
    assert post_json("/api/tasks/T-1/versions", _revision("team-b"), vera).status_code == 201
    versions = {
        (v.record.scope, v.work_version, v.superseded_at is None)
        for v in TaskVersion.objects.select_related("record")
    }
    assert versions == {("team-a", 1, True), ("team-b", 1, False), ("team-b", 2, True)}


@pytest.mark.django_db(transaction=True)
def test_a_run_tells_apart_two_tasks_of_one_id(alice, vera, post_json, in_process_tasks):
    purpose = {"purpose": "implementation"}
    assert post_json("/api/tasks", _task("T-1", "team-a", **purpose), alice).status_code == 201
    elsewhere = _task("T-1", "team-b", objective="Cache currency rates nightly", **purpose)
    assert post_json("/api/tasks", elsewhere, vera).status_code == 201
    assert post_json("/api/tasks", _task("T-2", "team-a", **purpose), alice).status_code == 201
    run = TaskVersion.objects.get(record__task_id="T-2").runs.get()
    assert run.status == "done", run.error
    assert [
        (a.version_b.record.task_id, a.version_b.record.scope) for a in run.advisories.all()
    ] == [("T-1", "team-a")]


@pytest.mark.django_db(transaction=True)
def test_a_viewer_of_both_scopes_gets_both_tasks_of_one_id_compared(
    both, post_json, in_process_tasks
):
    """One pool holding T-1 of team-a and T-1 of team-b: neither is taken for the other, nor for
    the asking task itself, and each advisory names its own."""
    purpose = {"purpose": "implementation"}
    same = {"objective": "Cache currency conversion rates for the nightly report", **purpose}
    assert post_json("/api/tasks", _task("T-1", "team-a", **same), both).status_code == 201
    assert post_json("/api/tasks", _task("T-1", "team-b", **same), both).status_code == 201
    assert post_json("/api/tasks", _task("T-2", "team-a", **same), both).status_code == 201
    run = TaskVersion.objects.get(record__task_id="T-2").runs.get()
    assert run.status == "done", run.error
    compared = {
        (a.version_b.record.task_id, a.version_b.record.scope) for a in run.advisories.all()
    }
    assert compared == {("T-1", "team-a"), ("T-1", "team-b")}
