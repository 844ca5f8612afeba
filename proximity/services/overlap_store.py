"""Write one engine overlap run into the database: advisories, unknowns, omissions, repairs."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from proximity.engine.overlap import OverlapRun as EngineRun
from proximity.engine.overlap import TaskRef
from proximity.models import (
    CoverageOmission,
    OverlapAdvisory,
    OverlapRun,
    RepairRecord,
    TaskVersion,
    UnknownEmission,
)

__all__ = ["run_store"]


def _version(ref: TaskRef) -> TaskVersion:
    return TaskVersion.objects.get(record__task_id=ref.task_id, work_version=ref.work_version)


def _features(features: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(f) for f in features]


def run_store(*, run: OverlapRun, result: EngineRun, pool_size: int, now: datetime) -> None:
    """Idempotent: the run's children are replaced in the transaction that completes the run."""
    OverlapAdvisory.objects.filter(run=run).delete()
    UnknownEmission.objects.filter(run=run).delete()
    CoverageOmission.objects.filter(run=run).delete()
    query = run.query
    for rank, adv in enumerate(result.advisories, start=1):
        OverlapAdvisory.objects.create(
            run=run,
            version_a=query,
            version_b=_version(adv.candidate),
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
            },
            created_at=now,
        )
    for unknown in result.unknowns:
        UnknownEmission.objects.create(
            run=run,
            version=query,
            candidate=_version(unknown.candidate) if unknown.candidate else None,
            reason=unknown.reason,
            detail=unknown.detail or "",
            created_at=now,
        )
    CoverageOmission.objects.bulk_create(
        [
            CoverageOmission(run=run, omitted=_version(o.candidate), reason=o.reason)
            for o in result.omissions
        ],
        ignore_conflicts=True,
    )
    for repair in result.repairs:
        RepairRecord.objects.create(
            kind=repair.kind, reason=repair.reason, route=repair.route, run=run, created_at=now
        )
    run.status, run.finished_at = OverlapRun.Status.DONE, now
    run.coverage = result.coverage or "unknown"
    run.snapshot_id, run.pool_size = result.snapshot_id, pool_size
    run.save(update_fields=["status", "finished_at", "coverage", "snapshot_id", "pool_size"])
