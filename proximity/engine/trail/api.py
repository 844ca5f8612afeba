"""Public operations on a passive two-agent shadow receipt trail.

A trail is plain JSON-compatible data, ``{"version": 1, "trailId": ..., "receipts": [...]}``,
with the reference's camelCase keys, so a trail written by the JavaScript reference verifies
here and one written here verifies there. Every operation re-verifies its input and returns a
rebuilt trail (copy-on-append), so mutating an earlier result can never alter a later one.
Nothing here grants scope, sends messages or judges outcomes: the trail is read-only evidence.
"""

from __future__ import annotations

from typing import Any, cast

from proximity.engine.trail.advisory import compute_advisory
from proximity.engine.trail.canonical import VERSION, js_sorted
from proximity.engine.trail.errors import fail, guarded
from proximity.engine.trail.observations import dependency_graph, observation_pair
from proximity.engine.trail.receipts import (
    MAX_RECEIPTS,
    copy_receipts,
    new_receipt,
    normalize_payload,
)
from proximity.engine.trail.state import member_of
from proximity.engine.trail.validation import identifier, timestamp_ms
from proximity.engine.trail.verify import inspect_trail

__all__ = [
    "append_acknowledgement",
    "append_reobservation",
    "append_scope_revision",
    "create_shadow_trail",
    "summarize_shadow_trail",
]

Row = dict[str, object]
Trail = dict[str, Any]  # JSON-compatible; ``Any`` so callers can index the result they own
_EMPTY_GRAPH: Row = {"adjacency": {}}


def _trail(trail_id: str, receipts: list[Row]) -> Row:
    return {"version": VERSION, "trailId": trail_id, "receipts": receipts}


def _observed_pair(
    trail_id: str, receipts: list[Row], ids: tuple[str, str], at: str, pair: list[Row], graph: Row
) -> Row:
    """Append an (re-)observation and the advisory computed from it, then verify the result."""
    kind = "reobservation" if receipts else "observation"
    first = new_receipt(
        trail_id, receipts, ids[0], kind, at, {"observations": pair, "graph": graph}
    )
    adjacency = cast("dict[str, list[str]]", graph["adjacency"])
    advisory = compute_advisory(pair, adjacency, timestamp_ms(at, "at"))
    second = new_receipt(trail_id, [*receipts, first], ids[1], "advisory", at, advisory)
    result = _trail(trail_id, [*receipts, first, second])
    inspect_trail(result)
    return result


def _extend(trail: object, receipt_id: object, kind: str, at: object, payload: Row) -> Row:
    """Copy-on-append of one receipt: verify, rebuild every receipt, append, verify again."""
    inspect_trail(trail)
    source = cast("Row", trail)
    trail_id = cast("str", source["trailId"])
    receipts = copy_receipts(source["receipts"])
    normalized = normalize_payload(kind, payload, "input")
    receipts.append(new_receipt(trail_id, receipts, receipt_id, kind, at, normalized))
    result = _trail(trail_id, receipts)
    inspect_trail(result)
    return result


@guarded
def create_shadow_trail(
    *, trail_id: str, observations: list[Row], at: str, graph: Row | None = None
) -> Trail:
    """Start a trail with the observation of two agents and the advisory computed from it.

    Parameters
    ----------
    trail_id : identifier of the trail; receipts ``<trail_id>:observation-0`` and
        ``<trail_id>:advisory-0`` are generated as in the reference.
    observations : exactly two observations (10 keys each, ECC-PROXIMITY.md section 7).
    at : ``YYYY-MM-DDTHH:MM:SS.mmmZ`` time of both receipts.
    graph : ``{"adjacency": {path: [imported paths]}}``; defaults to an empty graph, in which
        case a quiet advisory says nothing about unsupplied dependencies.

    Returns
    -------
    dict
        A new trail ``{"version": 1, "trailId", "receipts"}`` of two receipts.
    """
    trail_id = identifier(trail_id, "trailId")
    timestamp_ms(at, "at")
    pair = observation_pair(observations, "observations")
    normalized = dependency_graph(_EMPTY_GRAPH if graph is None else graph, "graph")
    ids = (f"{trail_id}:observation-0", f"{trail_id}:advisory-0")
    return _observed_pair(trail_id, [], ids, at, pair, normalized)


@guarded
def append_acknowledgement(
    trail: object, *, id: str, agent_id: str, scope_revision: int, at: str
) -> Trail:
    """Record that one observed agent acknowledged the latest advisory (id filled in here)."""
    state = inspect_trail(trail)
    payload = {
        "agentId": agent_id,
        "scopeRevision": scope_revision,
        "advisoryId": state.advisory_id,
    }
    return _extend(trail, id, "acknowledgement", at, payload)


@guarded
def append_scope_revision(
    trail: object,
    *,
    id: str,
    agent_id: str,
    previous_scope_revision: int,
    new_scope_revision: int,
    new_read_paths: list[str],
    new_write_paths: list[str],
    authorization_ref: str,
    at: str,
) -> Trail:
    """Record one externally declared scope revision; ``authorization_ref`` is declared-only.

    taskId, repoId and baseRevision are copied from the member's observation, as in the
    reference; this function grants nothing, the real authority owner must validate it.
    """
    state = inspect_trail(trail)
    member = member_of(state, identifier(agent_id, "agentId"))
    payload = {
        "agentId": agent_id,
        "taskId": member["taskId"],
        "repoId": member["repoId"],
        "baseRevision": member["baseRevision"],
        "previousScopeRevision": previous_scope_revision,
        "newScopeRevision": new_scope_revision,
        "newReadPaths": new_read_paths,
        "newWritePaths": new_write_paths,
        "authorizationRef": authorization_ref,
        "authority": "declared-only",
    }
    return _extend(trail, id, "scope-revision", at, payload)


@guarded
def append_reobservation(
    trail: object, *, id: str, observations: list[Row], at: str, graph: Row | None = None
) -> Trail:
    """Record the fresh observation pair after the scope revision, and its new advisory.

    ``graph`` defaults to the previous receipt's graph; the advisory gets id ``<id>:advisory``.
    """
    state = inspect_trail(trail)
    timestamp_ms(at, "at")
    pair = observation_pair(observations, "observations")
    previous_graph = cast("Row", state.graph)
    normalized = dependency_graph(previous_graph if graph is None else graph, "graph")
    source = cast("Row", trail)
    receipts = copy_receipts(source["receipts"])
    if len(receipts) > MAX_RECEIPTS - 2:
        raise fail("receipts: no room for a re-observation and its advisory")
    receipt_id = identifier(id, "id")
    ids = (receipt_id, f"{receipt_id}:advisory")
    return _observed_pair(cast("str", source["trailId"]), receipts, ids, at, pair, normalized)


@guarded
def summarize_shadow_trail(trail: object) -> Trail:
    """Read-only summary: latest advisory, its own ACKs, historical ACKs and the scope change.

    The outcome is always ``unadjudicated``: the trail records declarations, not results.
    """
    state = inspect_trail(trail)
    source = cast("Row", trail)
    scope = state.scope_change
    return {
        "version": VERSION,
        "mode": "shadow-read-only",
        "trailId": source["trailId"],
        "receiptCount": len(cast("list[Row]", source["receipts"])),
        "latestAdvisory": dict(cast("Row", state.latest_advisory)),
        "latestAdvisoryId": state.advisory_id,
        "latestAdvisoryAcknowledgedBy": js_sorted(list(state.acknowledgements)),
        "historicalAcknowledgedBy": js_sorted(list(set(state.acknowledged_by))),
        "scopeChange": None if scope is None else dict(scope),  # rebuilt by inspect: unshared
        "outcome": "unadjudicated",
    }
