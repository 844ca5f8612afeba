"""Overlap runs never hang and never lie: failures keep their reason, retries are bounded, and a
failed or overdue run reads as degraded coverage on the API and the board (issue 15, point 5)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db.models import F
from django.utils import timezone

from proximity.models import OverlapRun, TaskVersion
from proximity.selectors.board import board_task_cards
from proximity.services.overlap_index import worker_indexes_clear
from proximity.services.overlap_runs import max_attempts, overlap_runs_sweep
from tests.factories import make_caller

pytestmark = pytest.mark.django_db(transaction=True)

TINY = {"scope": "payments", "objective": "a", "deliverable": "b", "acceptance": ["c"]}
PLAIN = {
    "scope": "payments",
    "objective": "Add refunds to the payment export",
    "deliverable": "refund endpoint",
    "acceptance": ["test_refund passes"],
    "purpose": "implementation",
}


@pytest.fixture
def lead() -> Any:
    return make_caller("payments-lead", scopes=["payments"])


def _run(task_id: str) -> OverlapRun:
    return OverlapRun.objects.get(query__record__task_id=task_id)


def _backoff_passes(run: OverlapRun) -> None:
    """The retry's backoff is over: its failure is an hour old (time moves, nothing is faked)."""
    OverlapRun.objects.filter(pk=run.pk).update(finished_at=F("finished_at") - timedelta(hours=1))


def _corrupt(task_id: str) -> None:
    """A stored row the engine cannot read (a plan sketch written around the API's validation),
    found by a worker that starts and reads every stored version."""
    TaskVersion.objects.filter(record__task_id=task_id).update(plan_sketch={"nodes": 5})
    worker_indexes_clear()


def test_a_tiny_vocabulary_task_is_stored_and_its_run_finishes(
    lead, post_json, client, in_process_tasks
) -> None:
    """Once a 500 after commit with the run stuck `running`: no token survives the tokenizer."""
    first = post_json("/api/tasks", {**TINY, "taskId": "T-tiny"}, lead)
    assert first.status_code == 201, first.content
    second = post_json("/api/tasks", {**TINY, "taskId": "T-tiny-2"}, lead)
    assert second.status_code == 201, second.content
    for task_id in ("T-tiny", "T-tiny-2"):
        run = client.get(f"/api/tasks/{task_id}/run", **lead.headers).json()
        assert (run["status"], run["coverage"]) == ("done", "hybrid-with-recorded-omissions")
    assert not OverlapRun.objects.exclude(status="done").exists()


def test_a_failed_run_keeps_its_reason_reads_degraded_and_the_sweep_retries_it(
    lead, post_json, client, in_process_tasks
) -> None:
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-1"}, lead).status_code == 201
    _corrupt("T-1")
    answer = post_json("/api/tasks", {**PLAIN, "taskId": "T-2", "objective": "Refunds"}, lead)
    assert answer.status_code == 201, answer.content
    run = _run("T-2")
    assert (run.status, run.attempts) == ("failed", 1)
    assert "plan_sketch.nodes must be a list" in run.error
    shown = client.get("/api/tasks/T-2/run", **lead.headers).json()
    assert (shown["status"], shown["coverage"]) == ("failed", "degraded-run-failed")
    _, cards, _ = board_task_cards(lead.principal)
    [card] = [c for c in cards if c.task_a == "T-2@1"]
    assert card.coverage == "degraded-run-failed"
    assert card.unknown_reason.startswith(f"overlap run failed (attempt 1 of {max_attempts()}")

    assert overlap_runs_sweep() == 0  # the backoff is not over: nothing is due yet
    TaskVersion.objects.filter(record__task_id="T-1").update(plan_sketch=None)  # repaired
    _backoff_passes(run)
    assert overlap_runs_sweep() == 1
    run.refresh_from_db()
    assert (run.status, run.attempts, run.error) == ("done", 2, "")
    shown = client.get("/api/tasks/T-2/run", **lead.headers).json()
    assert shown["coverage"] == "hybrid-with-recorded-omissions"
    cards = board_task_cards(lead.principal)[1]
    assert not [c for c in cards if c.unknown_reason.startswith("overlap run")]
    assert [c.task_b for c in cards if c.task_a == "T-2@1"] == ["T-1@1"]  # its advisory instead


def test_retries_stop_at_the_cap_and_the_run_stays_failed_and_degraded(
    lead, post_json, client, in_process_tasks
) -> None:
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-1"}, lead).status_code == 201
    _corrupt("T-1")
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-2"}, lead).status_code == 201
    run = _run("T-2")
    for attempt in range(2, max_attempts() + 1):
        _backoff_passes(run)
        assert overlap_runs_sweep() == 1
        run.refresh_from_db()
        assert (run.status, run.attempts) == ("failed", attempt)
    _backoff_passes(run)
    assert overlap_runs_sweep() == 0  # out of attempts: no more retries, and no hang either
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("failed", max_attempts())
    shown = client.get("/api/tasks/T-2/run", **lead.headers).json()
    assert shown["coverage"] == "degraded-run-failed"
    [card] = [c for c in board_task_cards(lead.principal)[1] if c.task_a == "T-2@1"]
    assert "given up" in card.unknown_reason


def test_a_run_a_dead_worker_left_running_reads_stale_and_is_reclaimed(
    lead, post_json, client, in_process_tasks
) -> None:
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-1"}, lead).status_code == 201
    run = _run("T-1")
    long_ago = timezone.now() - timedelta(hours=1)
    OverlapRun.objects.filter(pk=run.pk).update(
        status="running", started_at=long_ago, finished_at=None, coverage=""
    )
    shown = client.get("/api/tasks/T-1/run", **lead.headers).json()
    assert (shown["status"], shown["coverage"]) == ("running", "degraded-run-stale")
    [card] = [c for c in board_task_cards(lead.principal)[1] if c.task_a == "T-1@1"]
    assert card.coverage == "degraded-run-stale"
    assert overlap_runs_sweep() == 1
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("done", 2)


def test_a_run_that_keeps_killing_its_worker_is_failed_at_the_cap(
    lead, post_json, client, in_process_tasks
) -> None:
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-1"}, lead).status_code == 201
    run = _run("T-1")
    OverlapRun.objects.filter(pk=run.pk).update(
        status="running", started_at=timezone.now() - timedelta(hours=1), attempts=max_attempts()
    )
    assert overlap_runs_sweep() == 0
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error.startswith("abandoned: no result within the visibility timeout")
    shown = client.get("/api/tasks/T-1/run", **lead.headers).json()
    assert shown["coverage"] == "degraded-run-failed"


def test_a_version_whose_run_was_never_requested_gets_one_from_the_sweep(
    lead, post_json, client, in_process_tasks
) -> None:
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-1"}, lead).status_code == 201
    OverlapRun.objects.all().delete()  # the request after commit failed (the database blinked)
    assert client.get("/api/tasks/T-1/run", **lead.headers).status_code == 404
    overlap_runs_sweep()
    assert _run("T-1").status == "done"


def test_a_pending_run_long_overdue_reads_stale(lead, post_json, client, in_process_tasks) -> None:
    assert post_json("/api/tasks", {**PLAIN, "taskId": "T-1"}, lead).status_code == 201
    OverlapRun.objects.update(
        status="pending", requested_at=timezone.now() - timedelta(hours=1), attempts=0
    )
    shown = client.get("/api/tasks/T-1/run", **lead.headers).json()
    assert shown["coverage"] == "degraded-run-stale"
    OverlapRun.objects.update(requested_at=timezone.now())
    shown = client.get("/api/tasks/T-1/run", **lead.headers).json()
    assert shown["coverage"] == "pending"
