"""People and their roles: a login, its principal and its scopes created in one step.

A web login sees nothing until a principal with scopes is linked to it (the visibility rule is
the principal's); doing the three things in one transaction means no half-made person exists.
``lead``: a staff login (the board signs in through the admin's login page) whose principal sees
and may revise tasks in its scopes. ``adjudicator``: a staff login in the adjudicators group,
whose principal sees its scopes. Errors name the flag-like field; nothing is stored then.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction

from proximity.exceptions import ConflictError, InvalidInputError
from proximity.models import Principal
from proximity.services.adjudications import adjudicators_group_setup

__all__ = ["ROLES", "Person", "parse_scopes", "person_add", "person_ensure"]

ROLES = ("lead", "adjudicator")
_SCOPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,119}")


@dataclass(frozen=True)
class Person:
    username: str
    role: str
    principal: Principal
    password: str | None
    """The password set now (``None``: an existing login kept its own)."""
    created: bool


def parse_scopes(values: list[str] | str) -> list[str]:
    """Scopes from flags or a form: comma- or line-separated, each a token, at least one."""
    raw = [values] if isinstance(values, str) else values
    scopes = [s.strip() for value in raw for s in re.split(r"[,\n]", value) if s.strip()]
    if not scopes:
        raise InvalidInputError("at least one scope is needed", field="scope")
    for scope in scopes:
        if not _SCOPE.fullmatch(scope) or ".." in scope:
            raise InvalidInputError(
                f"{scope!r} is not a scope (letters, digits, . _ : / -; no blanks)", field="scope"
            )
    return sorted(set(scopes))


def _check(username: str, role: str) -> None:
    try:
        validate_slug(username)
    except ValidationError:
        raise InvalidInputError("must be a slug (letters, digits, - and _)", field="name") from None
    if len(username) > 120:
        raise InvalidInputError("at most 120 characters", field="name")
    if role not in ROLES:
        raise InvalidInputError(f"must be one of {', '.join(ROLES)}", field="role")


def _password(password: str | None, user: Any) -> str:
    if password is None:
        return secrets.token_urlsafe(12)
    try:
        password_validation.validate_password(password, user)
    except ValidationError as exc:
        raise InvalidInputError(" ".join(exc.messages), field="password") from None
    return password


def _principal(username: str, user: object, role: str, scopes: list[str]) -> Principal:
    principal = Principal.objects.filter(name=username).first()
    if principal is not None and principal.user_id not in (None, getattr(user, "pk", None)):
        raise ConflictError(f"principal {username!r} belongs to another login", field="name")
    if principal is None:
        principal = Principal(name=username, kind=Principal.Kind.HUMAN, clearances=[])
    principal.user = user  # type: ignore[assignment]
    principal.scopes = sorted({*principal.scopes, *scopes})
    if role == "lead":
        principal.lead_scopes = sorted({*principal.lead_scopes, *scopes})
    principal.save()
    return principal


def person_add(
    *, username: str, role: str, scopes: list[str], password: str | None = None
) -> Person:
    """A new login with its principal; ``ConflictError`` when the login exists."""
    _check(username, role)
    scopes = parse_scopes(scopes)
    user_model = get_user_model()
    if user_model.objects.filter(username=username).exists():
        raise ConflictError(f"a login named {username!r} exists", field="name")
    return _store(username, role, scopes, password, existing=None)


def person_ensure(
    *, username: str, role: str, scopes: list[str], password: str | None = None
) -> Person:
    """Like :func:`person_add`, but an existing login is linked (and given the scopes) as it
    is: its password and flags are kept. What ``manage.py up`` does for the lead."""
    _check(username, role)
    scopes = parse_scopes(scopes)
    existing = get_user_model().objects.filter(username=username).first()
    return _store(username, role, scopes, password, existing=existing)


def _store(
    username: str, role: str, scopes: list[str], password: str | None, *, existing: object
) -> Person:
    user_model = get_user_model()
    with transaction.atomic():
        user = existing or user_model(username=username, is_staff=True)
        chosen = None if existing is not None else _password(password, user)
        if chosen is not None:
            user.set_password(chosen)  # type: ignore[attr-defined]
            user.save()  # type: ignore[attr-defined]
        principal = _principal(username, user, role, scopes)
        if role == "adjudicator":
            user.groups.add(adjudicators_group_setup())  # type: ignore[attr-defined]
    return Person(username, role, principal, chosen, existing is None)
