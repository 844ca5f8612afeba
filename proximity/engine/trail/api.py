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
    """Record that one observed agent acknowledged the latest advisory.

    Parameters
    ----------
    trail : a valid trail; it is re-verified and never modified.
    id : receipt identifier, unique within the trail.
    agent_id, scope_revision : must name a member and its current scope revision.
    at : receipt time; the member's observation must not have expired.

    Returns
    -------
    dict
        A rebuilt trail with one more receipt; ``advisoryId`` is filled in from the trail, as
        in the reference (ECC-PROXIMITY.md section 7, "Inputs"). Only an ``advisory`` state can
        be acknowledged: unknown or quiet advisories cannot be turned into a consent record.
    """
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
    """Record one externally declared scope revision, after both agents acknowledged.

    Parameters
    ----------
    trail : a valid trail whose latest advisory is acknowledged by both agents.
    id : receipt identifier, unique within the trail.
    agent_id, previous_scope_revision : the revised member and its current scope revision.
    new_scope_revision : greater than ``previous_scope_revision``.
    new_read_paths, new_write_paths : the declared new footprint (sorted on the way in).
    authorization_ref : the caller's reference, recorded with ``authority: declared-only``.
    at : receipt time; both observations must still be current.

    Returns
    -------
    dict
        A rebuilt trail with one more receipt. taskId, repoId and baseRevision are copied from
        the member (ECC-PROXIMITY.md section 7, "Inputs"). Nothing is granted: the real
        authority owner must validate the reference before any work changes.
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

    Parameters
    ----------
    trail : a valid trail ending with a scope revision.
    id : identifier of the re-observation; its advisory gets ``<id>:advisory``.
    observations : the same two tasks; the revised agent with exactly its declared scope,
        the other unchanged, both observed at or after the scope revision.
    at : receipt time of both new receipts.
    graph : a new dependency graph; defaults to the previous observation's graph.

    Returns
    -------
    dict
        A rebuilt trail with two more receipts (at most 7 in all, ECC-PROXIMITY.md section 7).
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
    """Read-only summary of a valid trail, in the reference's shape.

    Parameters
    ----------
    trail : a trail; it is fully verified first.

    Returns
    -------
    dict
        ``version, mode ('shadow-read-only'), trailId, receiptCount, latestAdvisory,
        latestAdvisoryId, latestAdvisoryAcknowledgedBy, historicalAcknowledgedBy, scopeChange,
        outcome`` (ECC-PROXIMITY.md section 7, "Summary"). The outcome is always
        ``unadjudicated``: the trail records declarations, not results.
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
