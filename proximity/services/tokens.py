"""Issue and revoke API tokens; only the SHA-256 digest is stored."""

from __future__ import annotations

import secrets

from django.utils import timezone

from proximity.models import ApiToken, Principal
from proximity.selectors.access import token_digest

__all__ = ["principal_create", "token_issue", "token_revoke"]


def principal_create(
    *, name: str, kind: str = Principal.Kind.HUMAN, scopes: list[str], clearances: list[str]
) -> Principal:
    return Principal.objects.create(
        name=name, kind=kind, scopes=sorted(set(scopes)), clearances=sorted(set(clearances))
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
