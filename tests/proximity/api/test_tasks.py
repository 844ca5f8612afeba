"""Task declarations over the API: versions, overlap runs on the six constructed fixtures, scope."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proximity.models import OverlapAdvisory, OverlapRun, TaskVersion

pytestmark = pytest.mark.django_db(transaction=True)
CORPUS = (
    Path(__file__).resolve().parents[3] / "proximity" / "fixtures" / "task_overlap_corpus.jsonl"
)
FIELDS = (
    "scope",
    "disclosure",
    "objective",
    "deliverable",
    "acceptance",
    "dependencies",
    "purpose",
    "planFacts",
    "planSketch",
)


def _body(record: dict[str, Any]) -> dict[str, Any]:
    body = {k: record[k] for k in FIELDS if record.get(k) is not None}
    body["owner"] = record["provenance"]["owner"]
    return body


@pytest.fixture
def payments_lead():
    from tests.factories import make_caller

    return make_caller("payments-lead", scopes=["payments"], clearances=["internal"])


@pytest.fixture
def corpus() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines()]


def _declare_all(corpus, post_json, caller) -> None:
    queries = {tuple(pair["expectedPipeline"]["query"]) for pair in corpus}
    records = [r for pair in corpus for r in pair["records"]]
    ordered = sorted(
        records,
        key=lambda r: ((r["taskId"], r["workVersion"]) in queries, r["taskId"], r["workVersion"]),
    )
    for record in ordered:
        if record["workVersion"] == 1:
            body = {**_body(record), "taskId": record["taskId"]}
            response = post_json("/api/tasks", body, caller)
        else:
            body = {**_body(record), "previousVersion": record["workVersion"] - 1}
            response = post_json(f"/api/tasks/{record['taskId']}/versions", body, caller)
        assert response.status_code == 201, response.json()


def _advisories_for(task_id: str) -> list[OverlapAdvisory]:
    run = OverlapRun.objects.get(query__record__task_id=task_id, query__work_version=1)
    return list(run.advisories.select_related("version_b__record"))


def test_six_constructed_fixtures_through_the_pipeline(
    corpus, payments_lead, post_json, in_process_tasks
) -> None:
    """Requirements 6, 7, 12, 29, 55: each fixture gives its expected pipeline outcome."""
    _declare_all(corpus, post_json, payments_lead)
    outcomes = [pair["expectedPipeline"]["outcome"] for pair in corpus]
    assert (len(outcomes), outcomes.count("superseded-excluded")) == (6, 1)
    for pair in corpus:
        expected = pair["expectedPipeline"]
        query_id, _ = expected["query"]
        other_id, _ = next(ref for ref in pair["pair"] if ref[0] != query_id)
        found = [a for a in _advisories_for(query_id) if a.version_b.record.task_id == other_id]
        assert all(a.status == "needs-independent-adjudication" for a in found)
        if expected["outcome"] == "advisory":
            assert found, pair["pairId"]
            features = {f["name"]: f for f in found[0].features}
            for evidence in expected["evidence"]:
                name, _, value = evidence.partition("=")
                assert str(features[name]["value"]).lower() == value.lower(), (pair["pairId"], name)
        if expected["outcome"] == "superseded-excluded":
            # exactly one advisory, against the current version 2; never one against version 1
            assert [a.version_b.work_version for a in found] == [2], pair["pairId"]
    assert OverlapRun.objects.exclude(status="done").count() == 0
    assert set(OverlapRun.objects.values_list("coverage", flat=True)) == {
        "hybrid-with-recorded-omissions"
    }


def test_revision_is_a_new_version_and_never_an_overwrite(payments_lead, post_json, client):
    """Requirement 1: old versions are never rewritten; a stale previousVersion is refused."""
    body = {
        "taskId": "T-1",
        "scope": "payments",
        "objective": "Add refunds",
        "deliverable": "refund endpoint",
        "acceptance": ["test_refund passes"],
    }
    assert post_json("/api/tasks", body, payments_lead).status_code == 201
    revised = {**body, "deliverable": "refund endpoint with audit log", "previousVersion": 1}
    revised.pop("taskId")
    assert post_json("/api/tasks/T-1/versions", revised, payments_lead).status_code == 201
    stale = post_json("/api/tasks/T-1/versions", {**revised, "objective": "x"}, payments_lead)
    assert stale.status_code == 409
    assert stale.json()["field"] == "previousVersion"
    backwards = post_json(
        "/api/tasks/T-1/versions", {**revised, "previousVersion": 0}, payments_lead
    )
    assert backwards.status_code == 422
    assert backwards.json()["field"] == "previousVersion"
    unchanged = post_json(
        "/api/tasks/T-1/versions", {**revised, "previousVersion": 2}, payments_lead
    )
    assert unchanged.status_code == 422
    versions = client.get("/api/tasks/T-1", **payments_lead.headers).json()
    assert [(v["workVersion"], v["current"], v["deliverable"]) for v in versions] == [
        (1, False, "refund endpoint"),
        (2, True, "refund endpoint with audit log"),
    ]
    assert TaskVersion.objects.get(work_version=1).deliverable == "refund endpoint"


def test_a_task_id_holding_a_slash_is_read_revised_and_its_run_read(
    payments_lead, post_json, client
) -> None:
    """An agent's hook declares ``<agent id>.<session>``, and agent ids are often branch names:
    such an id had Django's HTML 404 on every task route (found by the schemathesis run)."""
    from urllib.parse import quote

    task_id = "feature/login.session-1"
    body = {"scope": "payments", "objective": "o", "deliverable": "d", "acceptance": ["a"]}
    assert post_json("/api/tasks", {**body, "taskId": task_id}, payments_lead).status_code == 201
    for path in (quote(task_id, safe=""), task_id):  # as radar's client sends it, and raw
        read = client.get(f"/api/tasks/{path}", **payments_lead.headers)
        assert read.status_code == 200, read.content
        assert [v["taskId"] for v in read.json()] == [task_id]
        run = client.get(f"/api/tasks/{path}/run", **payments_lead.headers)
        assert run.status_code == 200, run.content
        assert run.json()["taskId"] == task_id
    revised = {**body, "objective": "changed", "previousVersion": 1}
    answer = post_json(f"/api/tasks/{quote(task_id, safe='')}/versions", revised, payments_lead)
    assert answer.status_code == 201, answer.content
    assert (answer.json()["taskId"], answer.json()["workVersion"]) == (task_id, 2)
    missing = client.get("/api/tasks/feature/other", **payments_lead.headers)
    assert (missing.status_code, missing.json()["detail"]) == (404, "task not found")


def test_tasks_outside_scope_are_invisible_and_cannot_be_declared(
    payments_lead, outsider, post_json, client
) -> None:
    """Requirements 9, 10: out-of-scope records are missing, and nobody writes into a scope."""
    body = {
        "taskId": "T-9",
        "scope": "payments",
        "disclosure": ["internal"],
        "objective": "o",
        "deliverable": "d",
        "acceptance": ["a"],
    }
    assert post_json("/api/tasks", body, payments_lead).status_code == 201
    assert client.get("/api/tasks/T-9", **outsider.headers).status_code == 404
    assert (
        client.get("/api/tasks/T-404", **outsider.headers).json()
        == client.get("/api/tasks/T-9", **outsider.headers).json()
    )
    refused = post_json("/api/tasks", {**body, "taskId": "T-10"}, outsider)
    assert refused.status_code == 422
    assert refused.json()["field"] == "scope"
    revise = {k: v for k, v in body.items() if k != "taskId"} | {
        "previousVersion": 1,
        "objective": "changed",
    }
    assert post_json("/api/tasks/T-9/versions", revise, outsider).status_code == 422


def test_dense_outage_degrades_to_lexical_only_with_a_repair_record(
    tmp_path, payments_lead, post_json, client, in_process_tasks
) -> None:
    """Requirements 23, 31: degraded mode names `python manage.py doctor` and never runs it.

    The records were embedded while the model worked; the model then fails to load, so the
    dense ranker is unavailable while the query still has its space.
    """
    from django.test import override_settings

    from proximity.models import RepairRecord
    from proximity.services.overlap_runs import ACTIVE_POLICY, overlap_run_execute
    from proximity.services.task_records import embedder

    for task_id in ("D-1", "D-2"):
        body = {
            "taskId": task_id,
            "scope": "payments",
            "objective": "Fix login timeout",
            "deliverable": "login works after 30 s idle",
            "acceptance": ["test_idle"],
            "purpose": "implementation",
        }
        assert post_json("/api/tasks", body, payments_lead).status_code == 201
    query = TaskVersion.objects.get(record__task_id="D-2")
    OverlapRun.objects.filter(query=query).delete()
    embedder.cache_clear()
    try:
        with override_settings(OVERLAP_EMBEDDING_MODEL_DIR=str(tmp_path)):
            overlap_run_execute(version_id=query.pk, policy_digest=ACTIVE_POLICY.digest)
    finally:
        embedder.cache_clear()
    run = client.get("/api/tasks/D-2/run", **payments_lead.headers).json()
    assert run["coverage"] == "degraded-lexical-only"
    assert run["repairs"][0]["route"] == "python manage.py doctor"
    assert RepairRecord.objects.filter(kind="dense-retrieval-unavailable").exists()
    advisories = client.get("/api/overlap-advisories?task=D-2", **payments_lead.headers).json()
    assert advisories[0]["taskB"] == "D-1"
    assert advisories[0]["coverage"] == "degraded-lexical-only"


@pytest.mark.integration
def test_a_declared_task_is_run_by_a_real_worker(payments_lead, post_json, client, celery_worker):
    import time

    for task_id, deliverable in (
        ("W-1", "CSV export of invoices"),
        ("W-2", "Export invoices as a CSV file"),
    ):
        body = {
            "taskId": task_id,
            "scope": "payments",
            "objective": "Invoice export",
            "deliverable": deliverable,
            "acceptance": ["export test passes"],
            "purpose": "implementation",
        }
        assert post_json("/api/tasks", body, payments_lead).status_code == 201
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and OverlapRun.objects.filter(status="done").count() < 2:
        time.sleep(0.1)
    runs = sorted(OverlapRun.objects.values_list("status", "coverage"))
    assert runs == [("done", "hybrid-with-recorded-omissions")] * 2
    listed = client.get("/api/overlap-advisories?task=W-2", **payments_lead.headers).json()
    # W-1's run may see W-2 too if the worker ran it after W-2 was declared: both are right.
    advisories = [a for a in listed if a["taskA"] == "W-2"]
    assert [(a["taskB"], a["status"]) for a in advisories] == [
        ("W-1", "needs-independent-adjudication")
    ]
    detail = client.get(
        f"/api/overlap-advisories/{advisories[0]['id']}", **payments_lead.headers
    ).json()
    assert detail["current"] is True
    revise = {
        "scope": "payments",
        "objective": "Invoice export",
        "deliverable": "XLSX export",
        "acceptance": ["export test passes"],
        "purpose": "implementation",
        "previousVersion": 1,
    }
    assert post_json("/api/tasks/W-1/versions", revise, payments_lead).status_code == 201
    stale = client.get(f"/api/overlap-advisories/{advisories[0]['id']}", **payments_lead.headers)
    assert stale.json()["current"] is False  # requirement 30: superseded side makes it stale


def test_a_plan_sketch_without_work_version_is_the_plan_of_the_version_written(
    payments_lead, post_json, client
):
    """The schema makes planSketch.workVersion optional: absent, it is the version being written
    (was a 422 "invalid literal for int()" for a body the schema accepts)."""
    sketch = {"nodes": [{"id": "n1", "actionType": "edit", "target": "billing/invoice.py"}]}
    body = {
        "taskId": "P-1",
        "scope": "payments",
        "objective": "Fix invoice rounding",
        "deliverable": "invoices round half even",
        "acceptance": ["test_rounding passes"],
        "planSketch": sketch,
    }
    assert post_json("/api/tasks", body, payments_lead).status_code == 201
    revised = {k: v for k, v in body.items() if k != "taskId"}
    revised |= {"previousVersion": 1, "planSketch": {**sketch, "workVersion": None}}
    revised["deliverable"] = "invoices round half even, with a test per currency"
    assert post_json("/api/tasks/P-1/versions", revised, payments_lead).status_code == 201
    versions = client.get("/api/tasks/P-1", **payments_lead.headers).json()
    assert [v["planSketch"]["workVersion"] for v in versions] == [1, 2]
    bad = post_json("/api/tasks", {**body, "taskId": "P-2", "planSketch": {"workVersion": "x"}},
                    payments_lead)  # fmt: skip
    assert bad.status_code == 422
    assert not TaskVersion.objects.filter(record__task_id="P-2").exists()
