"""Celery tasks: thin, named, idempotent wrappers over services.

Every task takes ids, not objects, and its service is idempotent by database constraint and
conditional claim, so a redelivered task (``acks_late``; a killed worker) duplicates nothing.
"""

from __future__ import annotations

import socket
from typing import Any

import requests
from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from proximity.services.heartbeat import heartbeat_record
from proximity.services.lifecycle import snapshots_expire
from proximity.services.merge_checks import merge_check_run
from proximity.services.overlap_runs import overlap_run_execute, overlap_runs_sweep
from proximity.services.scan_requests import scan_requests_sweep
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick, watch_claim, watch_release
from proximity.services.webhooks import WebhookDeliveryError, message_webhook_deliver

__all__ = [
    "deliver_webhook",
    "expire_stale",
    "merge_check",
    "record_heartbeat",
    "run_overlap_for_version",
    "scan_repository",
    "sweep_overlap_runs",
    "sweep_scan_requests",
    "watch_repositories",
    "watch_repository",
]

RETRY = {"autoretry_for": (OperationalError,), "retry_backoff": True, "max_retries": 5}


@shared_task(bind=True, name="proximity.record_heartbeat", max_retries=3)
def record_heartbeat(self: Any, hostname: str | None = None) -> None:
    # Idempotent: the row is keyed by hostname and only moves forward in time.
    heartbeat_record(hostname=hostname or self.request.hostname or socket.gethostname())


@shared_task(bind=True, name="proximity.scan_repository", acks_late=True, **RETRY)
def scan_repository(self: Any, repository_id: int) -> int | None:
    # A failed scan is recorded on its row and retried by the row's bounded attempt count (so a
    # redelivery cannot retry it twice); the service raises only when it could not record the
    # failure (the database is down), which the autoretry covers.
    scan = scan_run(repository_id=repository_id)
    return scan.pk if scan else None


@shared_task(bind=True, name="proximity.sweep_scan_requests", **RETRY)
def sweep_scan_requests(self: Any) -> int:
    # The scans' outbox sweep: requests never completed, scans a dead worker left running.
    return scan_requests_sweep()


@shared_task(bind=True, name="proximity.sweep_overlap_runs", **RETRY)
def sweep_overlap_runs(self: Any) -> int:
    # Idempotent: it only enqueues, and a run's conditional claim decides which delivery runs.
    return overlap_runs_sweep()


@shared_task(bind=True, name="proximity.run_overlap_for_version", acks_late=True, **RETRY)
def run_overlap_for_version(self: Any, version_id: int, policy_digest: str) -> int | None:
    # A failed run is recorded on its row and retried by the row's bounded attempt count (so a
    # redelivery cannot retry it twice); the service raises only when it could not record the
    # failure (the database is down), which the autoretry covers.
    run = overlap_run_execute(version_id=version_id, policy_digest=policy_digest)
    return run.pk if run else None


@shared_task(
    bind=True,
    name="proximity.merge_check",
    acks_late=True,
    soft_time_limit=settings.OVERLAP_MERGE_CHECK_SOFT_TIME_LIMIT,
    time_limit=settings.OVERLAP_MERGE_CHECK_TIME_LIMIT,
    **RETRY,
)
def merge_check(self: Any, check_id: int) -> str | None:
    # Idempotent: the row is claimed by compare-and-swap, so a redelivery of a running or
    # finished check does nothing; a soft time limit raises inside the run and is stored as
    # the row's failure (the git children carry their own resource limits).
    row = merge_check_run(check_id=check_id)
    return row.status if row else None


@shared_task(bind=True, name="proximity.expire_stale", **RETRY)
def expire_stale(self: Any) -> int:
    return snapshots_expire()


@shared_task(
    bind=True,
    name="proximity.deliver_webhook",
    acks_late=True,
    autoretry_for=(WebhookDeliveryError, requests.RequestException),
    retry_backoff=2,
    retry_backoff_max=300,
    max_retries=6,
)
def deliver_webhook(self: Any, message_id: int) -> bool:
    # Idempotent: a message already delivered is skipped, so a redelivery sends nothing twice.
    return message_webhook_deliver(message_id=message_id)


@shared_task(bind=True, name="proximity.watch_repository", acks_late=True, **RETRY)
def watch_repository(self: Any, repository_id: int) -> int:
    # Idempotent: unchanged worktrees produce no new snapshot and the same scan inputs.
    try:
        return repository_watch_tick(repository_id=repository_id).agents
    finally:
        watch_release(repository_id=repository_id)  # the next beat may enqueue again


@shared_task(bind=True, name="proximity.watch_repositories")
def watch_repositories(self: Any) -> int:
    from proximity.models import Repository

    watched = Repository.objects.filter(watch=True, archived_at__isnull=True).exclude(path="")
    ids = list(watched.values_list("pk", flat=True))
    now = timezone.now()
    claimed = [pk for pk in ids if watch_claim(repository_id=pk, now=now)]
    for pk in claimed:
        watch_repository.delay(pk)
    return len(claimed)


@shared_task(bind=True, name="proximity.prune_retention", **RETRY)
def prune_retention(self: Any) -> int:
    # Idempotent: a rerun finds nothing older than the cutoff left to delete.
    from proximity.services.retention import retention_prune

    outcome = retention_prune()
    return outcome.snapshots + outcome.scans + outcome.messages
