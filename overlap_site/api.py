"""The one NinjaAPI: routers are mounted here and domain errors map to HTTP responses once."""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, DataError, InterfaceError
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from proximity.api.routes import router as proximity_router
from proximity.exceptions import DomainError

log = logging.getLogger(__name__)

api = NinjaAPI(
    title="Overlap Radar API",
    version="1",
    description=(
        "Agents report working sets and intents; principals declare task versions; everyone "
        "reads advisories within their scopes. Advisories only: nothing here cancels, merges or "
        "blocks work."
    ),
    docs_url="/docs",
)
api.add_router("/", proximity_router)


def _dotted(loc: list[object]) -> str | None:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    return text or None


def _error(request: HttpRequest, status: int, detail: str, field: str | None) -> HttpResponse:
    return api.create_response(request, {"detail": detail, "field": field}, status=status)


@api.exception_handler(DomainError)
def domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    return _error(request, exc.status, exc.message, exc.field)


@api.exception_handler(ValidationError)
def validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    first = exc.errors[0] if exc.errors else {}
    loc = list(first.get("loc", []))
    # ninja prefixes the location (body/query/path) and, for bodies, the parameter name.
    if loc and loc[0] in {"body", "query", "path", "header", "cookie", "form"}:
        loc = loc[2:] if loc[0] == "body" and len(loc) > 1 else loc[1:]
    field = _dotted(loc)
    return _error(request, 422, f"{field or 'request'}: {first.get('msg', 'invalid')}", field)


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # ninja raises HttpError(400) for a body that is not JSON: bad input like any other, so a
    # documented 422 naming the body (found by tests/proximity/api/test_schemathesis.py).
    if exc.status_code == 400:
        return _error(request, 422, "body: not valid JSON", "body")
    return _error(request, exc.status_code, str(exc), None)


@api.exception_handler(Throttled)
def throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    response = _error(request, 429, "too many requests, slow down", None)
    if exc.wait is not None:
        response["Retry-After"] = str(int(exc.wait))
    return response


@api.exception_handler(AuthenticationError)
def authentication_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, 401, "missing, unknown or revoked token", "Authorization")


@api.exception_handler(RequestDataTooBig)
def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return _error(request, 413, "request body too large", "body")


@api.exception_handler(DataError)
def value_rejected_by_database(request: HttpRequest, exc: DataError) -> HttpResponse:
    # The database refused a value (a NUL byte, an integer beyond bigint): bad input, not an
    # outage, so 422 rather than 503 (found by tests/proximity/api/test_schemathesis.py).
    log.info("database rejected a value on %s: %s", request.path, exc)
    return _error(request, 422, "a value is out of range or contains a NUL byte", None)


@api.exception_handler(DatabaseError)
def database_down(request: HttpRequest, exc: DatabaseError) -> HttpResponse:
    log.warning("database error on %s: %s", request.path, exc)
    return _error(request, 503, "database unavailable, retry shortly", None)


@api.exception_handler(InterfaceError)
def database_interface_down(request: HttpRequest, exc: InterfaceError) -> HttpResponse:
    return _error(request, 503, "database unavailable, retry shortly", None)
