"""Time-driven upkeep: expire stale working sets so their advisories close."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from proximity.models import ProximityAdvisory, WorkingSetSnapshot
from proximity.services.scan_requests import scan_request

__all__ = ["snapshots_expire"]


def snapshots_expire(*, now: datetime | None = None) -> int:
    """Request a rescan of every repository whose live advisories involve an expired snapshot."""
    now = now or timezone.now()
    live = ProximityAdvisory.objects.filter(state__in=["open", "acknowledged"])
    repos = set()
    for advisory in live.select_related("agent_a", "agent_b"):
        for agent in (advisory.agent_a, advisory.agent_b):
            latest = WorkingSetSnapshot.objects.filter(agent=agent).order_by("-version").first()
            if latest is None or latest.expires_at <= now:
                repos.add(advisory.repository_id)
    for repo_id in sorted(repos):
        scan_request(repository_id=repo_id, now=now)
    return len(repos)
