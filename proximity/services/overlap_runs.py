"""Run the task-overlap detector for one new task version and store everything it emits.

Idempotent on (task version, policy digest): the run row is unique and claimed by conditional
update, and its children are written in the same transaction as the run's completion.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from proximity.engine.overlap import (
    SHIPPED_POLICY,
    BM25Index,
    BM25Ranker,
    DenseIndex,
    DenseRanker,
    OverlapPolicy,
    PoolSnapshot,
    Ranker,
    Recheck,
    TaskRef,
    UnavailableRanker,
    is_visible,
    run_overlap,
)
from proximity.engine.overlap import OverlapRun as EngineRun
from proximity.engine.overlap import TaskRecord as EngineRecord
from proximity.models import OverlapRun, Principal, TaskVersion
from proximity.selectors.access import viewer_of, viewer_sees
from proximity.services.claims import claim_row
from proximity.services.enqueue import OVERLAP_RUN, enqueue
from proximity.services.overlap_store import run_store
from proximity.services.task_records import engine_record, ensure_embeddings, vector_of
from proximity.sources.nli import nli_adapter_for

__all__ = ["ACTIVE_POLICY", "overlap_run_execute", "overlap_run_request", "overlap_runs_sweep"]

log = logging.getLogger(__name__)
ACTIVE_POLICY: OverlapPolicy = SHIPPED_POLICY


def overlap_run_request(*, version_id: int, now: datetime | None = None) -> OverlapRun:
    run, created = OverlapRun.objects.get_or_create(
        query_id=version_id,
        policy_digest=ACTIVE_POLICY.digest,
        defaults={"requested_at": now or timezone.now(), "policy_version": ACTIVE_POLICY.version},
    )
    if created or run.status == OverlapRun.Status.PENDING:
        _enqueue(version_id)
    return run


def _enqueue(version_id: int) -> None:
    try:
        enqueue(OVERLAP_RUN, version_id, ACTIVE_POLICY.digest)
    except (KombuOperationalError, OSError):  # broker down: the pending row is the outbox
        log.warning(
            "could not enqueue overlap run for version %s; the sweep will retry", version_id
        )


def overlap_runs_sweep(*, older_than_seconds: float = 30.0) -> int:
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    pending = OverlapRun.objects.filter(status=OverlapRun.Status.PENDING, requested_at__lt=cutoff)
    ids = list(pending.values_list("query_id", flat=True))
    for version_id in ids:
        _enqueue(version_id)
    return len(ids)


def _pool(query: TaskVersion, declarer: Principal) -> list[TaskVersion]:
    """One snapshot: current versions in the declarer's scopes, plus the query itself."""
    rows = TaskVersion.objects.filter(superseded_at__isnull=True, scope__in=declarer.scopes)
    versions = list(rows.select_related("record").order_by("pk"))
    if query.pk not in {v.pk for v in versions}:
        versions.append(query)
    viewer = viewer_of(declarer)
    # Scope and disclosure are all the rule reads; the engine records are built once, after
    # embedding (which may set a version's space).
    return [v for v in versions if viewer_sees(viewer, v.scope, v.disclosure)]


def _recheck(declarer: Principal) -> Recheck:
    """Re-read both versions from the database just before each advisory (requirement 28)."""
    viewer = viewer_of(declarer)

    def recheck(query: EngineRecord, candidate: EngineRecord) -> bool:
        for ref in (query.ref, candidate.ref):
            row = (
                TaskVersion.objects.select_related("record")
                .filter(record__task_id=ref.task_id, work_version=ref.work_version)
                .first()
            )
            if row is None or row.superseded_at is not None:
                return False
            if not is_visible(engine_record(row), viewer):
                return False
        return True

    return recheck


def engine_call(query: TaskVersion, declarer: Principal) -> tuple[Callable[[], EngineRun], int]:
    """Everything a run needs read and built (pool, embeddings, both indexes), as one call to the
    engine, and the pool size. Separate so bench/overlap_service.py can time the two halves."""
    versions = _pool(query, declarer)
    space = ensure_embeddings(versions)
    query.refresh_from_db(fields=["space_id", "embedding"])
    records = [engine_record(v) for v in versions]
    snapshot_id = hashlib.sha256(",".join(str(v.pk) for v in versions).encode()).hexdigest()[:32]
    snapshot = PoolSnapshot.build(snapshot_id, records)
    lexical = BM25Ranker(BM25Index.build(snapshot, fields=ACTIVE_POLICY.fields_indexed))
    dense: Ranker
    if space is None:
        dense = UnavailableRanker("dense-retrieval-unavailable: embedding model not loadable")
    else:
        vectors = [vector_of(v) if v.space_id == space else None for v in versions]
        dense = DenseRanker(DenseIndex.build(snapshot, vectors, space_id=space), snapshot)
    call = partial(
        run_overlap,
        TaskRef(query.record.task_id, query.work_version),
        snapshot,
        viewer_of(declarer),
        ACTIVE_POLICY,
        lexical=lexical,
        dense=dense,
        recheck=_recheck(declarer),
        nli=nli_adapter_for(settings.OVERLAP_NLI_MODEL_DIR),
    )
    return call, len(versions)


def overlap_run_execute(*, version_id: int, policy_digest: str) -> OverlapRun | None:
    if policy_digest != ACTIVE_POLICY.digest:
        log.warning(
            "overlap run for policy %s ignored: active is %s", policy_digest, ACTIVE_POLICY.digest
        )
        return None
    now = timezone.now()
    query = TaskVersion.objects.select_related("record__declared_by").filter(pk=version_id).first()
    if query is None:
        return None
    run, _ = OverlapRun.objects.get_or_create(
        query=query,
        policy_digest=policy_digest,
        defaults={"requested_at": now, "policy_version": ACTIVE_POLICY.version},
    )
    if run.status == OverlapRun.Status.DONE or not claim_row(OverlapRun, run.pk, now):
        return run
    call, pool_size = engine_call(query, query.record.declared_by)
    result = call()
    with transaction.atomic():
        run_store(run=run, result=result, pool_size=pool_size, now=timezone.now())
    return run
