"""Domain errors, mapped to HTTP responses once in overlap_site/api.py."""

from __future__ import annotations

__all__ = [
    "ConflictError",
    "DomainError",
    "ForbiddenError",
    "InvalidInputError",
    "NotFoundError",
    "UnavailableError",
]


class DomainError(Exception):
    status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInputError(DomainError):
    """Bad input, naming the offending field; nothing was stored."""

    status = 422


class ForbiddenError(DomainError):
    """The caller is known but lacks the standing for this action (e.g. staff-only writes).

    Only for actions whose existence is no secret; a record outside the caller's scopes is a
    NotFoundError instead, so the answer does not reveal that it exists.
    """

    status = 403


class NotFoundError(DomainError):
    """Missing, or outside the viewer's scopes: the two are indistinguishable on purpose."""

    status = 404

    def __init__(self, what: str = "object") -> None:
        super().__init__(f"{what} not found")


class ConflictError(DomainError):
    """The request contradicts stored state (e.g. a task version that goes backwards)."""

    status = 409


class UnavailableError(DomainError):
    """A dependency (database, broker) is down; the client should retry."""

    status = 503
