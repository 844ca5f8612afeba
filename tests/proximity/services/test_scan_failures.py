"""Issue 16 (2): no stuck scans, no false "ok", bounded retries, re-scoring with time alone."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from proximity.models import Agent, ProximityScan, Repository, WorkingSetSnapshot
from proximity.selectors.board import board_scene
from proximity.services.scan_requests import scan_requests_sweep
from proximity.services.scans import scan_retry_backoff, scan_run
from tests.factories import file_entry, make_repository

pytestmark = pytest.mark.django_db

HOUR = 3600  # one time bucket covers a whole test, unless the test is about buckets
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=timezone.get_current_timezone())


def _snapshot(repo: Repository, agent_id: str, lines: list[list[int]], at: datetime) -> None:
    agent, _ = Agent.objects.get_or_create(repository=repo, agent_id=agent_id)
    version = agent.snapshots.count() + 1
    WorkingSetSnapshot.objects.create(
        agent=agent,
        version=version,
        files=[file_entry("src/app.py", lines)],
        content_hash=f"{agent_id}-{version}",
        reported_at=at,
        expires_at=at + timedelta(hours=6),
    )


@pytest.fixture
def crossing() -> Repository:
    repo = make_repository("web", scope="team-a")
    _snapshot(repo, "a1", [[1, 40]], T0)
    _snapshot(repo, "a2", [[10, 20]], T0)
    return repo


@pytest.fixture
def broken(crossing: Repository) -> Repository:
    # A line number past any C long: the engine's numpy arrays overflow (not an input error).
    _snapshot(crossing, "a3", [[1, 10**30]], T0)
    return crossing


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR)
def test_an_unexpected_engine_error_marks_the_scan_failed_with_its_reason(broken) -> None:
    row = scan_run(repository_id=broken.pk, now=T0)
    assert row is not None
    stored = ProximityScan.objects.get(pk=row.pk)
    assert stored.status == "failed"
    assert stored.error.startswith("OverflowError: ")
    assert stored.finished_at == T0


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR, OVERLAP_SCAN_MAX_ATTEMPTS=3)
def test_a_failing_scan_is_tried_at_most_max_attempts_times(broken) -> None:
    at = T0
    for attempt in range(1, 4):
        assert scan_run(repository_id=broken.pk, now=at) is not None
        row = ProximityScan.objects.get()
        assert (row.status, row.attempts) == ("failed", attempt)
        # Within the backoff (or once out of attempts) a retry is not claimed: nothing runs.
        scan_run(repository_id=broken.pk, now=at + timedelta(seconds=1))
        assert ProximityScan.objects.get().attempts == attempt
        at += scan_retry_backoff(attempt)
    broken.refresh_from_db()
    assert broken.scan_requested_at is None  # given up: the sweep stops enqueuing it
    assert scan_run(repository_id=broken.pk, now=at + timedelta(minutes=5)).attempts == 3
    assert ProximityScan.objects.get().attempts == 3


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR)
def test_a_failed_retry_defers_the_request_past_its_backoff(broken) -> None:
    broken.scan_requested_at = T0
    broken.save(update_fields=["scan_requested_at"])
    scan_run(repository_id=broken.pk, now=T0)
    broken.refresh_from_db()
    assert broken.scan_requested_at == T0 + scan_retry_backoff(1)


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR)
def test_a_scan_left_running_past_the_visibility_timeout_is_reclaimed_by_the_sweep(
    crossing,
) -> None:
    scan_run(repository_id=crossing.pk, now=T0)
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    # A worker claimed the newer inputs, then died: the row stays running with no result.
    _snapshot(crossing, "a2", [[1, 30]], T0)
    started = T0 + timedelta(seconds=1)
    abandoned = ProximityScan.objects.create(
        repository=crossing,
        input_hash=_hash(crossing, started),
        profile=crossing.profile,
        scorer_version=ProximityScan.objects.get().scorer_version,
        status="running",
        attempts=1,
        started_at=started,
        requested_at=started,
    )
    later = started + timedelta(seconds=timeout + 1)
    assert scan_requests_sweep(now=later) >= 1
    abandoned.refresh_from_db()
    assert abandoned.status == "pending"
    crossing.refresh_from_db()
    assert crossing.scan_requested_at is not None  # the sweep enqueued it, and the outbox says so
    row = scan_run(repository_id=crossing.pk, now=later)
    assert row is not None
    assert row.pk == abandoned.pk
    abandoned.refresh_from_db()
    assert (abandoned.status, abandoned.attempts) == ("done", 2)


def _hash(repo: Repository, now: datetime) -> str:
    from proximity.selectors.airspace import airspace_inputs

    return airspace_inputs(repo, now=now).input_hash


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR)
def test_a_scan_out_of_attempts_left_running_is_failed_by_the_sweep(crossing) -> None:
    stale = T0 - timedelta(hours=2)
    ProximityScan.objects.create(
        repository=crossing,
        input_hash="x",
        profile=crossing.profile,
        scorer_version="v",
        status="running",
        attempts=settings.OVERLAP_SCAN_MAX_ATTEMPTS,
        started_at=stale,
        requested_at=stale,
    )
    scan_requests_sweep(now=T0)
    row = ProximityScan.objects.get(input_hash="x")
    assert row.status == "failed"
    assert "abandoned" in row.error


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=300)  # the default; the clock is pinned
def test_two_scans_of_the_same_snapshots_in_different_time_buckets_are_different_rows(
    crossing,
) -> None:
    bucket = settings.OVERLAP_SCAN_RESCORE_SECONDS
    first = scan_run(repository_id=crossing.pk, now=T0)
    again = scan_run(repository_id=crossing.pk, now=T0 + timedelta(seconds=1))
    later = scan_run(repository_id=crossing.pk, now=T0 + timedelta(seconds=bucket))
    assert first is not None
    assert again is not None
    assert later is not None
    assert again.pk == first.pk
    assert later.pk != first.pk
    assert later.snapshot_ids == first.snapshot_ids
    assert ProximityScan.objects.filter(status="done").count() == 2


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=300)  # the default; the clock is pinned
def test_the_sweep_requests_a_rescore_of_live_repositories_with_no_recent_scan(crossing) -> None:
    bucket = settings.OVERLAP_SCAN_RESCORE_SECONDS
    idle = make_repository("idle", scope="team-a")  # no agents: nothing to re-score
    scan_run(repository_id=crossing.pk, now=T0)
    scan_requests_sweep(now=T0 + timedelta(seconds=bucket // 2))
    crossing.refresh_from_db()
    assert crossing.scan_requested_at is None  # scanned within the bucket
    due = T0 + timedelta(seconds=bucket + 1)
    scan_requests_sweep(now=due)
    crossing.refresh_from_db()
    idle.refresh_from_db()
    assert crossing.scan_requested_at == due
    assert idle.scan_requested_at is None


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR)
def test_the_board_reads_a_failed_latest_scan_as_degraded(lead) -> None:
    crossing = make_repository("web", scope="team-a")
    now = timezone.now()
    _snapshot(crossing, "a1", [[1, 40]], now)
    _snapshot(crossing, "a2", [[10, 20]], now)
    scan_run(repository_id=crossing.pk, now=now)
    assert board_scene(lead.principal, "web").coverage.status == "ok"
    _snapshot(crossing, "a3", [[1, 10**30]], now)
    assert scan_run(repository_id=crossing.pk, now=now + timedelta(seconds=1)).status == "failed"
    coverage = board_scene(lead.principal, "web").coverage
    assert coverage.status == "degraded"
    assert "OverflowError" in coverage.message


@override_settings(OVERLAP_SCAN_RESCORE_SECONDS=HOUR)
def test_the_board_reads_a_scan_far_behind_the_newest_report_as_degraded(lead) -> None:
    crossing = make_repository("web", scope="team-a")
    now = timezone.now()
    _snapshot(crossing, "a1", [[1, 40]], now - timedelta(minutes=30))
    _snapshot(crossing, "a2", [[10, 20]], now - timedelta(minutes=30))
    scan_run(repository_id=crossing.pk, now=now - timedelta(minutes=30))
    _snapshot(crossing, "a2", [[10, 25]], now)  # reported, never scanned
    coverage = board_scene(lead.principal, "web").coverage
    assert coverage.status == "degraded"
    assert "older than the newest report" in coverage.message
