"""Health, for load balancers and people (no record contents, so no authentication)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from proximity.api.schemas import CheckOut, HealthOut
from proximity.selectors.health import run_checks, worst_status

router = Router(tags=["health"])


@router.get(
    "/health", response=HealthOut, summary="Service health (database, broker, workers, git)"
)
def health(request: HttpRequest) -> HealthOut:
    checks = run_checks(load_model=False)
    return HealthOut(
        status=worst_status(checks),
        checks=[CheckOut(name=c.name, status=c.status, detail=c.detail, fix=c.fix) for c in checks],
    )
