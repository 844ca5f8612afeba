"""Each acknowledgement lands in the pair's shadow trail, stored with the other trails.

The trail logic is the engine's (``proximity.engine.trail.pairs``); this module reads the
pair's latest stored trail and the agents' current footprints, and stores the result. The
reference needs one comparable base revision for both observations; the server does not know
the other side's merge base, so both are observed at the acknowledging agent's (the base its
check was made against; docs/DECISIONS.md). Without one, no receipt is written and the
acknowledgement stands alone.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q

from proximity.engine.trail import ShadowTrailError
from proximity.engine.trail.pairs import Footprint, acknowledge_in_pair, pair_trail_id
from proximity.models import Agent, Repository, ShadowTrail
from proximity.services.trails import trail_record

__all__ = ["pair_trail_acknowledge"]

log = logging.getLogger(__name__)
_HEX40 = re.compile(r"^[0-9a-f]{40}$")


def _latest(repository: Repository, agent: Agent, other: Agent) -> tuple[int, ShadowTrail | None]:
    """The pair's latest trail and its number, in two queries however many trails it has.

    Trails are numbered from 1 without gaps (``<base>``, ``<base>:2``, ...); reading them one by
    one cost a query per earlier trail of the pair on every acknowledgement (issue 31, item 6).
    """

    def trail_id(n: int) -> str:
        return pair_trail_id(repository.name, agent.agent_id, other.agent_id, n)

    base = trail_id(1)
    pair = Q(trail_id=base) | Q(trail_id__startswith=f"{base}:")
    stored = set(ShadowTrail.objects.filter(pair).values_list("trail_id", flat=True))
    n = 0
    while trail_id(n + 1) in stored:
        n += 1
    if n == 0:
        return 1, None
    return n, ShadowTrail.objects.get(trail_id=trail_id(n))


def _writes(agent: Agent) -> list[str]:
    snapshot = agent.snapshots.order_by("-version").first()
    return [str(f["path"]) for f in (snapshot.files if snapshot else [])]


def pair_trail_acknowledge(
    *,
    repository: Repository,
    agent: Agent,
    other: Agent,
    paths: list[str],
    base_revision: str | None,
    now: datetime,
) -> ShadowTrail | None:
    """Append ``agent``'s acknowledgement to the pair's trail; ``None`` when none was written."""
    if not base_revision or not _HEX40.match(base_revision):
        log.info("no trail for %s..%s: no base revision", agent.agent_id, other.agent_id)
        return None
    mine = paths or _writes(agent)
    written = _writes(other)
    theirs = [p for p in written if p in set(mine)] or written
    n, stored = _latest(repository, agent, other)
    try:
        document = acknowledge_in_pair(
            json.loads(stored.document) if stored is not None else None,
            n,
            repository=repository.name,
            agent=Footprint(agent.agent_id, agent.label, mine),
            other=Footprint(other.agent_id, other.label, theirs),
            base_revision=base_revision,
            now=now,
            ttl=timedelta(seconds=settings.OVERLAP_EDIT_ACK_TTL_SECONDS),
        )
    except ShadowTrailError as exc:
        log.info("no trail receipt for %s..%s: %s", agent.agent_id, other.agent_id, exc.reason)
        return None
    return trail_record(repository=repository, document=document)
