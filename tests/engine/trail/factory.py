"""Builders for shadow-trail tests, mirroring the fixtures of the reference's test-suite."""

from __future__ import annotations

import json
from typing import Any

from proximity.engine.trail import (
    append_acknowledgement,
    append_reobservation,
    append_scope_revision,
    create_shadow_trail,
)

AT = "2026-09-15T12:00:00.000Z"
LATER = "2026-09-15T12:01:00.000Z"
LATEST = "2026-09-15T12:02:00.000Z"
BASE = "a" * 40

Trail = dict[str, Any]


def observation(agent_id: str, **overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "agentId": agent_id,
        "taskId": f"task-{agent_id}",
        "repoId": "ecc",
        "baseRevision": BASE,
        "scopeRevision": 1,
        "footprint": "complete",
        "readPaths": [],
        "writePaths": ["src/shared.js"],
        "observedAt": "2026-09-15T11:59:00.000Z",
        "expiresAt": "2026-09-15T12:05:00.000Z",
    }
    row.update(overrides)
    return row


def start(
    a: dict[str, Any] | None = None, b: dict[str, Any] | None = None, **options: Any
) -> Trail:
    pair = [a or observation("a"), b or observation("b")]
    return create_shadow_trail(trail_id="shadow-1", observations=pair, at=AT, **options)


def both_acknowledge(trail: Trail) -> Trail:
    first = append_acknowledgement(trail, id="ack-a", agent_id="a", scope_revision=1, at=LATER)
    return append_acknowledgement(first, id="ack-b", agent_id="b", scope_revision=1, at=LATER)


def revise_b(trail: Trail, **overrides: Any) -> Trail:
    arguments: dict[str, Any] = {
        "id": "scope-b2",
        "agent_id": "b",
        "previous_scope_revision": 1,
        "new_scope_revision": 2,
        "new_read_paths": [],
        "new_write_paths": ["docs/guide.md"],
        "authorization_ref": "declared-contract-42",
        "at": LATER,
    }
    arguments.update(overrides)
    return append_scope_revision(trail, **arguments)


def reobserve(trail: Trail) -> Trail:
    pair = [
        observation("a", writePaths=["src/shared.js"], observedAt=LATER),
        observation("b", scopeRevision=2, writePaths=["docs/guide.md"], observedAt=LATER),
    ]
    return append_reobservation(trail, id="reobserve-1", observations=pair, at=LATEST)


def full_chain() -> Trail:
    """The reference's "Full chain": obs, adv, ack, ack, scope, reobs, adv (7 receipts)."""
    return reobserve(revise_b(both_acknowledge(start())))


def round_trip(trail: Trail) -> Trail:
    result: Trail = json.loads(json.dumps(trail, ensure_ascii=False))
    return result
