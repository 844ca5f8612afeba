"""The one NinjaAPI: routers are mounted here and domain errors map to HTTP responses once."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI

from proximity.api.routes import router as proximity_router

api = NinjaAPI(
    title="Overlap Radar API",
    version="1",
    description=(
        "Agents report working sets and intents; principals declare task versions; everyone reads "
        "advisories within their scopes. Advisories only: nothing here cancels, merges or "
        "blocks work."
    ),
    docs_url="/docs",
)
api.add_router("/", proximity_router)


@api.exception_handler(ValueError)
def value_error(request: HttpRequest, exc: ValueError) -> HttpResponse:
    return api.create_response(request, {"detail": str(exc), "field": None}, status=400)
