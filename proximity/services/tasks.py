"""Declare and revise tasks: a change is always a new work version, never an overwrite."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from proximity.engine.overlap import RecordError, plan_sketch_from_mapping
from proximity.exceptions import ConflictError, InvalidInputError, NotFoundError
from proximity.models import Principal, TaskRecord, TaskVersion
from proximity.selectors.access import can_see

__all__ = ["TaskDeclaration", "task_declare", "task_revise"]

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


def _check(principal: Principal, decl: TaskDeclaration) -> None:
    # A principal may only declare work it could itself see: no write-up into other scopes.
    if not can_see(principal, decl.scope, ()):
        raise InvalidInputError("scope is not among your scopes", field="scope")
    if not can_see(principal, decl.scope, decl.disclosure):
        raise InvalidInputError("disclosure label not among your clearances", field="disclosure")
    if decl.plan_sketch is not None:
        try:
            plan_sketch_from_mapping(decl.plan_sketch)
        except (RecordError, KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"invalid plan sketch: {exc}", field="planSketch") from None


def _version(record: TaskRecord, number: int, decl: TaskDeclaration, now: datetime) -> TaskVersion:
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
        plan_sketch=decl.plan_sketch,
        owner=decl.owner,
        provenance={**decl.provenance, "declaredBy": record.declared_by.name},
        created_at=now,
    )


def _schedule_run(version: TaskVersion) -> None:
    from proximity.services.overlap_runs import overlap_run_request

    transaction.on_commit(lambda: overlap_run_request(version_id=version.pk))


def task_declare(
    *, principal: Principal, decl: TaskDeclaration, task_id: str | None = None
) -> TaskVersion:
    _check(principal, decl)
    now = timezone.now()
    try:
        with transaction.atomic():
            record = TaskRecord.objects.create(
                task_id=task_id or f"task-{secrets.token_hex(6)}",
                declared_by=principal,
                created_at=now,
            )
            version = _version(record, 1, decl, now)
    except IntegrityError:
        raise ConflictError("taskId already exists; revise it instead", field="taskId") from None
    _schedule_run(version)
    return version


def _same_contract(old: TaskVersion, decl: TaskDeclaration) -> bool:
    return all(
        getattr(old, name)
        == (sorted(decl.disclosure) if name == "disclosure" else getattr(decl, name))
        for name in CONTRACT
    )


def task_revise(
    *, principal: Principal, task_id: str, previous_version: int, decl: TaskDeclaration
) -> TaskVersion:
    """Append version ``previous_version + 1``; a stale or backwards version is a 409."""
    _check(principal, decl)
    now = timezone.now()
    with transaction.atomic():
        record = TaskRecord.objects.select_for_update().filter(task_id=task_id).first()
        current = record.versions.filter(superseded_at__isnull=True).first() if record else None
        if (
            record is None
            or current is None
            or not can_see(principal, current.scope, current.disclosure)
        ):
            raise NotFoundError("task")
        if previous_version != current.work_version:
            raise ConflictError(
                f"previousVersion {previous_version} is not the current version "
                f"{current.work_version}",
                field="previousVersion",
            )
        if _same_contract(current, decl):
            raise InvalidInputError("a revision must change the contract", field="body")
        TaskVersion.objects.filter(pk=current.pk).update(superseded_at=now)
        version = _version(record, current.work_version + 1, decl, now)
    _schedule_run(version)
    return version
