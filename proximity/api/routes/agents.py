"""Agents on other machines: the pre-edit check, acknowledgements, and who works on what."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils import timezone
from ninja import Router, Status

from proximity.api import converters  # noqa: F401 - registers {anytext:...}
from proximity.api.auth import TokenAuth, principal_of
from proximity.api.schemas import (
    ERRORS,
    AgentOut,
    EditAcknowledgeIn,
    EditAcknowledgementOut,
    EditCheckIn,
    EditCheckOut,
    WorkingSetLeaveOut,
)
from proximity.api.throttles import TokenRateThrottle
from proximity.exceptions import NotFoundError
from proximity.selectors.advisories import repository_get
from proximity.selectors.airspace import current_snapshots
from proximity.selectors.edit_checks import edit_check
from proximity.services.acknowledgements import edit_acknowledge
from proximity.services.agent_asks import agent_asked
from proximity.services.working_sets import working_set_leave

router = Router(tags=["agents"], auth=TokenAuth())


@router.post(
    "/check",
    response={200: EditCheckOut, **ERRORS},
    by_alias=True,
    summary="May this agent make this edit? Scored against the other agents' current work",
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "checks")],
)
def check_edit(request: HttpRequest, body: EditCheckIn) -> EditCheckOut:
    files = [f.model_dump(by_alias=True, exclude_none=True, mode="json") for f in body.files]
    now = timezone.now()
    result = edit_check(
        principal=principal_of(request),
        repository=body.repository,
        agent_id=body.agent_id,
        files=files,
        now=now,
    )
    agent_asked(principal=principal_of(request), repository=body.repository, result=result,
                now=now)  # fmt: skip
    out = result.to_json()
    out["findings"] = [f.to_json() for f in result.findings]
    return EditCheckOut.model_validate(out)


@router.post(
    "/acknowledgements",
    response={201: EditAcknowledgementOut, **ERRORS},
    by_alias=True,
    summary="Acknowledge the encounter with another agent; the same edits are then allowed",
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "acknowledgements")],
)
def acknowledge_edit(
    request: HttpRequest, body: EditAcknowledgeIn
) -> Status[EditAcknowledgementOut]:
    ack = edit_acknowledge(
        principal=principal_of(request),
        repository=body.repository,
        agent_id=body.agent_id,
        other_id=body.other,
        paths=body.paths,
        base_revision=body.base_revision,
        note=body.note,
        now=timezone.now(),
    )
    out = EditAcknowledgementOut(
        repository=body.repository,
        agent_id=body.agent_id,
        other=body.other,
        advisory_id=ack.advisory_id,
        created_at=ack.created_at,
        expires_at=ack.expires_at,
    )
    return Status(201, out)


@router.get(
    "/repositories/{name}/agents",
    response={200: list[AgentOut], **ERRORS},
    by_alias=True,
    summary="Agents with a current working set: their files, line ranges and declared intent",
)
def list_agents(request: HttpRequest, name: str) -> list[AgentOut]:
    repo = repository_get(principal_of(request), name)
    if repo is None:
        raise NotFoundError("repository")
    return [
        AgentOut(
            agent_id=s.agent.agent_id,
            label=s.agent.label,
            started_at=s.agent.started_at,
            last_report_at=s.agent.last_report_at,
            files=s.files,
            intent=s.intent,
        )
        for s in current_snapshots(repo, timezone.now())
    ]


# anytext: agent ids may hold "/" (a branch name such as feature/login).
@router.delete(
    "/repositories/{name}/agents/{anytext:agent_id}/working-set",
    response={200: WorkingSetLeaveOut, **ERRORS},
    by_alias=True,
    summary="The agent's worktree is gone: its working set holds nothing from now, not at its TTL",
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "reports")],
)
def leave(request: HttpRequest, name: str, agent_id: str) -> WorkingSetLeaveOut:
    now = timezone.now()
    retired = working_set_leave(
        principal=principal_of(request), repository=name, agent_id=agent_id, now=now
    )
    return WorkingSetLeaveOut(repository=name, agent_id=agent_id, retired=retired, at=now)
