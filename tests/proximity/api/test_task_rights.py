"""Who may revise a task (its declarer, or a lead of its scope), and what each version records."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.models import OverlapAdvisory, OverlapRun, TaskRecord, TaskVersion
from tests.factories import make_caller

BODY = {
    "scope": "team-a",
    "objective": "Export invoices as a CSV file for the accountants",
    "deliverable": "a CSV download on the invoices page",
    "acceptance": ["test_invoice_csv passes"],
    "purpose": "implementation",  # declared on both sides, so a pair is an advisory (req. 77)
}


def _revision(previous: int = 1, **extra: Any) -> dict[str, Any]:
    return {**BODY, "deliverable": f"an XLSX download, take {previous}", **extra} | {
        "previousVersion": previous
    }


@pytest.fixture
def alice(db):
    return make_caller("alice", scopes=["team-a"], clearances=["internal"])


@pytest.fixture
def declared(alice, post_json):
    assert post_json("/api/tasks", {**BODY, "taskId": "T-1"}, alice).status_code == 201
    return TaskRecord.objects.get(task_id="T-1")


def _versions() -> list[tuple[int, str, dict[str, Any]]]:
    rows = TaskVersion.objects.select_related("declared_by").order_by("work_version")
    return [(v.work_version, v.declared_by.name, v.provenance) for v in rows]


@pytest.mark.django_db
def test_the_declarer_may_revise_and_each_version_names_its_writer(alice, declared, post_json):
    assert post_json("/api/tasks/T-1/versions", _revision(), alice).status_code == 201
    assert _versions() == [
        (1, "alice", {"declaredBy": "alice"}),
        (2, "alice", {"declaredBy": "alice", "revisedBy": "alice"}),
    ]


@pytest.mark.django_db
def test_a_lead_of_the_scope_may_revise_and_is_recorded_as_the_reviser(declared, post_json):
    tess = make_caller("tess", scopes=["team-a"], clearances=["internal"], lead_scopes=["team-a"])
    assert post_json("/api/tasks/T-1/versions", _revision(), tess).status_code == 201
    assert _versions()[1] == (2, "tess", {"declaredBy": "alice", "revisedBy": "tess"})
    declared.refresh_from_db()
    assert declared.declared_by.name == "alice"  # the owner stays the declarer


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scopes", "lead_scopes"),
    [(["team-a"], []), (["team-a", "team-b"], ["team-b"])],
    ids=["member-of-the-scope", "lead-of-another-scope"],
)
def test_a_viewer_that_is_neither_declarer_nor_lead_gets_403(
    declared, post_json, scopes, lead_scopes
):
    bob = make_caller("bob", scopes=scopes, lead_scopes=lead_scopes)
    refused = post_json("/api/tasks/T-1/versions", _revision(), bob)
    assert refused.status_code == 403
    assert "declared this task or a lead of its scope team-a" in refused.json()["detail"]
    assert TaskVersion.objects.count() == 1


@pytest.mark.django_db
def test_a_lead_that_cannot_see_the_task_gets_404_as_for_a_missing_one(alice, post_json):
    secret = {**BODY, "taskId": "T-1", "disclosure": ["internal"]}
    assert post_json("/api/tasks", secret, alice).status_code == 201
    # A lead of team-a without the 'internal' clearance: the task does not exist for it.
    clara = make_caller("clara", scopes=["team-a"], lead_scopes=["team-a"])
    hidden = post_json("/api/tasks/T-1/versions", _revision(), clara)
    missing = post_json("/api/tasks/T-404/versions", _revision(), clara)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()
    assert TaskVersion.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_revisions_candidate_pool_is_its_revisers_scopes(post_json, in_process_tasks):
    """The run of a version takes the pool of the principal that wrote that version."""
    alice = make_caller("alice", scopes=["team-a"])
    vera = make_caller("vera", scopes=["team-b"])
    tess = make_caller("tess", scopes=["team-a", "team-b"], lead_scopes=["team-a"])
    assert post_json("/api/tasks", {**BODY, "taskId": "T-1"}, alice).status_code == 201
    other = {**BODY, "scope": "team-b", "taskId": "V-1", "deliverable": "a CSV invoice export"}
    assert post_json("/api/tasks", other, vera).status_code == 201
    assert post_json("/api/tasks/T-1/versions", _revision(1), tess).status_code == 201
    assert post_json("/api/tasks/T-1/versions", _revision(2), alice).status_code == 201

    def run(version: int) -> OverlapRun:
        return OverlapRun.objects.get(query__record__task_id="T-1", query__work_version=version)

    # tess sees team-a and team-b: V-1 is in the pool of version 2; alice sees team-a only.
    assert [run(n).pool_size for n in (1, 2, 3)] == [1, 2, 1]
    paired = OverlapAdvisory.objects.filter(run=run(2)).values_list("version_b__record__task_id")
    assert list(paired) == [("V-1",)]
    assert not OverlapAdvisory.objects.filter(run=run(3)).exists()
