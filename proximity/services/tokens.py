"""Issue and revoke API tokens; only the SHA-256 digest is stored."""

from __future__ import annotations

import secrets

from django.db.models import Q
from django.utils import timezone

from proximity.exceptions import ConflictError, InvalidInputError, NotFoundError
from proximity.models import Agent, ApiToken, Principal, Repository
from proximity.selectors.access import can_see, token_digest, watcher_name

__all__ = ["agent_bind", "principal_create", "token_issue", "token_revoke"]


def principal_create(
    *,
    name: str,
    kind: str = Principal.Kind.HUMAN,
    scopes: list[str],
    clearances: list[str],
    creates_agents: bool = False,
) -> Principal:
    """``creates_agents``: may report under agent ids nobody was issued (agent_identity.py)."""
    return Principal.objects.create(
        name=name,
        kind=kind,
        scopes=sorted(set(scopes)),
        clearances=sorted(set(clearances)),
        creates_agents=creates_agents,
    )


def token_issue(*, principal: Principal, label: str = "") -> tuple[str, ApiToken]:
    """Return the raw token (shown once) and its stored record."""
    raw = "orad_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        principal=principal, digest=token_digest(raw), prefix=raw[:12], label=label
    )
    return raw, token


def token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def agent_bind(*, principal: Principal, repository: str, agent_id: str) -> Agent:
    """Bind an agent id to ``principal`` (creating the agent if missing), for good.

    Only the bound principal may then report under the id and read its inbox, which is how one
    token per agent keeps agents from reading each other's messages. An agent already bound to
    another principal stays theirs.
    """
    repo = Repository.objects.filter(name=repository).first()
    if repo is None:
        raise NotFoundError("repository")
    if not can_see(principal, repo.scope, repo.disclosure):
        raise InvalidInputError(
            f"{principal.name} cannot see repository {repo.name} (scope {repo.scope})",
            field="scope",
        )
    agent, _ = Agent.objects.get_or_create(
        repository=repo, agent_id=agent_id, defaults={"principal": principal}
    )
    # A conditional update binds an agent held by no one or by the repository's watcher: of two
    # issuers racing for it, one wins.
    free = Q(principal__isnull=True) | Q(principal__name=watcher_name(repo.name))
    Agent.objects.filter(free, pk=agent.pk).update(principal=principal)
    agent.refresh_from_db(fields=["principal"])
    if agent.principal_id != principal.pk:
        raise ConflictError(f"agent {agent_id} of {repo.name} is bound to another principal")
    return agent
