"""Small typed factories for tests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone

from proximity.models import Agent, Principal, ProximityAdvisory, Repository, TriggerMessage
from proximity.services.tokens import agent_bind, principal_create, token_issue


@dataclass(frozen=True)
class Caller:
    principal: Principal
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"}


def make_caller(
    name: str,
    *,
    scopes: list[str],
    clearances: list[str] | None = None,
    kind: str = "human",
    lead_scopes: list[str] | None = None,
    creates_agents: bool = False,
) -> Caller:
    """A principal with a token; ``lead_scopes`` gives it the lead role there (may revise any
    task it can see in those scopes); ``creates_agents`` lets it report under ids nobody was
    issued (without it, bind ids with ``bind_agent``)."""
    principal = principal_create(
        name=name,
        kind=kind,
        scopes=scopes,
        clearances=clearances or [],
        creates_agents=creates_agents,
    )
    if lead_scopes:
        principal.lead_scopes = sorted(lead_scopes)
        principal.save(update_fields=["lead_scopes"])
    raw, _ = token_issue(principal=principal, label="test")
    return Caller(principal, raw)


def bind_agents(caller: Caller, repository: str, *agent_ids: str) -> Caller:
    """Issue these agent ids to the caller, as ``tokens issue --agent REPOSITORY:ID`` does."""
    for agent_id in agent_ids:
        agent_bind(principal=caller.principal, repository=repository, agent_id=agent_id)
    return caller


REPOSITORY_PERMISSIONS = ("add_repository", "delete_repository")


def make_staff_caller(
    name: str,
    *,
    scopes: list[str],
    permissions: tuple[str, ...] = REPOSITORY_PERMISSIONS,
    **extra: Any,
) -> Caller:
    """A caller linked to an active staff user holding these ``proximity`` model permissions
    (by default what the admin requires to add and remove repositories)."""
    caller = make_caller(name, scopes=scopes, **extra)
    user = get_user_model().objects.create_user(f"u-{name}", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="proximity", codename__in=permissions)
    )
    caller.principal.user = user
    caller.principal.save(update_fields=["user"])
    return caller


def make_repository(name: str = "web", *, scope: str = "team-a", **fields: Any) -> Repository:
    return Repository.objects.create(name=name, scope=scope, **fields)


def file_entry(path: str, lines: list[list[int]] | None = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, **extra}
    if lines is not None:
        entry["lines"] = lines
        entry.setdefault("baseHunks", [[s, e - s + 1] for s, e in lines])
    return entry


def working_set(repository: str, agent_id: str, files: list[dict[str, Any]], **extra: Any) -> dict:
    return {"repository": repository, "agentId": agent_id, "files": files, **extra}


def make_inbox(to_agent: Agent, from_agent: Agent, count: int) -> list[TriggerMessage]:
    """``count`` pending messages to ``to_agent``, oldest first, under the pair's advisory."""
    now = timezone.now()
    advisory, _ = ProximityAdvisory.objects.get_or_create(
        repository=to_agent.repository,
        agent_a=to_agent,
        agent_b=from_agent,
        defaults={
            "band": "traffic",
            "risk": 0.4,
            "profile": "radar-v1",
            "scorer_version": "t",
            "first_seen": now,
            "last_seen": now,
        },
    )
    return [
        TriggerMessage.objects.create(
            advisory=advisory,
            to_agent=to_agent,
            from_agent=from_agent,
            kind=TriggerMessage.Kind.TRANSMIT,
            band="traffic",
            risk=0.4,
            content=f"message {n}",
            created_at=now + timedelta(milliseconds=n),
        )
        for n in range(count)
    ]
