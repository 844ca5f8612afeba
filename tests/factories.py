"""Small typed factories for tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proximity.models import Principal, Repository
from proximity.services.tokens import principal_create, token_issue


@dataclass(frozen=True)
class Caller:
    principal: Principal
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"}


def make_caller(
    name: str, *, scopes: list[str], clearances: list[str] | None = None, kind: str = "human"
) -> Caller:
    principal = principal_create(name=name, kind=kind, scopes=scopes, clearances=clearances or [])
    raw, _ = token_issue(principal=principal, label="test")
    return Caller(principal, raw)


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
