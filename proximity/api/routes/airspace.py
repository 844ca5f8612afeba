"""Code-space proximity: working-set reports, scans, advisories, acknowledgements, messages."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest
from django.utils import timezone
from ninja import Query, Router, Schema, Status
from pydantic import Field

from proximity.api import converters  # noqa: F401 - registers {anytext:...}
from proximity.api.auth import TokenAuth, principal_of
from proximity.api.presenters import advisory_out, message_out, scan_out
from proximity.api.schemas import (
    ERRORS,
    AcknowledgeIn,
    AdvisoryOut,
    MessageOut,
    ScanOut,
    SentTime,
    WorkingSetIn,
    WorkingSetOut,
)
from proximity.api.throttles import TokenRateThrottle
from proximity.exceptions import NotFoundError
from proximity.selectors.advisories import (
    advisory_get,
    advisory_list,
    inbox_agent_get,
    repository_get,
)
from proximity.selectors.airspace import latest_scan
from proximity.services.advisories import advisory_acknowledge
from proximity.services.messages import messages_claim_pending
from proximity.services.working_sets import WorkingSetReport, working_set_report

router = Router(tags=["airspace"], auth=TokenAuth())


class AdvisoryFilter(Schema):
    repository: str | None = None
    band: str | None = None
    state: str | None = None
    agent: str | None = None
    since: SentTime | None = None
    # Bounded: an unbounded offset overflowed PostgreSQL's bigint (a 503 found by schemathesis).
    limit: int = Field(default=100, ge=1, le=500)
    offset: int = Field(default=0, ge=0, le=10_000_000)


@router.post(
    "/working-sets",
    response={201: WorkingSetOut, **ERRORS},
    by_alias=True,
    summary="An agent reports its working set and intent",
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "reports")],
)
def report_working_set(request: HttpRequest, body: WorkingSetIn) -> Status[WorkingSetOut]:
    data = body.model_dump(by_alias=True, exclude_none=True, mode="json")
    report = WorkingSetReport(
        repository=body.repository,
        agent_id=body.agent_id,
        label=body.label,
        started_at=body.started_at,
        asked_at=body.asked_at,
        published=body.published,
        files=data["files"],
        intent=data.get("intent", []),
    )
    snap = working_set_report(principal=principal_of(request), report=report)
    out = WorkingSetOut(
        repository=body.repository,
        agent_id=body.agent_id,
        version=snap.version,
        reported_at=snap.reported_at,
        expires_at=snap.expires_at,
    )
    return Status(201, out)


@router.get(
    "/repositories/{name}/scan",
    response={200: ScanOut, **ERRORS},
    by_alias=True,
    summary="The latest scan of a repository, with positions and links",
)
def read_latest_scan(request: HttpRequest, name: str) -> ScanOut:
    repo = repository_get(principal_of(request), name)
    scan = latest_scan(repo) if repo else None
    if scan is None:
        raise NotFoundError("scan")
    return scan_out(scan)


@router.get("/advisories", response={200: list[AdvisoryOut], **ERRORS}, by_alias=True)
def list_advisories(request: HttpRequest, filters: Query[AdvisoryFilter]) -> list[AdvisoryOut]:
    rows = advisory_list(principal_of(request), **filters.model_dump(exclude={"limit", "offset"}))
    limit = max(1, min(filters.limit, 500))
    offset = max(0, filters.offset)
    return [advisory_out(a) for a in rows[offset : offset + limit]]


@router.get("/advisories/{advisory_id}", response={200: AdvisoryOut, **ERRORS}, by_alias=True)
def read_advisory(request: HttpRequest, advisory_id: int) -> AdvisoryOut:
    advisory = advisory_get(principal_of(request), advisory_id)
    if advisory is None:
        raise NotFoundError("advisory")
    return advisory_out(advisory)


@router.post(
    "/advisories/{advisory_id}/acknowledge",
    response={200: AdvisoryOut, **ERRORS},
    by_alias=True,
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "acknowledgements")],
)
def acknowledge_advisory(
    request: HttpRequest, advisory_id: int, body: AcknowledgeIn
) -> AdvisoryOut:
    principal = principal_of(request)
    advisory_acknowledge(advisory_id=advisory_id, principal=principal, note=body.note)
    return read_advisory(request, advisory_id)


# anytext: agent ids may hold "/" (a branch name such as feature/login), which a plain segment
# would not match, leaving Django's HTML 404 instead of this route's JSON one.
@router.get(
    "/repositories/{name}/agents/{anytext:agent_id}/messages",
    response={200: list[MessageOut], **ERRORS},
    by_alias=True,
    summary="Pending messages for the caller's own agent (each delivered to one poll)",
)
def take_messages(request: HttpRequest, name: str, agent_id: str) -> list[MessageOut]:
    agent = inbox_agent_get(principal_of(request), name, agent_id)
    if agent is None:
        raise NotFoundError("agent")
    now: datetime = timezone.now()
    return [message_out(m) for m in messages_claim_pending(agent=agent, now=now)]
