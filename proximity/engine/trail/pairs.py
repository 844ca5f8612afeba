"""One pair's trail of acknowledgements: the observation, its advisory, then one receipt per agent.

Shared by the server (trails stored in the database) and the agent side (trails kept in the
local state folder): both hand in the two agents' footprints and get back the trail with the
acknowledgement appended, starting a new trail of the pair when the current one cannot take it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from proximity.engine.trail.api import append_acknowledgement, create_shadow_trail
from proximity.engine.trail.canonical import js_sorted
from proximity.engine.trail.errors import ShadowTrailError

__all__ = ["Footprint", "acknowledge_in_pair", "pair_trail_id", "trail_identifier"]

_BAD = re.compile(r"[^a-zA-Z0-9_.:-]")
_MAX_PATHS = 32


def trail_identifier(text: str) -> str:
    """``text`` as a trail identifier (``[a-zA-Z0-9][a-zA-Z0-9_.:-]*``): "/" becomes "-"."""
    clean = _BAD.sub("-", text)
    return (clean if clean[:1].isalnum() else f"x{clean}")[:120]


def pair_trail_id(repository: str, a: str, b: str, n: int = 1) -> str:
    """``<repository>:<a>..<b>`` with the ids sorted (``..`` never occurs in a ref name)."""
    first, second = sorted((trail_identifier(a), trail_identifier(b)))
    base = f"{trail_identifier(repository)}:{first}..{second}"[:110]
    return base if n == 1 else f"{base}:{n}"


def _at(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Footprint:
    """What one agent writes, as the reference observes it (at most 32 paths, else incomplete)."""

    def __init__(self, agent_id: str, task: str, writes: Sequence[str]) -> None:
        self.agent_id, self.task = agent_id, task
        self.writes = [p for p in dict.fromkeys(writes) if 0 < len(p) <= 256 and "\\" not in p]

    def observation(
        self, repository: str, base: str, now: datetime, ttl: timedelta
    ) -> dict[str, Any]:
        return {
            "agentId": trail_identifier(self.agent_id),
            "taskId": trail_identifier(self.task or self.agent_id),
            "repoId": trail_identifier(repository),
            "baseRevision": base,
            "scopeRevision": 1,
            "footprint": "complete" if len(self.writes) <= _MAX_PATHS else "incomplete",
            "readPaths": [],
            "writePaths": js_sorted(self.writes[:_MAX_PATHS]),
            "observedAt": _at(now),
            "expiresAt": _at(now + ttl),
        }


def _ack(trail: dict[str, Any], agent_id: str, now: datetime) -> dict[str, Any]:
    receipt = f"{trail['trailId']}:ack-{len(trail['receipts'])}"
    return append_acknowledgement(
        trail, id=receipt, agent_id=trail_identifier(agent_id), scope_revision=1, at=_at(now)
    )


def acknowledge_in_pair(
    latest: dict[str, Any] | None,
    n: int,
    *,
    repository: str,
    agent: Footprint,
    other: Footprint,
    base_revision: str,
    now: datetime,
    ttl: timedelta,
) -> dict[str, Any]:
    """The trail holding ``agent``'s acknowledgement: ``latest`` (trail number ``n``) extended,
    or trail ``n + 1`` (``n`` when there is none yet) started from both footprints.

    Raises
    ------
    ShadowTrailError
        When even a new trail refuses (the reference acknowledges only an ``advisory`` state:
        footprints that share no path and score low are "no-advisory-in-scope").
    """
    if latest is not None:
        try:
            return _ack(latest, agent.agent_id, now)
        except ShadowTrailError:
            n += 1
    observations = sorted(
        [f.observation(repository, base_revision, now, ttl) for f in (agent, other)],
        key=lambda o: str(o["agentId"]),
    )
    trail_id = pair_trail_id(repository, agent.agent_id, other.agent_id, n)
    fresh = create_shadow_trail(trail_id=trail_id, observations=observations, at=_at(now))
    return _ack(fresh, agent.agent_id, now)
