"""How far a task's overlap result can be trusted: a failed or overdue run is degraded coverage.

A version whose run failed, or has no result long after it was requested, has no advisories and
no unknowns of its own; shown as it is, it would read as "no overlap". Readers (the API's run,
the board's overlap column) take its coverage from here instead.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from proximity.models import OverlapRun, Principal
from proximity.selectors.access import can_see, visible_scopes
from proximity.selectors.board_records import TaskCard

__all__ = ["run_coverage", "run_problem_cards"]

#: Board card ids of run problems, below every unknown's (``-UnknownEmission.pk``).
_CARD_ID_BASE = -(10**12)


def _overdue(now: datetime) -> datetime:
    return now - timedelta(seconds=settings.OVERLAP_COVERAGE_STALE_SECONDS)


def run_coverage(run: OverlapRun, *, now: datetime | None = None) -> str:
    """The coverage a reader may rely on: the stored one once done, degraded when the run
    failed or is pending or running past ``OVERLAP_COVERAGE_STALE_SECONDS``, else pending."""
    if run.status == OverlapRun.Status.DONE:
        return run.coverage or "unknown"
    if run.status == OverlapRun.Status.FAILED:
        return OverlapRun.COVERAGE_FAILED
    since = run.started_at if run.status == OverlapRun.Status.RUNNING else run.requested_at
    if since is not None and since < _overdue(now or timezone.now()):
        return OverlapRun.COVERAGE_STALE
    return "pending"


def _reason(run: OverlapRun, now: datetime) -> str:
    cap = settings.OVERLAP_SCAN_MAX_ATTEMPTS
    if run.status == OverlapRun.Status.FAILED:
        left = "retrying" if run.attempts < cap else "given up"
        head = f"overlap run failed (attempt {run.attempts} of {cap}, {left})"
        return f"{head}: {run.error}"[:200]
    since = run.started_at if run.status == OverlapRun.Status.RUNNING else run.requested_at
    minutes = int((now - since).total_seconds() // 60) if since else 0
    return f"overlap run {run.status} for {minutes} min without a result: coverage degraded"


def run_problem_cards(principal: Principal | None, limit: int) -> list[TaskCard]:
    """Cards for the latest runs of current versions that failed or are overdue, newest first.

    One query, filtered by the viewer's scopes in SQL and by disclosure labels here.
    """
    now = timezone.now()
    newer = OverlapRun.objects.filter(
        query=OuterRef("query"), requested_at__gt=OuterRef("requested_at")
    )
    problems = Q(status=OverlapRun.Status.FAILED)
    problems |= Q(status=OverlapRun.Status.PENDING, requested_at__lt=_overdue(now))
    problems |= Q(status=OverlapRun.Status.RUNNING, started_at__lt=_overdue(now))
    rows = (
        OverlapRun.objects.filter(problems, query__superseded_at__isnull=True)
        .filter(query__scope__in=visible_scopes(principal))
        .filter(~Exists(newer))
        .select_related("query__record")
        .order_by("-requested_at", "-pk")
    )
    return [
        TaskCard(
            id=_CARD_ID_BASE - run.pk,
            task_a=str(run.query),
            task_b="",
            objective_a=run.query.objective[:200],
            objective_b="",
            coverage=run_coverage(run, now=now),
            unknown_reason=_reason(run, now),
        )
        for run in rows[: limit * 4]
        if can_see(principal, run.query.scope, run.query.disclosure)
    ][:limit]
