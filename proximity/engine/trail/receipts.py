"""Receipt payloads per kind, receipt construction and copy-by-rebuild.

Every payload is rebuilt field by field from validated values, so the canonical encoding of a
rebuilt payload is the one the hash binds (ECC-PROXIMITY.md section 7, "Receipts"). Persisted
payloads are compared against their rebuilt form byte for byte, which is how reordered paths
or keys are rejected as noncanonical.
"""

from __future__ import annotations

from proximity.engine.trail.advisory import ADVISORY_FIELDS
from proximity.engine.trail.canonical import VERSION, ZERO_HASH, receipt_digest
from proximity.engine.trail.errors import fail
from proximity.engine.trail.observations import (
    dependency_graph,
    observation_pair,
    task_identity,
)
from proximity.engine.trail.validation import (
    identifier,
    is_finite_number,
    paths,
    plain_list,
    safe_int,
    shape,
    timestamp_ms,
)

__all__ = [
    "KINDS",
    "MAX_RECEIPTS",
    "RECEIPT_FIELDS",
    "copy_receipts",
    "new_receipt",
    "normalize_payload",
]

MAX_RECEIPTS = 16
RECEIPT_FIELDS = ("version", "id", "kind", "at", "previousHash", "payload", "hash")
KINDS = ("observation", "advisory", "acknowledgement", "scope-revision", "reobservation")
SCOPE_FIELDS = (
    "agentId",
    "taskId",
    "repoId",
    "baseRevision",
    "previousScopeRevision",
    "newScopeRevision",
    "newReadPaths",
    "newWritePaths",
    "authorizationRef",
    "authority",
)
_STATES = ("unknown", "advisory", "no-advisory-in-scope")
_REASONS = (None, "incomparable-context", "stale-or-future-observation", "incomplete-footprint")
_HAZARDS = (None, "write-write", "write-read")


def _one_of(value: object, allowed: tuple[str | None, ...], field: str) -> str | None:
    """Membership without calling a foreign ``__eq__``: only ``str`` or ``None`` is compared."""
    if not (value is None or type(value) is str) or value not in allowed:
        raise fail(f"{field}: not an allowed value")
    return value


def _observed(value: object, field: str) -> dict[str, object]:
    row = shape(value, field, ("observations", "graph"))
    return {
        "observations": observation_pair(row["observations"], f"{field}.observations"),
        "graph": dependency_graph(row["graph"], f"{field}.graph"),
    }


def _advisory(value: object, field: str) -> dict[str, object]:
    row = shape(value, field, ADVISORY_FIELDS)
    risk = row["heuristicRisk"]
    if not is_finite_number(risk) or not 0 <= risk <= 1:
        raise fail(f"{field}.heuristicRisk: not a number in [0, 1]")
    fixed = {"scoreKind": "uncalibrated-three-channel-heuristic"}
    fixed.update(authority="observation-only", outcome="unadjudicated")
    for key, expected in fixed.items():
        _one_of(row[key], (expected,), f"{field}.{key}")
    return {
        "state": _one_of(row["state"], _STATES, f"{field}.state"),
        "reason": _one_of(row["reason"], _REASONS, f"{field}.reason"),
        "hazard": _one_of(row["hazard"], _HAZARDS, f"{field}.hazard"),
        "heuristicRisk": risk,
        **fixed,
    }


def _acknowledgement(value: object, field: str) -> dict[str, object]:
    row = shape(value, field, ("agentId", "scopeRevision", "advisoryId"))
    return {
        "agentId": identifier(row["agentId"], f"{field}.agentId"),
        "scopeRevision": safe_int(row["scopeRevision"], f"{field}.scopeRevision"),
        "advisoryId": identifier(row["advisoryId"], f"{field}.advisoryId"),
    }


def _scope_revision(value: object, field: str) -> dict[str, object]:
    row = shape(value, field, SCOPE_FIELDS)
    identity = task_identity(row, field)
    previous = safe_int(row["previousScopeRevision"], f"{field}.previousScopeRevision")
    new = safe_int(row["newScopeRevision"], f"{field}.newScopeRevision", minimum=previous + 1)
    _one_of(row["authority"], ("declared-only",), f"{field}.authority")
    return {
        **identity,
        "previousScopeRevision": previous,
        "newScopeRevision": new,
        "newReadPaths": paths(row["newReadPaths"], f"{field}.newReadPaths"),
        "newWritePaths": paths(row["newWritePaths"], f"{field}.newWritePaths"),
        "authorizationRef": identifier(row["authorizationRef"], f"{field}.authorizationRef"),
        "authority": "declared-only",
    }


_NORMALIZERS = {
    "observation": _observed,
    "reobservation": _observed,
    "advisory": _advisory,
    "acknowledgement": _acknowledgement,
    "scope-revision": _scope_revision,
}


def normalize_payload(kind: object, value: object, field: str) -> dict[str, object]:
    """Validate and rebuild a payload of ``kind``; a fresh structure sharing nothing with input."""
    if type(kind) is not str or kind not in _NORMALIZERS:
        raise fail(f"{field}: unknown receipt kind")
    return _NORMALIZERS[kind](value, f"{field}.payload")


def new_receipt(
    trail_id: str,
    previous: list[dict[str, object]],
    receipt_id: object,
    kind: str,
    at: object,
    payload: dict[str, object],
) -> dict[str, object]:
    """A hashed receipt chained onto ``previous`` (already verified receipts)."""
    if len(previous) >= MAX_RECEIPTS:
        raise fail("receipts: trail is full")
    rid = identifier(receipt_id, "id")
    timestamp_ms(at, "at")
    previous_hash = str(previous[-1]["hash"]) if previous else ZERO_HASH
    row: dict[str, object] = {
        "version": VERSION,
        "id": rid,
        "kind": kind,
        "at": at,
        "previousHash": previous_hash,
        "payload": payload,
    }
    row["hash"] = receipt_digest(trail_id, rid, kind, str(at), previous_hash, payload)
    return row


def copy_receipts(receipts: object) -> list[dict[str, object]]:
    """Rebuild already-verified receipts so the copy shares no mutable structure with the input."""
    result: list[dict[str, object]] = []
    for index, item in enumerate(plain_list(receipts, "receipts", MAX_RECEIPTS)):
        receipt = shape(item, f"receipts[{index}]", RECEIPT_FIELDS)
        copy = {key: receipt[key] for key in RECEIPT_FIELDS}  # scalars are immutable
        copy["payload"] = normalize_payload(
            receipt["kind"], receipt["payload"], f"receipts[{index}]"
        )
        result.append(copy)
    return result
