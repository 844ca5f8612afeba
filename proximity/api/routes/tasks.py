"""Task declarations and overlap advisories. Advisories only: nothing cancels or merges work."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Router, Status

from proximity.api import converters  # noqa: F401 - registers {anytext:...}
from proximity.api.auth import TokenAuth, principal_of
from proximity.api.presenters import overlap_advisory_out, run_out, version_out
from proximity.api.schemas import (
    ERRORS,
    OverlapAdvisoryOut,
    OverlapRunOut,
    TaskDeclareIn,
    TaskIn,
    TaskReviseIn,
    TaskVersionOut,
)
from proximity.api.throttles import TokenRateThrottle
from proximity.exceptions import NotFoundError
from proximity.selectors.tasks import (
    latest_run,
    overlap_advisory_get,
    overlap_advisory_list,
    task_versions,
)
from proximity.services.tasks import TaskDeclaration, task_declare, task_revise

router = Router(tags=["tasks"], auth=TokenAuth())


def _declaration(body: TaskIn) -> TaskDeclaration:
    sketch = body.plan_sketch.model_dump(by_alias=True) if body.plan_sketch else None
    return TaskDeclaration(
        scope=body.scope,
        objective=body.objective,
        deliverable=body.deliverable,
        acceptance=body.acceptance,
        disclosure=body.disclosure,
        dependencies=body.dependencies,
        purpose=body.purpose,
        plan_facts=body.plan_facts,
        plan_sketch=sketch,
        owner=body.owner,
    )


@router.post(
    "/tasks",
    response={201: TaskVersionOut, **ERRORS},
    by_alias=True,
    summary="Declare a task (work version 1); its overlap run is scheduled",
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "tasks")],
)
def declare_task(request: HttpRequest, body: TaskDeclareIn) -> Status[TaskVersionOut]:
    version = task_declare(
        principal=principal_of(request), decl=_declaration(body), task_id=body.task_id
    )
    return Status(201, version_out(version))


# anytext: a task id may hold "/" (an agent's hook declares "<agent id>.<session>", and agent ids
# are often branch names), which a plain segment would not match, leaving Django's HTML 404.
# The suffixed routes come first: the bare read's pattern would also match ".../run".
@router.post(
    "/tasks/{anytext:task_id}/versions",
    response={201: TaskVersionOut, **ERRORS},
    by_alias=True,
    summary="Revise a task: a new work version, never an overwrite",
    throttle=[TokenRateThrottle("OVERLAP_REPORT_RATE", "tasks")],
)
def revise_task(request: HttpRequest, task_id: str, body: TaskReviseIn) -> Status[TaskVersionOut]:
    version = task_revise(
        principal=principal_of(request),
        task_id=task_id,
        previous_version=body.previous_version,
        decl=_declaration(body),
    )
    return Status(201, version_out(version))


@router.get(
    "/tasks/{anytext:task_id}/run",
    response={200: OverlapRunOut, **ERRORS},
    by_alias=True,
    summary="The latest overlap run of a task's current version, with its coverage",
)
def read_latest_run(request: HttpRequest, task_id: str, scope: str | None = None) -> OverlapRunOut:
    run = latest_run(principal_of(request), task_id, scope=scope)
    if run is None:
        raise NotFoundError("run")
    return run_out(run, principal_of(request))


@router.get(
    "/tasks/{anytext:task_id}",
    response={200: list[TaskVersionOut], **ERRORS},
    by_alias=True,
    summary="Every version of a task, oldest first",
)
def read_task(request: HttpRequest, task_id: str, scope: str | None = None) -> list[TaskVersionOut]:
    versions = task_versions(principal_of(request), task_id, scope=scope)
    if not versions:
        raise NotFoundError("task")
    return [version_out(v) for v in versions]


@router.get(
    "/overlap-advisories", response={200: list[OverlapAdvisoryOut], **ERRORS}, by_alias=True
)
def list_overlap_advisories(
    request: HttpRequest,
    task: str | None = None,
    scope: str | None = None,
    include: Literal["all", "queued", "held"] = "all",
) -> list[OverlapAdvisoryOut]:
    """Every stored candidate by default (as before the review queue); ``include=queued``: only
    the review queue's cards, ``include=held``: only candidates held back beyond the budget."""
    principal = principal_of(request)
    rows = overlap_advisory_list(principal, task_id=task, scope=scope, include=include)
    return [overlap_advisory_out(a) for a in rows]


@router.get(
    "/overlap-advisories/{advisory_id}",
    response={200: OverlapAdvisoryOut, **ERRORS},
    by_alias=True,
    summary="One advisory; `current` is false once either version is superseded",
)
def read_overlap_advisory(request: HttpRequest, advisory_id: int) -> OverlapAdvisoryOut:
    advisory = overlap_advisory_get(principal_of(request), advisory_id)
    if advisory is None:
        raise NotFoundError("advisory")
    return overlap_advisory_out(advisory)
