"""Who may see what: one visibility rule for API, board, admin and advisories."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from django.db.models import Model, Q
from django.utils import timezone

from proximity.engine.overlap import AccessLabels, Viewer, is_visible
from proximity.models import ApiToken, Principal

__all__ = [
    "can_see",
    "holds_permission",
    "is_staff_user",
    "principal_for_token",
    "token_digest",
    "viewer_of",
    "viewer_sees",
    "visible_labels_q",
    "visible_scopes",
    "watcher_name",
]


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def principal_for_token(raw: str) -> Principal | None:
    if not raw or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("principal")
        .filter(digest=token_digest(raw), revoked_at__isnull=True, principal__is_active=True)
        .first()
    )
    if token is None:
        return None
    # Touch at most once a minute so every request does not write.
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.principal


def can_see(principal: Principal | None, scope: str, disclosure: Iterable[str] = ()) -> bool:
    """The project's one visibility rule (the engine's ``is_visible``), for stored rows."""
    if principal is None or not principal.is_active:
        return False
    return viewer_sees(viewer_of(principal), scope, disclosure)


def viewer_of(principal: Principal) -> Viewer:
    """The engine's viewer for a principal: the one place the two are mapped."""
    return Viewer(principal.name, frozenset(principal.scopes), frozenset(principal.clearances))


def viewer_sees(viewer: Viewer, scope: str | None, disclosure: Iterable[str] | None = ()) -> bool:
    """The same rule for a viewer already built (many rows checked for one principal)."""
    return is_visible(AccessLabels(scope or None, frozenset(disclosure or ())), viewer)


def visible_scopes(principal: Principal | None) -> Sequence[str]:
    return list(principal.scopes) if principal is not None and principal.is_active else []


def is_staff_user(user: object) -> bool:
    """An active user the admin lets in (``is_staff``): who may read operational details."""
    return bool(getattr(user, "is_active", False) and getattr(user, "is_staff", False))


def holds_permission(principal: Principal | None, permission: str) -> bool:
    """What the admin requires for the same write: an active staff user holding ``permission``.

    ``permission`` is a Django model permission (``proximity.add_repository``), so whoever may
    add a repository in the admin may do it through the API and nobody else: the staff flag
    alone (every adjudicator has it, to reach the desk) grants no write, and no token gains one
    by the kind it was issued with (docs/DECISIONS.md).
    """
    if principal is None or not principal.is_active or principal.user is None:
        return False
    user = principal.user
    return user.is_active and user.is_staff and user.has_perm(permission)


def watcher_name(repository: str) -> str:
    """The principal that holds the agents a repository's watcher found (``watcher-<name>``).

    Repository names are slugs, so this is a valid principal name; ``tokens issue --agent``
    may take an agent over from it, as from no one.
    """
    return f"watcher-{repository}"[:120]


def visible_labels_q(principal: Principal | None, model: type[Model]) -> Q:
    """``can_see`` as a filter on ``model``'s ``scope`` and ``disclosure``, so reads page in SQL.

    The scope half is SQL. The disclosure half asks ``can_see`` of each distinct label set among
    rows in those scopes (one query; there are few distinct sets), then excludes the ones it
    refuses, so the rule itself stays in one place.
    """
    scopes = visible_scopes(principal)
    if not scopes:
        return Q(pk__in=[])
    in_scope = Q(scope__in=scopes) & ~Q(scope="")  # an empty scope is no scope: nobody sees it
    sets = model._default_manager.filter(in_scope).order_by().values_list("disclosure", flat=True)
    refused = [d for d in sets.distinct() if not can_see(principal, scopes[0], d)]
    for disclosure in refused:
        in_scope &= ~Q(disclosure=disclosure)
    return in_scope
