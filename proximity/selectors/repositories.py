"""Repositories as an operator on the server sees them: all of them, no scope filter.

For the command line only; API and board reads go through ``selectors.advisories``, which
filter by the viewer's scopes.
"""

from __future__ import annotations

from django.db.models import Count

from proximity.models import Repository

__all__ = ["repository_named", "repository_rows"]


def repository_rows() -> list[Repository]:
    return list(Repository.objects.annotate(agent_count=Count("agents")).order_by("name"))


def repository_named(name: str) -> Repository | None:
    return Repository.objects.annotate(agent_count=Count("agents")).filter(name=name).first()
