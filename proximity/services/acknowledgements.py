"""An agent acknowledges its encounter with another: stored, and appended to the pair's trail.

After a pre-edit denial the agent runs ``radar ack OTHER`` (or the MCP tool); from then until
the acknowledgement expires, its edits near OTHER are allowed. A live Resolution or Traffic
Advisory of the pair is acknowledged too, and the pair's shadow trail gets the receipt.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from proximity.exceptions import NotFoundError
from proximity.models import Agent, EditAcknowledgement, Principal, ProximityAdvisory
from proximity.selectors.edit_checks import visible_agent
from proximity.services.advisories import advisory_acknowledge
from proximity.services.agent_identity import reporting_agent
from proximity.services.pair_trails import pair_trail_acknowledge
from proximity.services.repositories import repository_writable

__all__ = ["edit_acknowledge"]

log = logging.getLogger(__name__)
_LIVE = (ProximityAdvisory.State.OPEN, ProximityAdvisory.State.ACKNOWLEDGED)


def _live_advisory(agent: Agent, other: Agent) -> ProximityAdvisory | None:
    a, b = sorted((agent, other), key=lambda x: x.agent_id)
    return ProximityAdvisory.objects.filter(agent_a=a, agent_b=b, state__in=_LIVE).first()


def edit_acknowledge(
    *,
    principal: Principal,
    repository: str,
    agent_id: str,
    other_id: str,
    paths: list[str],
    base_revision: str | None,
    note: str,
    now: datetime,
) -> EditAcknowledgement:
    """Store the acknowledgement, under an agent id issued to the caller (agent_identity)."""
    repo, agent = visible_agent(principal, repository, agent_id)
    repository_writable(repo)
    other = Agent.objects.filter(repository=repo, agent_id=other_id).first()
    if other is None or other_id == agent_id:
        raise NotFoundError("other agent")
    with transaction.atomic():
        # Both agents' rows, in primary-key order, before the pair's trail is read: concurrent
        # acknowledgements of one pair (from either side) then append one after the other, and
        # none is lost from the trail (issue 31, item 6). The order rules out a deadlock.
        pair = [other.pk] + ([agent.pk] if agent is not None else [])
        list(Agent.objects.select_for_update(no_key=True).filter(pk__in=pair).order_by("pk"))
        agent = reporting_agent(principal=principal, repository=repo, agent_id=agent_id, owner=None)
        advisory = _live_advisory(agent, other)
        ack = EditAcknowledgement.objects.create(
            repository=repo,
            agent=agent,
            other=other,
            principal=principal,
            advisory=advisory,
            note=note[:500],
            created_at=now,
            expires_at=now + timedelta(seconds=settings.OVERLAP_EDIT_ACK_TTL_SECONDS),
        )
        if advisory is not None:
            advisory_acknowledge(advisory_id=advisory.pk, principal=principal, note=note)
        pair_trail_acknowledge(
            repository=repo,
            agent=agent,
            other=other,
            paths=paths,
            base_revision=base_revision,
            now=now,
        )
    return ack
