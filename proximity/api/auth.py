"""Bearer-token authentication: one token per principal or agent, looked up by digest."""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest
from ninja.errors import AuthenticationError
from ninja.security import HttpBearer

from proximity.api.throttles import auth_failure_throttle
from proximity.exceptions import ForbiddenError
from proximity.models import Principal
from proximity.selectors.access import holds_permission, principal_for_token

__all__ = ["PermissionTokenAuth", "TokenAuth", "optional_principal", "principal_of"]


class TokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Principal | None:
        principal = principal_for_token(token)
        if principal is None:
            auth_failure_throttle(request)  # guessing tokens is slowed down per address
        return principal


class PermissionTokenAuth(TokenAuth):
    """A known token whose principal lacks the admin's model permission is a 403 before the body.

    Checked here rather than only in the service so that a caller without the right learns
    nothing from the validation of a body it may not send (ninja maps the raise through api.py).
    """

    def __init__(self, permission: str, action: str) -> None:
        super().__init__()
        self.permission, self.action = permission, action

    def authenticate(self, request: HttpRequest, token: str) -> Principal | None:
        principal = super().authenticate(request, token)
        if principal is not None and not holds_permission(principal, self.permission):
            raise ForbiddenError(f"{self.action} needs the {self.permission} permission")
        return principal


def principal_of(request: HttpRequest) -> Principal:
    principal: Any = getattr(request, "auth", None)
    if not isinstance(principal, Principal):  # only reachable if a route forgot TokenAuth
        raise AuthenticationError
    return principal


def optional_principal(request: HttpRequest) -> Principal | None:
    """The bearer token's principal on a public route, else None (a bad token counts as failed).

    A database error also means None: the health answer must report the outage in its own shape.
    """
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        return None
    try:
        principal = principal_for_token(token)
    except DatabaseError:
        return None
    if principal is None:
        auth_failure_throttle(request)  # as TokenAuth: guessing is slowed down per address
    return principal
