"""``/favicon.ico``: every page a browser opens asks for it, and a 404 on each load reads as
breakage in the server's log and the browser's console (issue 27, point 8)."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

__all__ = ["favicon"]


@cache
def _icon() -> bytes:
    return (settings.BASE_DIR / "frontend_assets" / "favicon.svg").read_bytes()


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(_icon(), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
