"""Hand-written bad input that fuzzing rarely reaches: each is a 4xx naming the field, and nothing
already stored changes (the stored rows are compared before and after, not just counted)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from proximity.models import Agent, Repository, TaskVersion, WorkingSetSnapshot
from tests.factories import file_entry, make_repository, working_set

pytestmark = pytest.mark.django_db


def _stored() -> list[tuple[Any, ...]]:
    snaps = WorkingSetSnapshot.objects.order_by("pk").values_list(
        "pk", "agent_id", "version", "files", "intent", "reported_at", "expires_at"
    )
    agents = Agent.objects.order_by("pk").values_list("pk", "agent_id", "last_report_at")
    repos = Repository.objects.order_by("pk").values_list("pk", "name", "scan_requested_at")
    return [*snaps, *agents, *repos]


@pytest.fixture
def stored(lead, post_json) -> list[tuple[Any, ...]]:
    make_repository("web", scope="team-a")
    body = working_set("web", "a1", [file_entry("src/core.py", [[1, 40]])])
    assert post_json("/api/working-sets", body, lead).status_code == 201
    return _stored()


def _good(**files_entry: Any) -> dict[str, Any]:
    return working_set("web", "a1", [{"path": "src/other.py", **files_entry}])


BAD_REPORTS = {
    "dotdot": (_good(path="src/../../etc/passwd"), "files[0].path", "'..'"),
    "dotdot_backslash": (_good(path="src\\..\\secret"), "files[0].path", "'..'"),
    "absolute": (_good(path="/etc/passwd"), "files[0].path", "relative"),
    "drive_letter": (_good(path="C:/Windows/win.ini"), "files[0].path", "relative"),
    "nul": (_good(path="src/a\x00.py"), "files[0].path", "control"),
    "newline": (_good(path="src/a\n.py"), "files[0].path", "control"),
    "escape": (_good(path="src/\x1b[31m.py"), "files[0].path", "control"),
    "empty_path": (_good(path=""), "files[0].path", "at least 1"),
    "start_after_end": (_good(lines=[[20, 10]]), "files[0].lines[0]", ""),
    "beyond_1e7": (_good(lines=[[1, 10_000_001]]), "files[0].lines[0][1]", "10000000"),
    "negative_line": (_good(lines=[[-1, 3]]), "files[0].lines[0][0]", "greater than"),
    "weight_above_one": (_good(weight=1.5), "files[0].weight", "less than"),
    "unknown_status": (_good(status="Z"), "files[0].status", ""),
    "unknown_field": ({**_good(), "priority": "high"}, "priority", "not permitted"),
    "unknown_nested_field": (_good(colour="red"), "files[0].colour", "not permitted"),
    "files_not_a_list": ({**_good(), "files": "src/a.py"}, "files", "list"),
    "agent_id_not_a_string": ({**_good(), "agentId": 7}, "agentId", "string"),
    "agent_id_with_space": ({**_good(), "agentId": "a 1"}, "agentId", "pattern"),
    "line_not_an_int": (_good(lines=[["one", 3]]), "files[0].lines[0][0]", "integer"),
    "naive_datetime": ({**_good(), "startedAt": "2026-01-01T00:00:00"}, "startedAt", "timezone"),
    "missing_files": ({"repository": "web", "agentId": "a1"}, "files", "required"),
    "hunk_id_not_hex": (
        _good(baseHunks=[[3, 1]], hunkIds=["<script>"]),
        "files[0].hunkIds[0]",
        "pattern",
    ),
    "hunk_ids_not_one_per_hunk": (
        _good(baseHunks=[[3, 1], [9, 0]], hunkIds=["a1" * 8]),
        "files[0].hunkIds",
        "one id per baseHunks entry",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_REPORTS))
def test_bad_report_is_422_naming_the_field_and_stores_nothing(case, stored, lead, post_json):
    body, field, words = BAD_REPORTS[case]
    response = post_json("/api/working-sets", body, lead)
    assert response.status_code == 422, response.content
    assert response.json()["field"] == field
    assert words.lower() in response.json()["detail"].lower()
    assert _stored() == stored


def test_duplicate_files_are_rejected_naming_the_second(stored, lead, post_json):
    body = working_set("web", "a1", [file_entry("src/x.py"), file_entry("src/x.py")])
    response = post_json("/api/working-sets", body, lead)
    assert response.status_code == 422
    assert response.json()["field"] == "files[1].path"
    assert "duplicate" in response.json()["detail"]
    assert _stored() == stored


def test_huge_body_is_413_before_parsing(stored, lead, client, settings):
    # Not JSON at all: were it parsed first, the answer would be a 422, not a 413.
    blob = b"{" + b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    response = client.post(
        "/api/working-sets", blob, content_type="application/json", **lead.headers
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "request body too large", "field": "body"}
    assert _stored() == stored


def test_deeply_nested_json_is_422_naming_the_body(stored, lead, client):
    depth = 100_000
    blob = '{"repository": "web", "agentId": "a1", "files": ' + "[" * depth + "]" * depth + "}"
    response = client.post(
        "/api/working-sets", blob, content_type="application/json", **lead.headers
    )
    assert response.status_code == 422
    assert response.json()["field"] == "body"
    assert _stored() == stored


def test_moderately_nested_json_is_422_naming_the_path(stored, lead, post_json):
    nested: Any = "src/a.py"
    for _ in range(50):
        nested = [nested]
    response = post_json("/api/working-sets", {**_good(), "files": [{"path": nested}]}, lead)
    assert response.status_code == 422
    assert response.json()["field"] == "files[0].path"
    assert _stored() == stored


def test_malformed_json_is_422_naming_the_body(stored, lead, client):
    response = client.post(
        "/api/working-sets", b'{"files": [', content_type="application/json", **lead.headers
    )
    assert response.status_code == 422
    assert response.json() == {"detail": "body: not valid JSON", "field": "body"}
    assert _stored() == stored


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("offset=-1", "offset"),
        ("since=yesterday", "since"),
    ],
)
def test_bad_advisory_filters_are_422_naming_the_parameter(stored, lead, client, query, field):
    response = client.get(f"/api/advisories?{query}", **lead.headers)
    assert response.status_code == 422
    assert response.json()["field"] == field


def test_an_advisory_id_beyond_bigint_is_a_4xx_not_a_503(stored, lead, client):
    response = client.get(f"/api/advisories/{10**30}", **lead.headers)
    assert 400 <= response.status_code < 500


def _task(**extra: Any) -> dict[str, Any]:
    return {
        "scope": "team-a",
        "objective": "Add retry with backoff to the webhook sender",
        "deliverable": "proximity/services/webhooks.py retries 5xx answers",
        "acceptance": ["a 503 is retried", "a 400 is not retried"],
        **extra,
    }


def test_a_task_version_that_goes_backwards_is_409_and_stores_nothing(lead, post_json):
    first = post_json("/api/tasks", _task(taskId="T-1"), lead)
    assert first.status_code == 201, first.content
    second = post_json("/api/tasks/T-1/versions", _task(previousVersion=1, purpose="v2"), lead)
    assert second.status_code == 201, second.content
    before = list(TaskVersion.objects.order_by("pk").values())
    back = post_json("/api/tasks/T-1/versions", _task(previousVersion=1, purpose="v1 again"), lead)
    assert back.status_code == 409
    assert back.json()["field"] == "previousVersion"
    zero = post_json("/api/tasks/T-1/versions", _task(previousVersion=0), lead)
    assert zero.status_code == 422
    assert zero.json()["field"] == "previousVersion"
    assert list(TaskVersion.objects.order_by("pk").values()) == before


def test_a_task_with_an_unknown_field_is_422_naming_it(lead, post_json):
    response = post_json("/api/tasks", _task(estimate="3d"), lead)
    assert response.status_code == 422
    assert response.json()["field"] == "estimate"
    assert not TaskVersion.objects.exists()


def test_a_json_array_body_is_422(stored, lead, client):
    response = client.post(
        "/api/working-sets", json.dumps([1, 2]), content_type="application/json", **lead.headers
    )
    assert response.status_code == 422
    assert _stored() == stored
