"""Reads of task versions, overlap runs and overlap advisories, filtered by the viewer."""

from __future__ import annotations

from collections import Counter

from django.db.models import QuerySet

from proximity.exceptions import ConflictError
from proximity.models import (
    CoverageOmission,
    OverlapAdvisory,
    OverlapRun,
    Principal,
    TaskVersion,
)
from proximity.selectors.access import can_see, visible_scopes
from proximity.selectors.adjudications import visible_overlap_advisories
from proximity.selectors.overlap_coverage import run_coverage

__all__ = [
    "advisory_is_current",
    "latest_run",
    "omission_counts",
    "overlap_advisory_get",
    "overlap_advisory_list",
    "scope_required",
    "task_versions",
    "version_visible",
]


def version_visible(principal: Principal | None, v: TaskVersion) -> bool:
    return can_see(principal, v.scope, v.disclosure)


def scope_required(task_id: str, scopes: list[str]) -> ConflictError:
    """The answer when an id names a task in several of the viewer's scopes and none was given."""
    return ConflictError(
        f"taskId {task_id} names a task in several of your scopes ({', '.join(sorted(scopes))}): "
        "say which with scope",
        field="scope",
    )


def task_versions(
    principal: Principal | None, task_id: str, *, scope: str | None = None
) -> list[TaskVersion]:
    """The visible versions of the task ``task_id`` names among the viewer's scopes, oldest first.

    Ids are unique per scope, so one id may name tasks in several scopes: only the ones the
    viewer may see count (a task in a hidden scope answers exactly as a missing one), and when
    several remain, ``scope`` must say which (a 409 naming it otherwise).
    """
    rows = TaskVersion.objects.filter(record__task_id=task_id, scope__in=visible_scopes(principal))
    if scope is not None:
        rows = rows.filter(record__scope=scope)
    by_record: dict[int, list[TaskVersion]] = {}
    for v in rows.select_related("record").order_by("record_id", "work_version"):
        if version_visible(principal, v):
            by_record.setdefault(v.record_id, []).append(v)
    if len(by_record) > 1:
        raise scope_required(task_id, [vs[0].record.scope for vs in by_record.values()])
    return next(iter(by_record.values()), [])


def _naming(
    rows: QuerySet[OverlapAdvisory], task_id: str, scope: str | None
) -> QuerySet[OverlapAdvisory]:
    """Advisories with a side that is ``task_id`` (in ``scope`` when given)."""
    a, b = {"version_a__record__task_id": task_id}, {"version_b__record__task_id": task_id}
    if scope is not None:
        a["version_a__record__scope"] = b["version_b__record__scope"] = scope
    return rows.filter(**a) | rows.filter(**b)


def overlap_advisory_list(
    principal: Principal | None,
    *,
    task_id: str | None = None,
    scope: str | None = None,
    include: str = "all",
) -> list[OverlapAdvisory]:
    """Advisories whose BOTH versions the viewer may see; others do not exist for it.

    A list filter needs no single task: ``task_id`` alone lists every visible task of that id,
    each advisory naming its sides' scopes. ``include``: ``all`` (every stored candidate),
    ``queued`` (within the review budget) or ``held`` (held back beyond it).
    """
    rows = visible_overlap_advisories(principal).select_related("run")
    if include != "all":
        rows = rows.filter(queued=include == "queued")
    if task_id:
        rows = _naming(rows, task_id, scope)
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


def latest_run(
    principal: Principal | None, task_id: str, *, scope: str | None = None
) -> OverlapRun | None:
    versions = task_versions(principal, task_id, scope=scope)
    if not versions:
        return None
    runs = OverlapRun.objects.filter(query=versions[-1]).select_related("query__record")
    run = runs.order_by("-requested_at").first()
    if run is not None:  # read-only: a failed or overdue run reads as degraded, never as clear
        run.coverage = run_coverage(run)
    return run


def omission_counts(run: OverlapRun) -> dict[str, int]:
    """Counts only: which records were omitted is shown only to viewers of both records."""
    return dict(Counter(CoverageOmission.objects.filter(run=run).values_list("reason", flat=True)))
