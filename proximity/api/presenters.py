"""Model rows to response schemas (kept out of routes so each route stays a few lines)."""

from __future__ import annotations

from proximity.api.schemas import (
    AdvisoryOut,
    MergeCheckStateOut,
    MessageOut,
    OverlapAdvisoryOut,
    OverlapRunOut,
    RepositoryOut,
    ScanOut,
    TaskVersionOut,
)
from proximity.models import (
    OverlapAdvisory,
    OverlapRun,
    Principal,
    ProximityAdvisory,
    ProximityScan,
    Repository,
    TaskVersion,
    TriggerMessage,
)
from proximity.selectors.tasks import advisory_is_current, omission_counts, version_visible

__all__ = [
    "advisory_out",
    "message_out",
    "overlap_advisory_out",
    "repository_out",
    "run_out",
    "scan_out",
    "version_out",
]


def advisory_out(a: ProximityAdvisory) -> AdvisoryOut:
    return AdvisoryOut(
        id=a.pk,
        repository=a.repository.name,
        agent_a=a.agent_a.agent_id,
        agent_b=a.agent_b.agent_id,
        band=a.band,
        band_label=a.get_band_display(),
        risk=a.risk,
        calibrated_probability=a.calibrated_probability,
        calibration_label=a.calibration_label,
        channels=a.channels,
        conflict=a.conflict,
        escalated=a.escalated,
        steer=a.steer.agent_id if a.steer else None,
        hold=a.hold.agent_id if a.hold else None,
        closure_rate=a.closure_rate,
        trend=a.trend,
        state=a.state,
        profile=a.profile,
        scorer_version=a.scorer_version,
        first_seen=a.first_seen,
        last_seen=a.last_seen,
        acknowledged_by=a.acknowledged_by,
        detail=a.detail,
        merge_check=MergeCheckStateOut.model_validate((a.detail or {}).get("mergeCheck") or {}),
    )


def repository_out(repo: Repository) -> RepositoryOut:
    return RepositoryOut(
        name=repo.name,
        scope=repo.scope,
        base_branch=repo.base_branch,
        profile=repo.profile,
        agent_count=getattr(repo, "agent_count", 0),  # annotated by repository_list
        merge_checks=repo.merge_checks,
        merge_check_tests=repo.merge_check_tests,
        parked_hours=repo.parked_hours,
        archived_at=repo.archived_at,
    )


def message_out(m: TriggerMessage) -> MessageOut:
    return MessageOut(
        id=m.pk,
        kind=m.kind,
        band=m.band,
        risk=m.risk,
        from_agent=m.from_agent.agent_id,
        advisory_id=m.advisory_id,
        content=m.content,
        created_at=m.created_at,
    )


def scan_out(s: ProximityScan) -> ScanOut:
    result = s.result or {}
    return ScanOut(
        repository=s.repository.name,
        scan_id=s.pk,
        profile=s.profile,
        scorer_version=s.scorer_version,
        finished_at=s.finished_at,
        generated_at=result.get("generatedAt"),
        counts=result.get("counts", {}),
        positions=result.get("positions", []),
        file_coordinates=result.get("fileCoordinates", {}),
        links=result.get("links", []),
    )


def version_out(v: TaskVersion) -> TaskVersionOut:
    return TaskVersionOut(
        task_id=v.record.task_id,
        work_version=v.work_version,
        current=v.superseded_at is None,
        scope=v.scope,
        disclosure=v.disclosure,
        objective=v.objective,
        deliverable=v.deliverable,
        acceptance=v.acceptance,
        dependencies=v.dependencies,
        purpose=v.purpose,
        plan_facts=v.plan_facts,
        plan_sketch=v.plan_sketch,
        owner=v.owner,
        space_id=v.space_id,
        created_at=v.created_at,
    )


def overlap_advisory_out(a: OverlapAdvisory) -> OverlapAdvisoryOut:
    return OverlapAdvisoryOut(
        id=a.pk,
        status=a.status,
        current=advisory_is_current(a),
        task_a=a.version_a.record.task_id,
        scope_a=a.version_a.record.scope,  # task ids are unique per scope: each side names it
        version_a=a.version_a.work_version,
        task_b=a.version_b.record.task_id,
        scope_b=a.version_b.record.scope,
        version_b=a.version_b.work_version,
        coverage=a.coverage,
        ranks=a.ranks,
        fused_rank=a.fused_rank,
        queue_rank=a.queue_rank,
        queued=a.queued,
        evidence_score=a.evidence_score,
        delivery=a.run.delivery or "shadow-only",  # runs stored before req. 70: fail closed
        features=a.features,
        evidence=a.evidence,
        created_at=a.created_at,
    )


def run_out(run: OverlapRun, principal: Principal) -> OverlapRunOut:
    unknowns = [
        {
            "reason": u.reason,
            "detail": u.detail,
            "candidate": _ref(u.candidate)
            if u.candidate and version_visible(principal, u.candidate)
            else None,
        }
        for u in run.unknowns.select_related("candidate__record")
    ]
    counts = omission_counts(run)
    visible = [
        a.queued
        for a in run.advisories.select_related("version_b")
        if version_visible(principal, a.version_b)
    ]
    return OverlapRunOut(
        task_id=run.query.record.task_id,
        scope=run.query.record.scope,
        work_version=run.query.work_version,
        status=run.status,
        coverage=run.coverage,
        policy_digest=run.policy_digest,
        policy_version=run.policy_version,
        snapshot_id=run.snapshot_id,
        pool_size=run.pool_size,
        advisories=len(visible),
        queued=sum(visible),
        held_back=len(visible) - sum(visible),
        review_budget=run.review_budget,
        evidence_model=run.evidence_model,
        delivery=run.delivery or "shadow-only",
        unknowns=unknowns,
        omitted_count=sum(counts.values()),
        omitted_by_reason=counts,
        repairs=[
            {"kind": r.kind, "reason": r.reason, "route": r.route}
            for r in run.repairrecord_set.all()
        ],
    )


def _ref(v: TaskVersion) -> str:
    return f"{v.record.task_id}@{v.work_version}"
