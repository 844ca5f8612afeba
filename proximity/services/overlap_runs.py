"""Run the task-overlap detector for one new task version and store everything it emits.

Idempotent on (task version, policy digest): the run row is unique and claimed by conditional
update, and its children are written in the same transaction as the run's completion.

Failure: any exception inside a run (pool read, embedding, index build, engine, recheck, store)
marks it ``failed`` with its reason; a ranker whose index cannot be built is unavailable instead
(the pipeline's degraded modes). A failed run is claimed again at most ``MAX_ATTEMPTS`` times in
all, after a doubling backoff: Celery's countdown schedules the retry and the periodic sweep
re-enqueues any retry, stale ``running`` row or pending row whose message was lost. Requesting a
run never raises, so a declaration is answered 201 whatever its run does.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from proximity.models import OverlapRun, TaskVersion
from proximity.services.enqueue import OVERLAP_RUN, enqueue
from proximity.services.overlap_index import indexed_engine_call
from proximity.services.overlap_prepare import ACTIVE_POLICY, PreparedRun
from proximity.services.overlap_store import run_store

__all__ = [
    "ACTIVE_POLICY",
    "max_attempts",
    "overlap_run_execute",
    "overlap_run_prepared",
    "overlap_run_request",
    "overlap_runs_sweep",
    "run_retry_backoff",
]

log = logging.getLogger(__name__)
#: How far back the sweep looks for versions whose run was never requested.
ORPHAN_HORIZON = timedelta(hours=1)


def run_retry_backoff(attempts: int) -> timedelta:
    """Wait after the ``attempts``-th failed try: the base, doubling each time."""
    base = settings.OVERLAP_SCAN_RETRY_BACKOFF_SECONDS  # one retry policy for background work
    return timedelta(seconds=base * 2 ** max(attempts - 1, 0))


def max_attempts() -> int:
    return int(settings.OVERLAP_SCAN_MAX_ATTEMPTS)


def overlap_run_request(*, version_id: int, now: datetime | None = None) -> OverlapRun | None:
    """Create the version's run under the active policy and enqueue it; never raises.

    Called on commit of a declaration: whatever happens here (the broker is down, an eager run
    raised), the version is stored and the pending row is the outbox the sweep reads.
    """
    try:
        run, created = OverlapRun.objects.get_or_create(
            query_id=version_id,
            policy_digest=ACTIVE_POLICY.digest,
            defaults={
                "requested_at": now or timezone.now(),
                "policy_version": ACTIVE_POLICY.version,
            },
        )
    except Exception:  # the version is committed; the sweep requests runs for orphans
        log.exception("could not request an overlap run for version %s", version_id)
        return None
    if created or run.status == OverlapRun.Status.PENDING:
        _enqueue(version_id)
    return run


def _enqueue(version_id: int, *, countdown: float | None = None) -> bool:
    try:
        enqueue(OVERLAP_RUN, version_id, ACTIVE_POLICY.digest, countdown=countdown)
    except (KombuOperationalError, OSError):  # broker down: the pending row is the outbox
        log.warning(
            "could not enqueue overlap run for version %s; the sweep will retry", version_id
        )
        return False
    except Exception:  # an in-process (eager) run that raised: its row says what happened
        log.exception("overlap run for version %s raised; the sweep will retry", version_id)
        return False
    return True


def _give_up_abandoned(now: datetime) -> int:
    """Runs left ``running`` past the visibility timeout and out of attempts: failed, with why.

    The task time limit is below the visibility timeout, so no live worker still holds one; a
    run that kills its worker every time stops here instead of being claimed forever.
    """
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    return OverlapRun.objects.filter(
        status=OverlapRun.Status.RUNNING,
        started_at__lt=now - timedelta(seconds=timeout),
        attempts__gte=max_attempts(),
    ).update(
        status=OverlapRun.Status.FAILED,
        finished_at=now,
        coverage=OverlapRun.COVERAGE_FAILED,
        error=f"abandoned: no result within the visibility timeout ({timeout} s), out of attempts",
    )


def _due(now: datetime, older_than_seconds: float) -> list[int]:
    """Version ids whose run may be claimed now: pending (message lost), running on a dead
    worker, or failed with attempts left and its backoff over."""
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    runs = OverlapRun.objects.filter(policy_digest=ACTIVE_POLICY.digest)
    pending = runs.filter(
        status=OverlapRun.Status.PENDING,
        requested_at__lt=now - timedelta(seconds=older_than_seconds),
    )
    stale = runs.filter(
        status=OverlapRun.Status.RUNNING, started_at__lt=now - timedelta(seconds=timeout)
    )
    failed = runs.filter(status=OverlapRun.Status.FAILED, attempts__lt=max_attempts())
    retry = [
        query_id
        for query_id, attempts, finished in failed.values_list(
            "query_id", "attempts", "finished_at"
        )
        if finished is None or finished <= now - run_retry_backoff(attempts)
    ]
    return sorted(
        {
            *pending.values_list("query_id", flat=True),
            *stale.values_list("query_id", flat=True),
            *retry,
        }
    )


def _orphans(now: datetime) -> list[int]:
    """Recent current versions with no run under the active policy (a request that failed)."""
    has_run = OverlapRun.objects.filter(query=OuterRef("pk"), policy_digest=ACTIVE_POLICY.digest)
    rows = TaskVersion.objects.filter(
        superseded_at__isnull=True, created_at__gte=now - ORPHAN_HORIZON
    ).filter(~Exists(has_run))
    return list(rows.values_list("pk", flat=True))


def overlap_runs_sweep(*, older_than_seconds: float = 30.0, now: datetime | None = None) -> int:
    """Enqueue every run that is due (see ``_due``), request runs for orphaned versions, and fail
    runs abandoned out of attempts. Idempotent: a claim decides which enqueued run proceeds."""
    now = now or timezone.now()
    _give_up_abandoned(now)
    for version_id in _orphans(now):
        overlap_run_request(version_id=version_id, now=now)
    due = _due(now, older_than_seconds)
    return sum(_enqueue(version_id, countdown=0) for version_id in due)


def overlap_run_execute(*, version_id: int, policy_digest: str) -> OverlapRun | None:
    if policy_digest != ACTIVE_POLICY.digest:
        log.warning(
            "overlap run for policy %s ignored: active is %s", policy_digest, ACTIVE_POLICY.digest
        )
        return None
    now = timezone.now()
    query = (
        TaskVersion.objects.select_related("record", "declared_by").filter(pk=version_id).first()
    )
    if query is None:
        return None
    run, _ = OverlapRun.objects.get_or_create(
        query=query,
        policy_digest=policy_digest,
        defaults={"requested_at": now, "policy_version": ACTIVE_POLICY.version},
    )
    if run.status == OverlapRun.Status.DONE or not _claim(run, now):
        return run
    try:
        # The pool is the scopes of this version's writer (its reviser, for a revision).
        overlap_run_prepared(run, indexed_engine_call(query, query.declared_by), claimed=True)
    except Exception as exc:  # any failure must leave a reason, never a row stuck running
        _fail(run, exc)
    return run


def overlap_run_prepared(run: OverlapRun, prepared: PreparedRun, *, claimed: bool) -> None:
    """Call the engine on ``prepared`` and store its result with ``run`` in one transaction
    (the rebuild path's benchmark runs the same step on a rebuilt pool)."""
    result = prepared.call()
    with transaction.atomic():
        run_store(
            run=run,
            result=result,
            pool_size=prepared.pool_size,
            version_ids=prepared.version_ids,
            records=prepared.records,
            now=timezone.now(),
            claimed=claimed,
        )


def _claim(run: OverlapRun, now: datetime) -> bool:
    """Move the run to ``running`` by conditional update; True only for the caller that did.

    Due: pending; running past the visibility timeout (its worker died, the task is being
    redelivered); failed with attempts left once its backoff is over. Matching ``attempts`` too
    makes this a compare-and-swap on the count the backoff was read from, so two deliveries of
    one retry cannot both run it.
    """
    if run.attempts >= max_attempts():
        return False
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    due = Q(status=OverlapRun.Status.PENDING)
    due |= Q(status=OverlapRun.Status.RUNNING, started_at__lt=now - timedelta(seconds=timeout))
    due |= Q(
        status=OverlapRun.Status.FAILED, finished_at__lte=now - run_retry_backoff(run.attempts)
    )
    claimed = (
        OverlapRun.objects.filter(due, pk=run.pk, attempts=run.attempts)
        .exclude(status=OverlapRun.Status.DONE)
        .update(status=OverlapRun.Status.RUNNING, started_at=now, attempts=F("attempts") + 1)
    )
    run.attempts += claimed
    return bool(claimed)


def _fail(run: OverlapRun, exc: Exception) -> None:
    """Record the failure and its reason; schedule the retry while attempts are left.

    If the database itself is down this raises and the task's autoretry takes over; the row
    stays running until the sweep reclaims it after the visibility timeout.
    """
    log.exception("overlap run %s (version %s) failed", run.pk, run.query_id)
    now = timezone.now()
    run.status, run.finished_at = OverlapRun.Status.FAILED, now
    run.coverage, run.error = OverlapRun.COVERAGE_FAILED, f"{type(exc).__name__}: {exc}"[:2000]
    OverlapRun.objects.filter(pk=run.pk).update(
        status=run.status, finished_at=now, coverage=run.coverage, error=run.error
    )
    if run.attempts < max_attempts():
        # Celery's countdown carries the backoff; the sweep re-enqueues it if the message is lost.
        # In-process (eager) the countdown is not waited for: that claim finds the backoff not
        # over and returns, and the sweep runs the retry later.
        seconds = run_retry_backoff(run.attempts).total_seconds()
        transaction.on_commit(lambda: _enqueue(run.query_id, countdown=seconds))
