"""Debounced scan requests, with the repository row as the outbox.

A report sets ``Repository.scan_requested_at``. Only the report that finds it empty enqueues a
scan (with a countdown, so a burst of reports gives one scan); a scan clears it only if no newer
request arrived meanwhile. If the broker is down the timestamp stays, and the periodic sweep
enqueues it later, so no report is lost. The sweep also reclaims scans a dead worker left
``running`` and requests re-scores of repositories whose last scan is older than the time bucket
in the scan's input hash (what changes with time alone: recency decay, intent expiry, trend).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from proximity.models import ProximityScan, Repository, WorkingSetSnapshot
from proximity.services.enqueue import SCAN, enqueue

__all__ = ["scan_enqueue", "scan_request", "scan_requests_sweep"]

log = logging.getLogger(__name__)


def scan_request(*, repository_id: int, now: datetime | None = None) -> bool:
    """Record that a scan is wanted; return True when this call scheduled it."""
    now = now or timezone.now()
    # A removed (archived) repository is never scanned again; a report racing the removal
    # waits on its row lock here and then matches nothing.
    rows = Repository.objects.filter(pk=repository_id, archived_at__isnull=True)
    while True:
        if rows.filter(scan_requested_at__isnull=True).update(scan_requested_at=now):
            transaction.on_commit(lambda: scan_enqueue(repository_id=repository_id))
            return True
        # Refresh only a request that is still pending. A finishing scan may clear it between
        # the two statements (it holds the row lock; this UPDATE waits, then re-checks the
        # condition): then loop and schedule, or the request would sit with no scan coming
        # (found by bench/load.py; tests/reliability/test_scan_request_race.py).
        if rows.filter(scan_requested_at__isnull=False).update(scan_requested_at=now):
            return False
        if not rows.exists():
            return False


def scan_enqueue(*, repository_id: int, countdown: float | None = None) -> bool:
    delay = settings.OVERLAP_SCAN_DEBOUNCE_SECONDS if countdown is None else countdown
    try:
        enqueue(SCAN, repository_id, countdown=delay)
    except (KombuOperationalError, OSError):  # broker down: the request stays for the sweep
        log.warning("could not enqueue scan of repository %s; the sweep will retry", repository_id)
        return False
    return True


def _reclaim_abandoned(now: datetime) -> set[int]:
    """Scans left ``running`` past the visibility timeout: their worker died. Run them again.

    The task time limit is below the visibility timeout, so no live worker still holds one.
    A row out of attempts is failed instead, so a scan that kills its worker stops there.
    """
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    rows = ProximityScan.objects.filter(
        status=ProximityScan.Status.RUNNING, started_at__lt=now - timedelta(seconds=timeout)
    )
    repos = set(rows.values_list("repository_id", flat=True))
    rows.filter(attempts__gte=settings.OVERLAP_SCAN_MAX_ATTEMPTS).update(
        status=ProximityScan.Status.FAILED,
        finished_at=now,
        error=f"abandoned: no result within the visibility timeout ({timeout} s), out of attempts",
    )
    rows.update(status=ProximityScan.Status.PENDING)
    Repository.objects.filter(pk__in=repos, scan_requested_at__isnull=True).update(
        scan_requested_at=now
    )
    return repos


def _request_rescores(now: datetime) -> int:
    """Request a scan of each repository with live agents and no scan in the last bucket."""
    window = now - timedelta(seconds=settings.OVERLAP_SCAN_RESCORE_SECONDS)
    live = WorkingSetSnapshot.objects.filter(agent__repository=OuterRef("pk"), expires_at__gt=now)
    recent = ProximityScan.objects.filter(repository=OuterRef("pk"), requested_at__gte=window)
    due = Repository.objects.filter(Exists(live), ~Exists(recent), scan_requested_at__isnull=True)
    return sum(scan_request(repository_id=pk, now=now) for pk in due.values_list("pk", flat=True))


def scan_requests_sweep(*, older_than_seconds: float = 30.0, now: datetime | None = None) -> int:
    """Enqueue scans requested long ago and never completed (broker outage, lost message),
    scans abandoned by a dead worker, and re-scores of repositories due one."""
    now = now or timezone.now()
    reclaimed = _reclaim_abandoned(now)
    rescored = _request_rescores(now)
    cutoff = now - timedelta(seconds=older_than_seconds)
    pending = Repository.objects.filter(scan_requested_at__lt=cutoff).values_list("pk", flat=True)
    due = reclaimed | set(pending)
    return rescored + sum(scan_enqueue(repository_id=pk, countdown=0) for pk in sorted(due))
