"""Reads of task versions, overlap runs and overlap advisories, filtered by the viewer."""

from __future__ import annotations

from collections import Counter

from proximity.models import (
    CoverageOmission,
    OverlapAdvisory,
    OverlapRun,
    Principal,
    TaskVersion,
)
from proximity.selectors.access import can_see
from proximity.selectors.adjudications import visible_overlap_advisories

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
    rows = visible_overlap_advisories(principal).select_related("run")
    if task_id:
        rows = rows.filter(version_a__record__task_id=task_id) | rows.filter(
            version_b__record__task_id=task_id
        )
    return list(rows.order_by("-created_at", "pk")[:500])


def overlap_advisory_get(principal: Principal | None, advisory_id: int) -> OverlapAdvisory | None:
    return (
        visible_overlap_advisories(principal).select_related("run").filter(pk=advisory_id).first()
    )


def advisory_is_current(advisory: OverlapAdvisory) -> bool:
    """Both versions still current (requirement 30): a superseded side makes the advisory stale.

    Reads the versions loaded with the advisory (every selector here select_relates them).
    """
    return advisory.version_a.superseded_at is None and advisory.version_b.superseded_at is None


def latest_run(principal: Principal | None, task_id: str) -> OverlapRun | None:
    versions = task_versions(principal, task_id)
    if not versions:
        return None
    return OverlapRun.objects.filter(query=versions[-1]).order_by("-requested_at").first()


def omission_counts(run: OverlapRun) -> dict[str, int]:
    """Counts only: which records were omitted is shown only to viewers of both records."""
    return dict(Counter(CoverageOmission.objects.filter(run=run).values_list("reason", flat=True)))
