"""Trigger messages for advisories, with a persisted cooldown that an escalation bypasses."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from proximity.engine.airspace import build_triggers
from proximity.models import Agent, ProximityAdvisory, Repository, TriggerCooldown, TriggerMessage
from proximity.services.enqueue import WEBHOOK, enqueue

__all__ = ["messages_claim_pending", "messages_for_advisories", "messages_for_advisory"]


def _engine_advisory(advisory: ProximityAdvisory) -> dict[str, object]:
    resolution = advisory.band == ProximityAdvisory.Band.RESOLUTION
    return {
        "a": advisory.agent_a.agent_id,
        "b": advisory.agent_b.agent_id,
        "level": ProximityAdvisory.Band(advisory.band).level,
        "risk": advisory.risk,
        "steer": advisory.steer.agent_id if resolution and advisory.steer else None,
        "hold": advisory.hold.agent_id if resolution and advisory.hold else None,
        "conflict": advisory.conflict,
    }


CooldownKey = tuple[int, int, str]  # (to agent pk, from agent pk, kind)


def _cooldowns(keys: set[CooldownKey]) -> dict[CooldownKey, TriggerCooldown]:
    """The stored cooldowns of ``keys``, in one query (a superset is read, then narrowed)."""
    if not keys:
        return {}
    rows = TriggerCooldown.objects.filter(
        to_agent_id__in={k[0] for k in keys},
        from_agent_id__in={k[1] for k in keys},
        kind__in={k[2] for k in keys},
    )
    found = {(c.to_agent_id, c.from_agent_id, c.kind): c for c in rows}
    return {k: c for k, c in found.items() if k in keys}


def _cooled(last: TriggerCooldown | None, band: str, now: datetime) -> bool:
    """True when a message of this key was sent within the cooldown in the same band."""
    window = timedelta(seconds=settings.OVERLAP_TRIGGER_COOLDOWN_SECONDS)
    # An escalation (Traffic -> Resolution) is never suppressed by a Traffic-era cooldown.
    return last is not None and last.band == band and now - last.last_fired_at < window


def _planned(
    advisories: list[ProximityAdvisory],
) -> list[tuple[ProximityAdvisory, Agent, Agent, dict[str, Any]]]:
    out: list[tuple[ProximityAdvisory, Agent, Agent, dict[str, Any]]] = []
    for advisory in advisories:
        agents = {
            advisory.agent_a.agent_id: advisory.agent_a,
            advisory.agent_b.agent_id: advisory.agent_b,
        }
        triggers = build_triggers([_engine_advisory(advisory)])
        out.extend((advisory, agents[t["to"]], agents[t["from"]], t) for t in triggers)
    return out


def messages_for_advisories(
    *, advisories: list[ProximityAdvisory], now: datetime
) -> list[TriggerMessage]:
    """The trigger messages of many advisories in a fixed number of queries, in advisory order.

    Cooldowns are read once and kept current in memory as messages are planned, so a key that
    fires twice in one call is suppressed the second time, as when each was written at once.
    """
    planned = _planned(advisories)
    cooldowns = _cooldowns({(to.pk, frm.pk, trig["type"]) for _, to, frm, trig in planned})
    sent: list[TriggerMessage] = []
    fired: dict[CooldownKey, TriggerCooldown] = {}
    for advisory, to, frm, trig in planned:
        key = (to.pk, frm.pk, trig["type"])
        if _cooled(cooldowns.get(key), advisory.band, now):
            continue
        sent.append(_message(advisory, to, frm, trig, now))
        fired[key] = cooldowns[key] = TriggerCooldown(
            to_agent=to, from_agent=frm, kind=key[2], band=advisory.band, last_fired_at=now
        )
    if not sent:
        return []
    TriggerMessage.objects.bulk_create(sent)
    # One upsert on the (to, from, kind) key; concurrent scans of one repository are serialised
    # by the repository row lock, so the last writer is the latest scan.
    TriggerCooldown.objects.bulk_create(
        list(fired.values()),
        update_conflicts=True,
        unique_fields=["to_agent", "from_agent", "kind"],
        update_fields=["band", "last_fired_at"],
    )
    _enqueue_webhooks(sent)
    return sent


def _message(
    advisory: ProximityAdvisory, to: Agent, frm: Agent, trig: dict[str, Any], now: datetime
) -> TriggerMessage:
    return TriggerMessage(
        advisory=advisory,
        to_agent=to,
        from_agent=frm,
        kind=trig["type"],
        band=advisory.band,
        risk=trig["risk"],
        content=trig["content"],
        created_at=now,
    )


def _enqueue_webhooks(sent: list[TriggerMessage]) -> None:
    repo_ids = {m.advisory.repository_id for m in sent}
    hooked = set(
        Repository.objects.filter(pk__in=repo_ids)
        .exclude(webhook_url="")
        .values_list("pk", flat=True)
    )
    ids = [m.pk for m in sent if m.advisory.repository_id in hooked]
    if ids:
        transaction.on_commit(lambda: _push(ids))


def messages_for_advisory(*, advisory: ProximityAdvisory, now: datetime) -> list[TriggerMessage]:
    return messages_for_advisories(advisories=[advisory], now=now)


def _push(message_ids: list[int]) -> None:
    for pk in message_ids:
        enqueue(WEBHOOK, pk)


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
