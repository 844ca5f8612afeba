"""The board's login: Django's session and user, resolved inside the Dash Flask server.

Every request to /board/ passes ``login_guard``; every callback calls ``current_principal`` again
so a callback can never run on behalf of nobody. Both resolve the session once per request, kept in
that request's WSGI environ (it cannot outlive the request): the layout alone asked four times.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any
from urllib.parse import urlsplit

import flask
from django.conf import settings
from django.contrib.auth import get_user
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import request_finished, request_started
from werkzeug.wrappers import Response as WerkzeugResponse

from proximity.models import Principal
from proximity.selectors.adjudications import principal_for_user

__all__ = ["current_principal", "install_login_guard", "user_for_environ"]


class BoardRequest:
    """Sender of Django's request signals for requests the Dash server handles."""


def user_for_environ(environ: dict[str, Any]) -> Any | None:
    """The authenticated Django user for this WSGI request, or None (no body is read)."""
    request = WSGIRequest(environ)
    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    user = get_user(request)  # verifies the session's auth hash, like AuthenticationMiddleware
    return user if user.is_authenticated and user.is_active else None


USER_KEY, PRINCIPAL_KEY = "radar.board.user", "radar.board.principal"


def _request_user() -> Any | None:
    environ = flask.request.environ
    if USER_KEY not in environ:
        environ[USER_KEY] = user_for_environ(environ)
    return environ[USER_KEY]


def current_principal() -> Principal | None:
    environ = flask.request.environ
    if PRINCIPAL_KEY not in environ:
        environ[PRINCIPAL_KEY] = principal_for_user(_request_user())
    principal: Principal | None = environ[PRINCIPAL_KEY]
    return principal


def _cross_origin(request: flask.Request) -> bool:
    origin = request.headers.get("Origin")
    return bool(origin) and urlsplit(origin).netloc != request.host


def _guard() -> WerkzeugResponse | None:
    # Django's own request signals: they close stale connections (and tests disconnect them).
    request_started.send(sender=BoardRequest, environ=flask.request.environ)
    request = flask.request
    if request.method != "GET" and _cross_origin(request):
        return flask.Response("cross-origin request refused", status=403)
    if _request_user() is not None:
        return None
    if request.method == "GET" and not request.path.startswith("/board/_"):
        return flask.redirect(f"{settings.LOGIN_URL}?next=/board/")
    return flask.Response("login required", status=403, mimetype="text/plain")


def _teardown(exc: BaseException | None) -> None:
    request_finished.send(sender=BoardRequest)


def install_login_guard(server: flask.Flask) -> None:
    server.before_request(_guard)
    server.teardown_request(_teardown)
