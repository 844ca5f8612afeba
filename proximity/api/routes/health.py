"""Health, for load balancers and people: public, unthrottled, and no record contents.

``/health/live`` touches nothing (is the process serving?), ``/health/ready`` runs one
``SELECT 1`` (may it take traffic?), ``/health`` reports every check from the shared cached run,
with details only for a token of a staff user's principal (docs/DECISIONS.md, "Health that a
load balancer can use"; issue 31: an agent's token no longer reads the database name, the Redis
host or the paths).
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status

from proximity.api.auth import optional_principal
from proximity.api.schemas import CheckOut, ErrorOut, HealthOut, ProbeOut
from proximity.selectors.access import is_staff_user
from proximity.selectors.health import database_ready, recent_checks, redacted, worst_status

router = Router(tags=["health"])


@router.get(
    "/health",
    response={200: HealthOut, 503: HealthOut, 429: ErrorOut},
    summary="Every check (database, broker, workers, git); 503 when one is critical",
    description="Cached for OVERLAP_HEALTH_CACHE_SECONDS. Details and fixes only for staff.",
)
def health(request: HttpRequest) -> Status[HealthOut]:
    principal = optional_principal(request)
    detailed = principal is not None and is_staff_user(principal.user)
    checks = recent_checks() if detailed else redacted(recent_checks())
    status = worst_status(checks)
    out = [CheckOut(name=c.name, status=c.status, detail=c.detail, fix=c.fix) for c in checks]
    return Status(503 if status == "critical" else 200, HealthOut(status=status, checks=out))


@router.get("/health/live", response={200: ProbeOut}, summary="Liveness: the process answers")
def live(request: HttpRequest) -> ProbeOut:
    return ProbeOut(status="ok")  # no database, broker or git: a restart would not fix those


@router.get(
    "/health/ready",
    response={200: ProbeOut, 503: ProbeOut},
    summary="Readiness: the database answers (what a load balancer should probe)",
)
def ready(request: HttpRequest) -> Status[ProbeOut]:
    ok = database_ready()
    return Status(200 if ok else 503, ProbeOut(status="ok" if ok else "critical"))
