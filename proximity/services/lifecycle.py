"""Time-driven upkeep: expire stale working sets so their advisories close."""

from __future__ import annotations

from datetime import datetime

from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from proximity.models import Agent, ProximityAdvisory, WorkingSetSnapshot
from proximity.services.scan_requests import scan_request

__all__ = ["snapshots_expire"]


def snapshots_expire(*, now: datetime | None = None) -> int:
    """Request a rescan of every repository whose live advisories involve an expired snapshot."""
    now = now or timezone.now()
    latest_expiry = (
        WorkingSetSnapshot.objects.filter(agent=OuterRef("pk"))
        .order_by("-version")
        .values("expires_at")[:1]
    )
    stale = Agent.objects.annotate(expiry=Subquery(latest_expiry)).filter(
        Q(expiry__isnull=True) | Q(expiry__lte=now)
    )
    live = ProximityAdvisory.objects.filter(state__in=["open", "acknowledged"])
    repos = sorted(
        set(
            live.filter(Q(agent_a__in=stale) | Q(agent_b__in=stale)).values_list(
                "repository_id", flat=True
            )
        )
    )
    for repo_id in repos:
        scan_request(repository_id=repo_id, now=now)
    return len(repos)
