"""Server-rendered pages: the landing page and the health page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from proximity.selectors.health import run_checks, worst_status


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {})


def health_page(request: HttpRequest) -> HttpResponse:
    checks = run_checks(load_model=False)
    status = worst_status(checks)
    return render(
        request,
        "health.html",
        {"checks": checks, "status": status},
        status=503 if status == "critical" else 200,
    )
