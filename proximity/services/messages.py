"""Trigger messages for advisories, with a persisted cooldown that an escalation bypasses."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from proximity.engine.airspace import build_triggers
from proximity.models import Agent, ProximityAdvisory, TriggerCooldown, TriggerMessage

__all__ = ["messages_claim_pending", "messages_for_advisory"]


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


def messages_claim_pending(
    *, agent: Agent, now: datetime, limit: int = 100
) -> list[TriggerMessage]:
    """The agent's oldest pending messages, each handed to exactly one poll (then delivered).

    Delivery is at most once: messages claimed by a poll whose answer is lost on the way stay
    delivered; two polls never both receive one.
    """
    claim = secrets.token_hex(16)
    oldest = (
        TriggerMessage.objects.filter(to_agent=agent, delivered_at__isnull=True)
        .order_by("created_at", "pk")
        .values("pk")[:limit]
    )
    # One conditional UPDATE is the claim. Two polls may pick the same oldest ids in the
    # subquery; the first to write locks those rows, the second waits on the row locks, and on
    # PostgreSQL (READ COMMITTED) re-checks its WHERE against the committed row once the first
    # commits: delivered_at is no longer NULL, so it skips the row. SQLite runs one writer at a
    # time. Either way each row carries the token of exactly one poll.
    TriggerMessage.objects.filter(pk__in=oldest, delivered_at__isnull=True).update(
        delivered_at=now, delivery_claim=claim
    )
    return list(
        TriggerMessage.objects.filter(delivery_claim=claim)
        .select_related("from_agent")
        .order_by("created_at", "pk")
    )
