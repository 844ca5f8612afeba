"""A small WSGI path dispatcher: /board/ goes to the Dash app, everything else to Django.

The Dash app is created on the first /board/ request (not at import), under a lock because
gunicorn threads and runserver may race for it.

The board bypasses Django's handler, so its requests run through the header-only middleware
of ``settings.MIDDLEWARE`` (SecurityMiddleware, XFrameOptionsMiddleware) here: the same HTTPS
redirect, HSTS, nosniff, Referrer-Policy, Cross-Origin-Opener-Policy and X-Frame-Options as
every Django page, read from the same settings by Django's own classes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.module_loading import import_string

__all__ = ["BOARD_MIDDLEWARE", "BoardDispatcher", "SecuredBoard", "mount_board"]

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
# Any: Django's converter is typed for async handlers too; these are all synchronous.
Handler = Callable[[HttpRequest], Any]

# Middleware that only redirects or adds response headers, so it applies to a non-Django app.
# Only those listed in settings.MIDDLEWARE run, in that order: the board follows the site.
BOARD_MIDDLEWARE = frozenset(
    {
        "django.middleware.security.SecurityMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    }
)


class _BoardResponse(HttpResponse):
    """The board's status and headers, for the middleware to inspect and extend."""

    def __init__(self, status: str, headers: list[tuple[str, str]], body: Iterable[bytes]):
        code, _, reason = status.partition(" ")
        super().__init__(status=int(code), reason=reason or None)
        del self.headers["Content-Type"]
        for name, value in headers:
            self.headers[name] = value
        self.board_headers = headers
        self.board_body = body


class SecuredBoard:
    """Run a WSGI app behind Django's header-only middleware (as Django's handler would)."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app
        handler: Handler = convert_exception_to_response(self._call_app)
        # As BaseHandler.load_middleware: the first listed is the outermost.
        for path in reversed([p for p in settings.MIDDLEWARE if p in BOARD_MIDDLEWARE]):
            handler = convert_exception_to_response(import_string(path)(handler))
        self.handler = handler

    def _call_app(self, request: HttpRequest) -> HttpResponseBase:
        started: list[tuple[str, list[tuple[str, str]]]] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], None]:
            started[:] = [(status, list(headers))]
            return lambda data: None  # the legacy write() callable; Flask never uses it

        # WSGIRequest.META is the WSGI environ itself (wsgi.input still unread).
        body = self.app(request.META, start_response)
        if not started:  # a lazy app calls start_response on the first chunk
            iterator = iter(body)
            first = next(iterator, b"")
            body = _Chained(first, iterator, body)
        status, headers = started[0]
        return _BoardResponse(status, headers, body)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        response: HttpResponseBase = self.handler(WSGIRequest(environ))
        if isinstance(response, _BoardResponse):
            # The middleware only adds headers the app did not send: keep the app's own list
            # (repeated headers intact) and append what was added.
            sent = {name.lower() for name, _ in response.board_headers}
            added = [(k, v) for k, v in response.items() if k.lower() not in sent]
            start_response(_status(response), [*response.board_headers, *added])
            return response.board_body
        # A response made by the middleware itself (the HTTPS redirect, a 400 for a bad host).
        headers = [*response.items()]
        headers += [("Set-Cookie", c.OutputString()) for c in response.cookies.values()]
        start_response(_status(response), headers)
        return response


def _status(response: HttpResponseBase) -> str:
    return f"{response.status_code} {response.reason_phrase}"


class _Chained:
    def __init__(self, first: bytes, rest: Iterable[bytes], original: Iterable[bytes]) -> None:
        self.first, self.rest, self.original = first, rest, original

    def __iter__(self) -> Any:
        yield self.first
        yield from self.rest

    def close(self) -> None:
        if hasattr(self.original, "close"):
            self.original.close()


class BoardDispatcher:
    def __init__(self, django_app: WSGIApp, *, prefix: str = "/board") -> None:
        self.django_app = django_app
        self.prefix = prefix.rstrip("/")
        self._board: WSGIApp | None = None
        self._lock = threading.Lock()
        self.secured = SecuredBoard(self._board_or_slash)

    def board(self) -> WSGIApp:
        with self._lock:
            if self._board is None:
                from proximity.dashboard.app import create_app

                self._board = create_app().server.wsgi_app
            return self._board

    def _board_or_slash(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO", "") == self.prefix:
            start_response("301 Moved Permanently", [("Location", f"{self.prefix}/")])
            return [b""]
        return self.board()(environ, start_response)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if path == self.prefix or path.startswith(f"{self.prefix}/"):
            return self.secured(environ, start_response)
        return self.django_app(environ, start_response)


def mount_board(django_app: WSGIApp) -> BoardDispatcher:
    return BoardDispatcher(django_app)
