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
