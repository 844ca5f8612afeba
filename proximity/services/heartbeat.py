"""Writes for worker liveness."""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from proximity.models import WorkerHeartbeat

__all__ = ["heartbeat_record"]


def heartbeat_record(*, hostname: str) -> WorkerHeartbeat:
    # Upsert then increment with F() so concurrent workers never lose a beat.
    now = timezone.now()
    beat, created = WorkerHeartbeat.objects.get_or_create(
        hostname=hostname, defaults={"seen_at": now, "beats": 1}
    )
    if not created:
        WorkerHeartbeat.objects.filter(pk=beat.pk).update(seen_at=now, beats=F("beats") + 1)
        beat.refresh_from_db()
    return beat
