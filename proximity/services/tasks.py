"""Declare and revise tasks: a change is always a new work version, never an overwrite."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from proximity.engine.overlap import RecordError, plan_sketch_from_mapping
from proximity.exceptions import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from proximity.models import Principal, TaskRecord, TaskVersion
from proximity.selectors.access import can_see, visible_scopes

__all__ = ["TaskDeclaration", "may_revise", "task_declare", "task_revise"]

CONTRACT = (
    "scope",
    "disclosure",
    "objective",
    "deliverable",
    "acceptance",
    "dependencies",
    "purpose",
    "plan_facts",
    "plan_sketch",
)


@dataclass(frozen=True)
class TaskDeclaration:
    scope: str
    objective: str
    deliverable: str
    acceptance: list[str]
    disclosure: list[str] = field(default_factory=list)
    dependencies: list[str] | None = None
    purpose: str = ""
    plan_facts: list[str] | None = None
    plan_sketch: dict[str, Any] | None = None
    owner: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)


def _sketch(sketch: dict[str, Any] | None, number: int) -> dict[str, Any] | None:
    """A sketch without ``workVersion`` is the plan of the version being written."""
    if sketch is None or sketch.get("workVersion") is not None:
        return sketch
    return {**sketch, "workVersion": number}


def _check(principal: Principal, decl: TaskDeclaration) -> None:
    # A principal may only declare work it could itself see: no write-up into other scopes.
    if not can_see(principal, decl.scope, ()):
        raise InvalidInputError("scope is not among your scopes", field="scope")
    if not can_see(principal, decl.scope, decl.disclosure):
        raise InvalidInputError("disclosure label not among your clearances", field="disclosure")
    if decl.plan_sketch is not None:
        try:
            plan_sketch_from_mapping(_sketch(decl.plan_sketch, 1) or {})
        except (RecordError, KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"invalid plan sketch: {exc}", field="planSketch") from None


def _provenance(
    record: TaskRecord, number: int, decl: TaskDeclaration, by: Principal
) -> dict[str, Any]:
    """``declaredBy`` is the task's declarer, ``revisedBy`` (revisions only) who wrote this one."""
    written = {"declaredBy": record.declared_by.name}
    if number > 1:
        written["revisedBy"] = by.name
    return {**decl.provenance, **written}


def _version(
    record: TaskRecord, number: int, decl: TaskDeclaration, now: datetime, by: Principal
) -> TaskVersion:
    return TaskVersion.objects.create(
        record=record,
        work_version=number,
        scope=decl.scope,
        disclosure=sorted(decl.disclosure),
        objective=decl.objective,
        deliverable=decl.deliverable,
        acceptance=decl.acceptance,
        dependencies=decl.dependencies,
        purpose=decl.purpose,
        plan_facts=decl.plan_facts,
        plan_sketch=_sketch(decl.plan_sketch, number),
        owner=decl.owner,
        provenance=_provenance(record, number, decl, by),
        declared_by=by,
        created_at=now,
    )


def _schedule_run(version: TaskVersion) -> None:
    from proximity.services.overlap_runs import overlap_run_request

    transaction.on_commit(lambda: overlap_run_request(version_id=version.pk))


def task_declare(
    *, principal: Principal, decl: TaskDeclaration, task_id: str | None = None
) -> TaskVersion:
    """Version 1 of a new task in ``decl.scope``; a taskId already used in that scope is a 409.

    Ids are per scope: one used only in scopes the declarer cannot see is free here, and its
    answer is an unused id's. Within a scope the id is shared by everyone in it, whatever the
    disclosure labels of the task holding it (a label hides a task's content, not its id).
    """
    _check(principal, decl)
    now = timezone.now()
    try:
        with transaction.atomic():
            record = TaskRecord.objects.create(
                scope=decl.scope,
                task_id=task_id or f"task-{secrets.token_hex(6)}",
                declared_by=principal,
                created_at=now,
            )
            version = _version(record, 1, decl, now, principal)
    except IntegrityError:
        raise ConflictError(
            "taskId already exists in this scope; revise it instead", field="taskId"
        ) from None
    _schedule_run(version)
    return version


def _same_contract(old: TaskVersion, decl: TaskDeclaration) -> bool:
    return all(
        getattr(old, name)
        == (sorted(decl.disclosure) if name == "disclosure" else getattr(decl, name))
        for name in CONTRACT
    )


def may_revise(principal: Principal, record: TaskRecord) -> bool:
    """The task's owner (the principal that declared it) or a lead of the task's scope.

    ``TaskVersion.owner`` is free text a client writes, so it grants nothing.
    """
    return record.declared_by_id == principal.pk or record.scope in (principal.lead_scopes or ())


def _visible_current(principal: Principal, task_id: str) -> list[tuple[TaskRecord, TaskVersion]]:
    """The records ``task_id`` names whose current version the principal may see, locked."""
    records = list(
        TaskRecord.objects.select_for_update()
        .filter(task_id=task_id, scope__in=visible_scopes(principal))
        .order_by("pk")
    )
    current = TaskVersion.objects.filter(record__in=records, superseded_at__isnull=True)
    by_record = {v.record_id: v for v in current}
    return [
        (r, by_record[r.pk])
        for r in records
        if r.pk in by_record
        and can_see(principal, by_record[r.pk].scope, by_record[r.pk].disclosure)
    ]


def _revisable(principal: Principal, task_id: str, scope: str) -> tuple[TaskRecord, TaskVersion]:
    """The task a revision names: 404 unseen, 403 seen but not the caller's to revise, 422 when
    the revision would move it to another scope (a task stays in the scope it was declared in).
    """
    visible = _visible_current(principal, task_id)
    if not visible:
        raise NotFoundError("task")
    in_scope = [pair for pair in visible if pair[0].scope == scope]
    if not in_scope and len(visible) > 1:
        raise InvalidInputError(
            f"a revision keeps its task's scope: taskId {task_id} is in your scopes "
            f"{', '.join(sorted(r.scope for r, _ in visible))}",
            field="scope",
        )
    record, current = (in_scope or visible)[0]
    if not may_revise(principal, record):
        raise ForbiddenError(
            "only the principal that declared this task or a lead of its scope "
            f"{record.scope} may revise it"
        )
    if record.scope != scope:
        raise InvalidInputError(
            f"a revision keeps its task's scope: taskId {task_id} is in scope {record.scope}",
            field="scope",
        )
    return record, current


def task_revise(
    *, principal: Principal, task_id: str, previous_version: int, decl: TaskDeclaration
) -> TaskVersion:
    """Append version ``previous_version + 1``; a stale or backwards version is a 409.

    The task is the one ``task_id`` names in ``decl.scope`` among the scopes the reviser may see
    (see ``_revisable`` for who may revise and what each refusal answers).
    """
    _check(principal, decl)
    now = timezone.now()
    with transaction.atomic():
        record, current = _revisable(principal, task_id, decl.scope)
        if previous_version != current.work_version:
            raise ConflictError(
                f"previousVersion {previous_version} is not the current version "
                f"{current.work_version}",
                field="previousVersion",
            )
        if _same_contract(current, decl):
            raise InvalidInputError("a revision must change the contract", field="body")
        TaskVersion.objects.filter(pk=current.pk).update(superseded_at=now)
        version = _version(record, current.work_version + 1, decl, now, principal)
    _schedule_run(version)
    return version
