"""Reads of repositories, proximity advisories and scans, filtered by the viewer's scopes."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, QuerySet

from proximity.models import Agent, Principal, ProximityAdvisory, Repository
from proximity.selectors.access import can_see, visible_labels_q, visible_scopes

__all__ = [
    "advisory_get",
    "advisory_list",
    "inbox_agent_get",
    "repository_get",
    "repository_list",
]


def repository_list(principal: Principal | None) -> list[Repository]:
    rows = Repository.objects.filter(scope__in=visible_scopes(principal)).annotate(
        agent_count=Count("agents")
    )
    return [r for r in rows.order_by("name") if can_see(principal, r.scope, r.disclosure)]


def repository_get(principal: Principal | None, name: str) -> Repository | None:
    repo = Repository.objects.filter(name=name).first()
    return repo if repo is not None and can_see(principal, repo.scope, repo.disclosure) else None


def _visible_repositories(principal: Principal | None) -> QuerySet[Repository]:
    return Repository.objects.filter(visible_labels_q(principal, Repository))


def advisory_list(
    principal: Principal | None,
    *,
    repository: str | None = None,
    band: str | None = None,
    state: str | None = None,
    agent: str | None = None,
    since: datetime | None = None,
) -> QuerySet[ProximityAdvisory]:
    rows = ProximityAdvisory.objects.filter(repository_id__in=_visible_repositories(principal))
    if repository:
        rows = rows.filter(repository__name=repository)
    if band:
        rows = rows.filter(band=band)
    if state:
        rows = rows.filter(state=state)
    if agent:
        rows = rows.filter(agent_a__agent_id=agent) | rows.filter(agent_b__agent_id=agent)
    if since:
        rows = rows.filter(last_seen__gte=since)
    return rows.select_related("repository", "agent_a", "agent_b", "steer", "hold").order_by(
        "-last_seen", "-risk", "pk"
    )


def advisory_get(principal: Principal | None, advisory_id: int) -> ProximityAdvisory | None:
    return advisory_list(principal).filter(pk=advisory_id).first()


def inbox_agent_get(principal: Principal | None, repository: str, agent_id: str) -> Agent | None:
    """The agent whose inbox ``principal`` may read: its own, bound by report or token issue.

    Reading an inbox consumes it, so nobody else may, not even a person holding the scope; an
    agent bound to no principal (one only the watcher reported) has no reader through the API.
    """
    repo = repository_get(principal, repository)
    if principal is None or repo is None:
        return None
    return Agent.objects.filter(repository=repo, agent_id=agent_id, principal=principal).first()
