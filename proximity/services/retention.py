"""Retention: prune old snapshots, scans and messages in small batches.

Each batch selects at most ``batch`` primary keys and deletes exactly those rows in its own short
transaction, so no lock is held across batches and a report written meanwhile waits for one
batch at most. What the product promises to keep is never touched: advisories (both kinds),
adjudications, task versions and overlap runs are outside this module; the latest snapshot of
every agent, the latest finished scan of every repository and any scan an advisory points to are
kept so the board and the advisories stay readable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone

from proximity.models import ProximityAdvisory, ProximityScan, TriggerMessage, WorkingSetSnapshot

__all__ = ["PruneOutcome", "retention_prune"]


@dataclass(frozen=True)
class PruneOutcome:
    snapshots: int
    scans: int
    messages: int
    batches: int


def _cutoff(now: datetime, days: int) -> datetime | None:
    return now - timedelta(days=days) if days > 0 else None


def _delete_in_batches(
    queryset: models.QuerySet[Any], *, batch: int, pause_s: float
) -> tuple[int, int]:
    deleted = batches = 0
    while True:
        ids = list(queryset.order_by("pk").values_list("pk", flat=True)[:batch])
        if not ids:
            return deleted, batches
        # One short transaction per batch: the rows are locked only while these few go.
        with transaction.atomic():
            deleted += (
                queryset.model.objects.filter(pk__in=ids)
                .delete()[1]
                .get(queryset.model._meta.label, 0)
            )
        batches += 1
        if pause_s:
            time.sleep(pause_s)


def _old_snapshots(cutoff: datetime) -> models.QuerySet[Any]:
    latest = WorkingSetSnapshot.objects.filter(agent=OuterRef("agent")).values("agent")
    latest_version = latest.annotate(top=Max("version")).values("top")
    return WorkingSetSnapshot.objects.filter(reported_at__lt=cutoff).exclude(
        version=Subquery(latest_version)
    )


def _old_scans(cutoff: datetime) -> models.QuerySet[Any]:
    kept_by_advisory = ProximityAdvisory.objects.filter(last_scan__isnull=False).values("last_scan")
    newest = (
        ProximityScan.objects.filter(repository=OuterRef("repository"), status="done")
        .order_by("-finished_at")
        .values("pk")[:1]
    )
    return (
        ProximityScan.objects.filter(requested_at__lt=cutoff)
        .exclude(status__in=["pending", "running"])
        .exclude(pk__in=kept_by_advisory)
        .exclude(pk=Subquery(newest))
    )


def retention_prune(
    *, now: datetime | None = None, batch: int | None = None, pause_s: float = 0.0
) -> PruneOutcome:
    """Delete what is older than the retention settings; a period of 0 days keeps forever."""
    now = now or timezone.now()
    size = batch or settings.OVERLAP_PRUNE_BATCH_SIZE
    counts, batches = [], 0
    plans = (
        (settings.OVERLAP_RETAIN_SNAPSHOT_DAYS, _old_snapshots),
        (settings.OVERLAP_RETAIN_SCAN_DAYS, _old_scans),
        (
            settings.OVERLAP_RETAIN_MESSAGE_DAYS,
            lambda cut: TriggerMessage.objects.filter(created_at__lt=cut),
        ),
    )
    for days, select in plans:
        cutoff = _cutoff(now, days)
        if cutoff is None:
            counts.append(0)
            continue
        n, b = _delete_in_batches(select(cutoff), batch=size, pause_s=pause_s)
        counts.append(n)
        batches += b
    return PruneOutcome(counts[0], counts[1], counts[2], batches)
