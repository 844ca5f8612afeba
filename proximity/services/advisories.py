"""Upsert proximity advisories from a scan, acknowledge them, expire and resolve them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from proximity.exceptions import NotFoundError
from proximity.models import Agent, Principal, ProximityAdvisory, ProximityScan, WorkingSetSnapshot
from proximity.selectors.access import can_see
from proximity.services.calibration import calibrate
from proximity.services.messages import messages_for_advisory

__all__ = ["advisories_apply_scan", "advisory_acknowledge", "advisory_detail"]

LIVE = (ProximityAdvisory.State.OPEN, ProximityAdvisory.State.ACKNOWLEDGED)
_BAND = {
    "advisory": ProximityAdvisory.Band.TRAFFIC,
    "resolution": ProximityAdvisory.Band.RESOLUTION,
}


def _trend(rate: float | None) -> str:
    if rate is None or abs(rate) < 1e-6:
        return ProximityAdvisory.Trend.STEADY
    return ProximityAdvisory.Trend.CLOSING if rate > 0 else ProximityAdvisory.Trend.OPENING


def _ranges(entry: dict[str, Any]) -> dict[str, Any]:
    keep = ("lines", "baseHunks", "status", "oldPath", "excerpt")
    return {k: entry[k] for k in keep if entry.get(k) is not None}


def advisory_detail(a: WorkingSetSnapshot, b: WorkingSetSnapshot) -> dict[str, Any]:
    """Shared files with each side's ranges and diff excerpt, plus both declared intents."""
    files_b = {f["path"]: f for f in b.files}
    shared = [
        {"path": f["path"], "a": _ranges(f), "b": _ranges(files_b[f["path"]])}
        for f in a.files
        if f["path"] in files_b
    ]
    return {"sharedFiles": shared[:20], "intentA": a.intent, "intentB": b.intent}


def _fields(adv: dict[str, Any], agents: dict[str, Agent], scan: ProximityScan) -> dict[str, Any]:
    rate = adv.get("closureRate")
    risk = min(1.0, max(0.0, float(adv["risk"])))
    probability, label = calibrate(risk, profile=scan.profile, scorer_version=scan.scorer_version)
    return {
        "band": _BAND[adv["level"]],
        "risk": risk,
        "calibrated_probability": probability,
        "calibration_label": label,
        "channels": adv.get("channels", {}),
        "conflict": bool(adv.get("conflict")),
        "escalated": bool(adv.get("escalated")),
        "steer": agents.get(adv.get("steer") or ""),
        "hold": agents.get(adv.get("hold") or ""),
        "closure_rate": rate,
        "trend": _trend(rate),
        "profile": scan.profile,
        "scorer_version": scan.scorer_version,
        "last_scan": scan,
    }


def _upsert(
    scan: ProximityScan,
    adv: dict[str, Any],
    agents: dict[str, Agent],
    snaps: dict[str, WorkingSetSnapshot],
    now: datetime,
) -> tuple[ProximityAdvisory, bool]:
    a_id, b_id = sorted((adv["a"], adv["b"]))
    fields = _fields(adv, agents, scan)
    fields["detail"] = advisory_detail(snaps[a_id], snaps[b_id])
    live = ProximityAdvisory.objects.filter(
        repository_id=scan.repository_id, agent_a=agents[a_id], agent_b=agents[b_id], state__in=LIVE
    ).first()
    if live is None:
        created = ProximityAdvisory.objects.create(
            repository_id=scan.repository_id,
            agent_a=agents[a_id],
            agent_b=agents[b_id],
            first_seen=now,
            last_seen=now,
            **fields,
        )
        return created, True
    escalated = live.band == ProximityAdvisory.Band.TRAFFIC and fields["band"] == "resolution"
    for name, value in fields.items():
        setattr(live, name, value)
    live.last_seen = now
    if escalated:  # an escalation needs fresh attention, even if the Traffic one was acknowledged
        live.state, live.acknowledged_at, live.acknowledged_by = (
            ProximityAdvisory.State.OPEN,
            None,
            [],
        )
    live.save()
    return live, escalated


def advisories_apply_scan(
    *,
    scan: ProximityScan,
    result: dict[str, Any],
    snapshots: list[WorkingSetSnapshot],
    now: datetime,
) -> list[ProximityAdvisory]:
    snaps = {s.agent.agent_id: s for s in snapshots}
    agents = {s.agent.agent_id: s.agent for s in snapshots}
    seen: list[int] = []
    out = []
    for adv in result["advisories"]:
        advisory, _ = _upsert(scan, adv, agents, snaps, now)
        seen.append(advisory.pk)
        out.append(advisory)
        messages_for_advisory(advisory=advisory, now=now)
    gone = ProximityAdvisory.objects.filter(repository_id=scan.repository_id, state__in=LIVE)
    gone = gone.exclude(pk__in=seen)
    present = {a.pk for a in agents.values()}
    gone.filter(agent_a__in=present, agent_b__in=present).update(
        state=ProximityAdvisory.State.RESOLVED, resolved_at=now
    )
    gone.update(state=ProximityAdvisory.State.EXPIRED, resolved_at=now)
    return out


def advisory_acknowledge(
    *, advisory_id: int, principal: Principal, note: str = ""
) -> ProximityAdvisory:
    advisory = ProximityAdvisory.objects.select_related("repository").filter(pk=advisory_id).first()
    if advisory is None or not can_see(
        principal, advisory.repository.scope, advisory.repository.disclosure
    ):
        raise NotFoundError("advisory")
    if advisory.state not in LIVE:
        return advisory
    entry = {"by": principal.name, "at": timezone.now().isoformat(), "note": note[:500]}
    with transaction.atomic():
        # The list is rewritten whole: lock the row and append to what is stored now, or two
        # concurrent acknowledgements would each keep only their own entry.
        locked = ProximityAdvisory.objects.select_for_update().get(pk=advisory.pk)
        if locked.state not in LIVE:
            return locked
        locked.acknowledged_by = [*locked.acknowledged_by, entry]
        locked.state = ProximityAdvisory.State.ACKNOWLEDGED
        locked.acknowledged_at = locked.acknowledged_at or timezone.now()
        locked.save(update_fields=["acknowledged_by", "state", "acknowledged_at"])
    return locked
