"""An agent the server's check tells to steer is waiting on the radar, not idle.

Right of way parks an agent a week after its last change (docs/DECISIONS.md, "A parked branch
yields"); an agent that asked to edit and was told to steer away made no change because it
obeyed. The server's check records that ask (``Agent.asked_at``), as the local hook records its
denials, so the scan, the board and every later check read the same right of way
(docs/DECISIONS.md, "Waiting on the radar is not idleness").
"""

from __future__ import annotations

from datetime import datetime

from proximity.engine.findings import CheckResult
from proximity.models import Agent, Principal

__all__ = ["agent_asked"]


def agent_asked(
    *, principal: Principal, repository: str, result: CheckResult, now: datetime
) -> bool:
    """Record ``now`` as the asker's last denied edit when the check tells it to steer (an
    unacknowledged Resolution it does not hold); only for an agent bound to the caller, so no
    token can keep another's agent from parking. True when recorded."""
    if not any(f.must_steer(result.agent) for f in result.findings):
        return False
    agent = Agent.objects.filter(
        repository__name=repository, agent_id=result.agent, principal=principal
    ).first()
    if agent is None:
        return False
    # No scan is requested here (a check is on an agent's hot path): the ask is part of the
    # scan's input key (selectors/airspace.py), so the sweep re-scores the board with it.
    Agent.objects.filter(pk=agent.pk).update(asked_at=now)
    return True
