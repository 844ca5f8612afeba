"""Server-rendered pages: the landing page and the health page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from proximity.selectors.access import is_staff_user
from proximity.selectors.health import recent_checks, redacted, worst_status


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {})


def health_page(request: HttpRequest) -> HttpResponse:
    # The rule of /api/health, for a browser: details only for a signed-in staff user.
    detailed = is_staff_user(request.user)
    checks = recent_checks() if detailed else redacted(recent_checks())
    status = worst_status(checks)
    return render(
        request,
        "health.html",
        {"checks": checks, "status": status, "detailed": detailed},
        status=503 if status == "critical" else 200,
    )
