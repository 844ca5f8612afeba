"""Trigger messages for advisories, with a persisted cooldown that an escalation bypasses."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from proximity.engine.airspace import build_triggers
from proximity.models import Agent, ProximityAdvisory, TriggerCooldown, TriggerMessage

__all__ = ["messages_for_advisory", "messages_take_pending"]


def _engine_advisory(advisory: ProximityAdvisory) -> dict[str, object]:
    resolution = advisory.band == ProximityAdvisory.Band.RESOLUTION
    return {
        "a": advisory.agent_a.agent_id,
        "b": advisory.agent_b.agent_id,
        "level": "resolution" if resolution else "advisory",
        "risk": advisory.risk,
        "steer": advisory.steer.agent_id if resolution and advisory.steer else None,
        "hold": advisory.hold.agent_id if resolution and advisory.hold else None,
        "conflict": advisory.conflict,
    }


def _cooled(to: Agent, frm: Agent, kind: str, band: str, now: datetime) -> bool:
    """True when a message of this key was sent within the cooldown in the same band."""
    window = timedelta(seconds=settings.OVERLAP_TRIGGER_COOLDOWN_SECONDS)
    last = TriggerCooldown.objects.filter(to_agent=to, from_agent=frm, kind=kind).first()
    # An escalation (Traffic -> Resolution) is never suppressed by a Traffic-era cooldown.
    return last is not None and last.band == band and now - last.last_fired_at < window


def messages_for_advisory(*, advisory: ProximityAdvisory, now: datetime) -> list[TriggerMessage]:
    agents = {
        advisory.agent_a.agent_id: advisory.agent_a,
        advisory.agent_b.agent_id: advisory.agent_b,
    }
    sent = []
    for trig in build_triggers([_engine_advisory(advisory)]):
        to, frm = agents[trig["to"]], agents[trig["from"]]
        if _cooled(to, frm, trig["type"], advisory.band, now):
            continue
        sent.append(
            TriggerMessage.objects.create(
                advisory=advisory,
                to_agent=to,
                from_agent=frm,
                kind=trig["type"],
                band=advisory.band,
                risk=trig["risk"],
                content=trig["content"],
                created_at=now,
            )
        )
        TriggerCooldown.objects.update_or_create(
            to_agent=to,
            from_agent=frm,
            kind=trig["type"],
            defaults={"band": advisory.band, "last_fired_at": now},
        )
    if sent and advisory.repository.webhook_url:
        ids = [m.pk for m in sent]
        transaction.on_commit(lambda: _push(ids))
    return sent


def _push(message_ids: list[int]) -> None:
    from proximity.tasks import deliver_webhook

    for pk in message_ids:
        deliver_webhook.delay(pk)


def messages_take_pending(*, agent: Agent, now: datetime, limit: int = 100) -> list[TriggerMessage]:
    """Pending messages for an agent, marked delivered (agents poll this)."""
    pending = list(
        TriggerMessage.objects.filter(to_agent=agent, delivered_at__isnull=True)
        .select_related("from_agent")
        .order_by("created_at", "pk")[:limit]
    )
    TriggerMessage.objects.filter(pk__in=[m.pk for m in pending]).update(delivered_at=now)
    return pending
