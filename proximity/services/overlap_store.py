"""Write one engine overlap run into the database: advisories, unknowns, omissions, repairs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from proximity.engine.overlap import OverlapRun as EngineRun
from proximity.engine.overlap import TaskRecord as EngineRecord
from proximity.engine.overlap import TaskRef
from proximity.engine.overlap.evidence import QueuedCandidate
from proximity.models import (
    CoverageOmission,
    OverlapAdvisory,
    OverlapRun,
    RepairRecord,
    TaskVersion,
    UnknownEmission,
)
from proximity.services.overlap_evidence import ReviewStage, review_stage

__all__ = ["run_store"]


def _version_ids(version_ids: Mapping[TaskRef, int] | None) -> Callable[[TaskRef], int]:
    """Each ref's stored version: from the run's pool when given (no query), else looked up."""
    if version_ids is not None:
        return version_ids.__getitem__

    def lookup(ref: TaskRef) -> int:
        scope, _, task_id = ref.task_id.partition("#")  # see task_records.engine_task_id
        rows = TaskVersion.objects.filter(
            record__scope=scope, record__task_id=task_id, work_version=ref.work_version
        )
        return int(rows.values_list("pk", flat=True).get())

    return lookup


def _features(features: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(f) for f in features]


def _review(queued: QueuedCandidate, stage: ReviewStage) -> dict[str, Any]:
    """The evidence model's view of one advisory: score, terms and the identity of the model."""
    s = queued.scored
    return {
        "version": stage.model.version,
        "digest": stage.model.digest,
        "status": stage.model.status,
        "logit": s.logit,
        "probability": s.probability,
        "queueRank": queued.queue_rank,
        "queued": queued.queued,
        "budget": stage.budget,
        "delivery": stage.delivery.mode,
        "terms": [dataclasses.asdict(t) for t in s.terms],
    }


def run_store(
    *,
    run: OverlapRun,
    result: EngineRun,
    pool_size: int,
    now: datetime,
    version_ids: Mapping[TaskRef, int] | None = None,
    records: Callable[[TaskRef], EngineRecord | None] | None = None,
    claimed: bool = False,
) -> None:
    """Idempotent: the run's children are replaced in the transaction that completes the run.

    ``version_ids`` maps every ref of the run's pool to its stored version and ``records``
    gives their records (the prepared run knows both); children are inserted in bulk, so
    storing costs the same few statements whatever the number of advisories.

    ``claimed``: the caller has just claimed the run (``overlap_runs._claim``), so it has no
    children to replace: they are only ever committed with status ``done``, and a done run is
    never claimed. The three deletes are then skipped.
    """
    if not claimed:
        OverlapAdvisory.objects.filter(run=run).delete()
        UnknownEmission.objects.filter(run=run).delete()
        CoverageOmission.objects.filter(run=run).delete()
    query, version_id = run.query, _version_ids(version_ids)
    stage = review_stage(query, result, version_id, run.policy_digest, records)
    queue = stage.by_candidate
    OverlapAdvisory.objects.bulk_create(
        OverlapAdvisory(
            run=run,
            version_a=query,
            version_b_id=version_id(adv.candidate),
            coverage=adv.coverage,
            ranks=dict(adv.ranks),
            fused_rank=rank,
            features=_features(adv.features),
            evidence={
                "snapshotId": adv.snapshot_id,
                "policyDigest": adv.policy_digest,
                "policyVersion": adv.policy_version,
                "fusedScore": adv.fused_score,
                "indexIds": dict(adv.index_ids),
                "repairRoute": adv.repair_route,
                "review": _review(queue[adv.candidate], stage),
            },
            queue_rank=queue[adv.candidate].queue_rank,
            queued=queue[adv.candidate].queued,
            evidence_score=queue[adv.candidate].scored.probability,
            created_at=now,
        )
        for rank, adv in enumerate(result.advisories, start=1)
    )
    UnknownEmission.objects.bulk_create(
        UnknownEmission(
            run=run,
            version=query,
            candidate_id=version_id(unknown.candidate) if unknown.candidate else None,
            reason=unknown.reason,
            detail=unknown.detail or "",
            created_at=now,
        )
        for unknown in result.unknowns
    )
    CoverageOmission.objects.bulk_create(
        [
            CoverageOmission(run=run, omitted_id=version_id(o.candidate), reason=o.reason)
            for o in result.omissions
        ],
        ignore_conflicts=True,
    )
    for repair in result.repairs:
        RepairRecord.objects.create(
            kind=repair.kind, reason=repair.reason, route=repair.route, run=run, created_at=now
        )
    run.status, run.finished_at, run.error = OverlapRun.Status.DONE, now, ""
    run.coverage = result.coverage or "unknown"
    run.snapshot_id, run.pool_size = result.snapshot_id, pool_size
    # Requirement 70: the delivery mode is decided here, once per run, and stored with it.
    run.review_budget, run.held_back = stage.budget, stage.held_back
    run.evidence_model, run.delivery = stage.model.digest, stage.delivery.mode
    fields = ["status", "finished_at", "error", "coverage", "snapshot_id", "pool_size"]
    fields += ["review_budget", "held_back", "evidence_model", "delivery"]
    run.save(update_fields=fields)
