"""Task records to and from their JSON form (camelCase keys, as in the design's record schema)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proximity.engine.overlap.plan_sketch import PlanSketch, plan_sketch_from_mapping
from proximity.engine.overlap.records import Provenance, RecordError, TaskRecord

__all__ = ["task_record_from_mapping", "task_record_to_mapping"]


def _strings(data: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"{key} must be a list of strings")
    return tuple(value)


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise RecordError(f"{key} must be a string")
    return value


def _provenance(data: Mapping[str, Any]) -> Provenance:
    prov = data.get("provenance")
    if not isinstance(prov, Mapping) or not isinstance(prov.get("owner"), str):
        raise RecordError("provenance.owner must be a string")
    return Provenance(
        owner=prov["owner"],
        source=str(prov.get("source", "declared")),
        declared_at=_text(prov, "declaredAt"),
    )


def _sketch(data: Mapping[str, Any]) -> PlanSketch | None:
    raw = data.get("planSketch")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise RecordError("planSketch must be an object")
    try:
        return plan_sketch_from_mapping(raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"planSketch: {exc}") from exc


def task_record_from_mapping(data: Mapping[str, Any]) -> TaskRecord:
    """Parse one record; a malformed field raises ``RecordError`` naming it."""
    for key in ("taskId", "workVersion"):
        if key not in data:
            raise RecordError(f"{key} is required")
    return TaskRecord(
        task_id=data["taskId"],
        work_version=data["workVersion"],
        scope=_text(data, "scope"),
        disclosure=frozenset(_strings(data, "disclosure") or ()),
        objective=_text(data, "objective"),
        deliverable=_text(data, "deliverable"),
        acceptance=_strings(data, "acceptance"),
        dependencies=_strings(data, "dependencies"),
        purpose=_text(data, "purpose"),
        plan_facts=_strings(data, "planFacts"),
        plan_sketch=_sketch(data),
        provenance=_provenance(data),
        space_id=_text(data, "spaceId"),
    )


def task_record_to_mapping(record: TaskRecord) -> dict[str, Any]:
    """The JSON form of a record (plan sketches are kept by the caller's own serializer)."""
    return {
        "taskId": record.task_id,
        "workVersion": record.work_version,
        "scope": record.scope,
        "disclosure": sorted(record.disclosure),
        "objective": record.objective,
        "deliverable": record.deliverable,
        "acceptance": None if record.acceptance is None else list(record.acceptance),
        "dependencies": None if record.dependencies is None else list(record.dependencies),
        "purpose": record.purpose,
        "planFacts": None if record.plan_facts is None else list(record.plan_facts),
        "provenance": {
            "owner": record.provenance.owner,
            "source": record.provenance.source,
            "declaredAt": record.provenance.declared_at,
        },
        "spaceId": record.space_id,
    }
