"""Which agent row a report or an acknowledgement writes under: identities are issued, not claimed.

A token reports only the agent ids bound to its principal (``tokens issue --agent``). An id
held by another principal (the repository's watcher included) answers 404 as a missing one; an
id nobody holds yet is taken only by a principal with
the explicit right to create agents (``Principal.creates_agents``, granted by the operator with
``tokens issue --create-agents``); anyone else gets a 403 naming ``agentId`` and nothing is stored.
Before, the first principal to report an id owned it, so any token could mint ``main`` or a
phantom holding every line of a file (issue 31, item 3).
"""

from __future__ import annotations

from proximity.exceptions import ForbiddenError, NotFoundError
from proximity.models import Agent, Principal, Repository

__all__ = ["may_create_agents", "reporting_agent"]


def may_create_agents(principal: Principal | None) -> bool:
    # principal None is the trusted in-process watcher, which binds to its own principal.
    return principal is None or (principal.is_active and principal.creates_agents)


def reporting_agent(
    *, principal: Principal | None, repository: Repository, agent_id: str, owner: Principal | None
) -> Agent:
    """The agent row, locked, that ``principal`` may write under; created or bound if allowed.

    ``owner`` is who an agent created by the watcher (``principal`` None) is bound to. Call
    inside a transaction: the row lock orders concurrent reports of one agent.
    """
    rows = Agent.objects.select_for_update(no_key=True)
    agent = rows.filter(repository=repository, agent_id=agent_id).first()
    if agent is not None and (principal is None or agent.principal_id == principal.pk):
        return agent
    if agent is not None and agent.principal_id is not None:
        raise NotFoundError("agent")  # another principal's agent: as if it did not exist
    if not may_create_agents(principal):
        raise ForbiddenError(
            f"agent id {agent_id!r} was not issued to this token "
            "(the operator binds it: manage.py tokens issue PRINCIPAL --agent REPOSITORY:ID)",
            field="agentId",
        )
    if agent is None:
        agent, _ = rows.get_or_create(
            repository=repository, agent_id=agent_id, defaults={"principal": principal or owner}
        )
    if principal is not None and agent.principal_id != principal.pk:
        # A conditional update: of two creators racing for one free id, one wins.
        Agent.objects.filter(pk=agent.pk, principal__isnull=True).update(principal=principal)
        agent.refresh_from_db(fields=["principal"])
        if agent.principal_id != principal.pk:
            raise NotFoundError("agent")
    return agent
