"""Model rows to response schemas (kept out of routes so each route stays a few lines)."""

from __future__ import annotations

from proximity.api.schemas import AdvisoryOut, MessageOut, ScanOut
from proximity.models import ProximityAdvisory, ProximityScan, TriggerMessage

__all__ = ["advisory_out", "message_out", "scan_out"]


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
