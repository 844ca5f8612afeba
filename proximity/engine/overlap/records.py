"""Versioned task records and the one authorization rule.

A task record is the declared contract of a piece of work. Identity is an adjudicated relation over
objective, deliverable, acceptance, scope, work version and purpose; the owner sits in provenance
only, because different owners can attempt the same required deliverable (design: "Comparison
contract" in spec/000_aea7f1c72d27b35e.txt).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from proximity.engine.overlap.plan_sketch import PlanSketch

__all__ = [
    "CONTRACT_FIELDS",
    "AccessLabels",
    "Labelled",
    "Provenance",
    "RecordError",
    "TaskRecord",
    "TaskRef",
    "Viewer",
    "append_version",
    "is_visible",
    "revise",
]

#: Fields whose change creates a new ``work_version`` (requirement 1).
CONTRACT_FIELDS = (
    "objective",
    "deliverable",
    "acceptance",
    "scope",
    "plan_facts",
    "plan_sketch",
    "purpose",
    "dependencies",
)


class RecordError(ValueError):
    """A task record (or a version history) is malformed; the message names the field."""


class Labelled(Protocol):
    """Anything that carries the two access labels the authorization rule reads."""

    @property
    def scope(self) -> str | None: ...

    @property
    def disclosure(self) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class AccessLabels:
    """The access labels of a record, kept beside stored pairs so visibility can be re-checked."""

    scope: str | None
    disclosure: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class TaskRef:
    """One version of one task: what advisories and unknowns point at."""

    task_id: str
    work_version: int


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who declared the record and where it came from. Never identity evidence."""

    owner: str
    source: str = "declared"
    declared_at: str | None = None


@dataclass(frozen=True, slots=True)
class Viewer:
    """A principal: the scopes it holds and the disclosure labels it is cleared for."""

    principal_id: str
    scopes: frozenset[str]
    clearances: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """An immutable declared task at one work version.

    ``None`` in an optional field means *not declared*; features report it as unknown, never as
    an empty overlap (requirement 33). ``space_id`` names the embedding space of the stored vector.
    """

    task_id: str
    work_version: int
    scope: str | None
    objective: str | None
    deliverable: str | None
    acceptance: tuple[str, ...] | None
    provenance: Provenance
    disclosure: frozenset[str] = frozenset()
    dependencies: tuple[str, ...] | None = None
    purpose: str | None = None
    plan_facts: tuple[str, ...] | None = None
    plan_sketch: PlanSketch | None = None
    space_id: str | None = None
    extra: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        _check_text("task_id", self.task_id)
        if isinstance(self.work_version, bool) or not isinstance(self.work_version, int):
            raise RecordError(f"work_version must be an int, got {self.work_version!r}")
        if self.work_version < 1:
            raise RecordError(f"work_version must be >= 1, got {self.work_version}")
        if not isinstance(self.disclosure, frozenset):
            raise RecordError("disclosure must be a frozenset of labels")
        for name in ("acceptance", "dependencies", "plan_facts"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                raise RecordError(f"{name} must be a tuple of strings or None")

    @property
    def ref(self) -> TaskRef:
        return TaskRef(self.task_id, self.work_version)

    @property
    def access(self) -> AccessLabels:
        return AccessLabels(self.scope, self.disclosure)


def _check_text(name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise RecordError(f"{name} must be a non-blank string, got {value!r}")


def is_visible(record: Labelled, viewer: Viewer) -> bool:
    """Whether ``viewer`` may see ``record``: the project's single authorization rule.

    Parameters
    ----------
    record : Labelled
        Anything with ``scope`` and ``disclosure``.
    viewer : Viewer
        The principal asking.

    Returns
    -------
    bool
        True only if the record's scope is one of the viewer's scopes and every disclosure label
        is among the viewer's clearances (decision in TASK-OVERLAP-REQUIREMENTS.md). A record
        without a scope label is visible to nobody: missing authorization is unknown, not public.
    """
    if record.scope is None:
        return False
    return record.scope in viewer.scopes and record.disclosure <= viewer.clearances


def revise(record: TaskRecord, **changes: object) -> TaskRecord:
    """Return the next work version of ``record`` with ``changes`` applied.

    The old version is untouched (records are frozen). A change of any contract field must
    produce a new version (requirement 1); calling without a contract change is an error so that
    versions stay meaningful.
    """
    unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(TaskRecord)})
    if unknown:
        raise RecordError(f"unknown field(s): {', '.join(unknown)}")
    for fixed in ("task_id", "work_version"):
        if fixed in changes:
            raise RecordError(f"{fixed} cannot be revised; it is assigned by versioning")
    if not any(getattr(record, k) != v for k, v in changes.items() if k in CONTRACT_FIELDS):
        raise RecordError("a revision must change at least one contract field")
    return dataclasses.replace(record, work_version=record.work_version + 1, **changes)  # type: ignore[arg-type]


def append_version(history: Iterable[TaskRecord], record: TaskRecord) -> tuple[TaskRecord, ...]:
    """Append ``record`` to a task's version history without ever rewriting an old version.

    Re-appending an identical version is idempotent; a different body under an existing version,
    a gap, or another task's id is rejected.
    """
    versions = tuple(history)
    if versions and record.task_id != versions[0].task_id:
        raise RecordError(f"task_id {record.task_id!r} does not match {versions[0].task_id!r}")
    for old in versions:
        if old.work_version == record.work_version:
            if old == record:
                return versions
            raise RecordError(
                f"work_version {record.work_version} exists; old versions are immutable"
            )
    expected = max((v.work_version for v in versions), default=0) + 1
    if record.work_version != expected:
        raise RecordError(f"work_version must be {expected}, got {record.work_version}")
    return (*versions, record)
