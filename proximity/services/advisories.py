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
from proximity.services.messages import messages_for_advisories

__all__ = ["advisories_apply_scan", "advisory_acknowledge", "advisory_detail"]

LIVE = (ProximityAdvisory.State.OPEN, ProximityAdvisory.State.ACKNOWLEDGED)


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
    probability, label = calibrate(
        risk,
        profile=scan.profile,
        scorer_version=scan.scorer_version,
        channels=adv.get("channels") or {},
    )
    return {
        "band": ProximityAdvisory.Band.of_level(adv["level"]),
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


Pair = tuple[int, int]  # (agent_a pk, agent_b pk), agent ids sorted
_UPDATED = [
    *("band", "risk", "calibrated_probability", "calibration_label", "channels", "conflict"),
    *("escalated", "steer", "hold", "closure_rate", "trend", "profile", "scorer_version"),
    *("last_scan", "detail", "last_seen", "state", "acknowledged_at", "acknowledged_by"),
]


def _live(scan: ProximityScan, agents: dict[str, Agent]) -> dict[Pair, ProximityAdvisory]:
    """The live advisories among the scanned agents, in one query, by pair.

    Locked until the scan's transaction ends: the bulk update below rewrites every field, so an
    acknowledgement (which locks its row too) must land before this read or after the write.
    """
    present = [a.pk for a in agents.values()]
    rows = ProximityAdvisory.objects.select_for_update().filter(
        repository_id=scan.repository_id,
        state__in=LIVE,
        agent_a_id__in=present,
        agent_b_id__in=present,
    )
    return {(a.agent_a_id, a.agent_b_id): a for a in rows}


def _refresh(live: ProximityAdvisory, fields: dict[str, Any], now: datetime) -> None:
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


def _upserts(
    scan: ProximityScan,
    found: list[dict[str, Any]],
    agents: dict[str, Agent],
    snaps: dict[str, WorkingSetSnapshot],
    now: datetime,
) -> tuple[list[ProximityAdvisory], list[ProximityAdvisory], list[ProximityAdvisory]]:
    """(all in result order, new ones, changed ones); one live advisory per pair."""
    live = _live(scan, agents)
    out, new, changed = [], [], []
    for adv in found:
        a_id, b_id = sorted((adv["a"], adv["b"]))
        fields = _fields(adv, agents, scan)
        fields["detail"] = advisory_detail(snaps[a_id], snaps[b_id])
        if adv.get("symbols"):  # the symbol channel's evidence: symbols and lines on each side
            fields["detail"]["symbols"] = adv["symbols"]
        if adv.get("mergeCheck"):  # checked (when, what) / checking / not checked
            fields["detail"]["mergeCheck"] = adv["mergeCheck"]
        pair = (agents[a_id].pk, agents[b_id].pk)
        advisory = live.get(pair)
        if advisory is None:
            advisory = live[pair] = ProximityAdvisory(
                repository=scan.repository,
                agent_a=agents[a_id],
                agent_b=agents[b_id],
                first_seen=now,
                last_seen=now,
                **fields,
            )
            new.append(advisory)
        else:
            # The same rows as the pair's keys: messages read agent ids without a query.
            advisory.agent_a, advisory.agent_b = agents[a_id], agents[b_id]
            _refresh(advisory, fields, now)
            if advisory.pk is not None:
                changed.append(advisory)
        out.append(advisory)
    return out, new, list(dict.fromkeys(changed))


def advisories_apply_scan(
    *,
    scan: ProximityScan,
    result: dict[str, Any],
    snapshots: list[WorkingSetSnapshot],
    now: datetime,
) -> list[ProximityAdvisory]:
    """Upsert the scan's advisories, message them, resolve or expire the rest.

    A fixed number of queries however many advisories the scan found (issue 16, item 4).
    """
    snaps = {s.agent.agent_id: s for s in snapshots}
    agents = {s.agent.agent_id: s.agent for s in snapshots}
    out, new, changed = _upserts(scan, result["advisories"], agents, snaps, now)
    ProximityAdvisory.objects.bulk_create(new)
    ProximityAdvisory.objects.bulk_update(changed, _UPDATED)
    messages_for_advisories(advisories=out, now=now)
    gone = ProximityAdvisory.objects.filter(repository_id=scan.repository_id, state__in=LIVE)
    gone = gone.exclude(pk__in=[a.pk for a in out])
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
