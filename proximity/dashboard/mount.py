"""A small WSGI path dispatcher: /board/ goes to the Dash app, everything else to Django.

The Dash app is created on the first /board/ request (not at import), under a lock because
gunicorn threads and runserver may race for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["BoardDispatcher", "mount_board"]

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BoardDispatcher:
    def __init__(self, django_app: WSGIApp, *, prefix: str = "/board") -> None:
        self.django_app = django_app
        self.prefix = prefix.rstrip("/")
        self._board: WSGIApp | None = None
        self._lock = threading.Lock()

    def board(self) -> WSGIApp:
        with self._lock:
            if self._board is None:
                from proximity.dashboard.app import create_app

                self._board = create_app().server.wsgi_app
            return self._board

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if path == self.prefix:
            start_response("301 Moved Permanently", [("Location", f"{self.prefix}/")])
            return [b""]
        if path.startswith(f"{self.prefix}/"):
            return self.board()(environ, start_response)
        return self.django_app(environ, start_response)


def mount_board(django_app: WSGIApp) -> BoardDispatcher:
    return BoardDispatcher(django_app)
