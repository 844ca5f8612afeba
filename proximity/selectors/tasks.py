"""Reads of task versions, overlap runs and overlap advisories, filtered by the viewer."""

from __future__ import annotations

from collections import Counter

from django.db.models import QuerySet

from proximity.models import (
    CoverageOmission,
    OverlapAdvisory,
    OverlapRun,
    Principal,
    TaskVersion,
)
from proximity.selectors.access import can_see

__all__ = [
    "advisory_is_current",
    "latest_run",
    "omission_counts",
    "overlap_advisory_get",
    "overlap_advisory_list",
    "task_versions",
    "version_visible",
]


def version_visible(principal: Principal | None, v: TaskVersion) -> bool:
    return can_see(principal, v.scope, v.disclosure)


def task_versions(principal: Principal | None, task_id: str) -> list[TaskVersion]:
    rows = TaskVersion.objects.filter(record__task_id=task_id).select_related("record")
    return [v for v in rows.order_by("work_version") if version_visible(principal, v)]


def overlap_advisory_list(
    principal: Principal | None, *, task_id: str | None = None
) -> list[OverlapAdvisory]:
    """Advisories whose BOTH versions the viewer may see; others do not exist for it."""
    scopes = list(principal.scopes) if principal else []
    rows: QuerySet[OverlapAdvisory] = OverlapAdvisory.objects.filter(
        version_a__scope__in=scopes, version_b__scope__in=scopes
    ).select_related("version_a__record", "version_b__record", "run")
    if task_id:
        rows = rows.filter(version_a__record__task_id=task_id) | rows.filter(
            version_b__record__task_id=task_id
        )
    return [
        a
        for a in rows.order_by("-created_at", "pk")[:500]
        if version_visible(principal, a.version_a) and version_visible(principal, a.version_b)
    ]


def overlap_advisory_get(principal: Principal | None, advisory_id: int) -> OverlapAdvisory | None:
    row = (
        OverlapAdvisory.objects.select_related("version_a__record", "version_b__record", "run")
        .filter(pk=advisory_id)
        .first()
    )
    if row is None or not (
        version_visible(principal, row.version_a) and version_visible(principal, row.version_b)
    ):
        return None
    return row


def advisory_is_current(advisory: OverlapAdvisory) -> bool:
    """Both versions still current (requirement 30): a superseded side makes the advisory stale."""
    ids = [advisory.version_a_id, advisory.version_b_id]
    return TaskVersion.objects.filter(pk__in=ids, superseded_at__isnull=True).count() == 2


def latest_run(principal: Principal | None, task_id: str) -> OverlapRun | None:
    versions = task_versions(principal, task_id)
    if not versions:
        return None
    return OverlapRun.objects.filter(query=versions[-1]).order_by("-requested_at").first()


def omission_counts(run: OverlapRun) -> dict[str, int]:
    """Counts only: which records were omitted is shown only to viewers of both records."""
    return dict(Counter(CoverageOmission.objects.filter(run=run).values_list("reason", flat=True)))
