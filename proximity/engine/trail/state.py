"""Replay of the trail's state machine (ECC-PROXIMITY.md section 7, "Verification").

obs -> adv -> ack, ack -> scope-revision -> reobs -> adv is the only full path; shorter
prefixes that do not end on a pending advisory are valid too. Each rule below exists so that
an acknowledgement or a scope change can only ever refer to a live, known advisory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from proximity.engine.trail.advisory import compute_advisory, is_current
from proximity.engine.trail.canonical import encode_canonical
from proximity.engine.trail.errors import fail
from proximity.engine.trail.validation import timestamp_ms

__all__ = ["ReplayState", "member_of", "transition"]

Row = dict[str, object]
_TASK_IDENTITY = ("agentId", "taskId", "repoId", "baseRevision")


@dataclass(frozen=True)
class ReplayState:
    """What the verifier knows after replaying a prefix of the trail."""

    observations: tuple[Row, ...] = ()
    graph: Row | None = None
    awaiting_advisory: bool = False
    latest_advisory: Row | None = None
    advisory_id: str | None = None
    acknowledgements: tuple[str, ...] = ()
    acknowledged_by: tuple[str, ...] = ()
    scope_change: Row | None = None
    reobserved: bool = False


def member_of(state: ReplayState, agent_id: object) -> Row:
    for row in state.observations:
        if row["agentId"] == agent_id:
            return row
    raise fail("agentId: not a member of the observed pair")


def _same_task(a: Row, b: Row) -> bool:
    return all(a[key] == b[key] for key in _TASK_IDENTITY)


def _observe(state: ReplayState, payload: Row) -> ReplayState:
    if state.observations:
        raise fail("observation: the trail already has one")
    return replace(
        state,
        observations=tuple(cast("list[Row]", payload["observations"])),
        graph=cast("Row", payload["graph"]),
        awaiting_advisory=True,
    )


def _advise(state: ReplayState, payload: Row, at_ms: int, receipt_id: str) -> ReplayState:
    if not state.awaiting_advisory or not state.observations or state.graph is None:
        raise fail("advisory: does not follow an observation")
    adjacency = cast("dict[str, list[str]]", state.graph["adjacency"])
    expected = compute_advisory(state.observations, adjacency, at_ms)
    if encode_canonical(payload) != encode_canonical(expected):
        raise fail("advisory: differs from the recomputed advisory")
    return replace(
        state,
        latest_advisory=expected,
        advisory_id=receipt_id,
        awaiting_advisory=False,
        acknowledgements=(),
    )


def _acknowledge(state: ReplayState, payload: Row, at_ms: int) -> ReplayState:
    if _advisory_state(state) != "advisory" or state.scope_change or state.reobserved:
        raise fail("acknowledgement: no open advisory to acknowledge")
    if payload["advisoryId"] != state.advisory_id or payload["agentId"] in state.acknowledgements:
        raise fail("acknowledgement: wrong advisory or already acknowledged")
    member = member_of(state, payload["agentId"])
    expires = timestamp_ms(member["expiresAt"], "expiresAt")
    if member["scopeRevision"] != payload["scopeRevision"] or expires <= at_ms:
        raise fail("acknowledgement: scope revision mismatch or observation expired")
    agent = cast("str", payload["agentId"])
    return replace(
        state,
        acknowledgements=(*state.acknowledgements, agent),
        acknowledged_by=(*state.acknowledged_by, agent),
    )


def _revise_scope(state: ReplayState, payload: Row, at_ms: int, at: str) -> ReplayState:
    if _advisory_state(state) != "advisory" or state.scope_change or state.reobserved:
        raise fail("scope-revision: no open advisory to revise against")
    if len(state.acknowledgements) != 2:
        raise fail("scope-revision: both agents must acknowledge first")
    member = member_of(state, payload["agentId"])
    if (
        not _same_task(member, payload)
        or member["scopeRevision"] != payload["previousScopeRevision"]
    ):
        raise fail("scope-revision: task identity or previous scope revision mismatch")
    if not all(is_current(row, at_ms) for row in state.observations):
        raise fail("scope-revision: an observation is not current")
    return replace(state, scope_change={**payload, "at": at})


def _expected_scope(change: Row, old: Row, row: Row) -> tuple[object, object, object]:
    if row["agentId"] == change["agentId"]:
        return change["newScopeRevision"], change["newReadPaths"], change["newWritePaths"]
    return old["scopeRevision"], old["readPaths"], old["writePaths"]


def _reobserve(state: ReplayState, payload: Row, at_ms: int) -> ReplayState:
    change = state.scope_change
    if change is None or state.reobserved:
        raise fail("reobservation: needs exactly one prior scope revision")
    changed_at = timestamp_ms(change["at"], "scopeChange.at")
    rows = cast("list[Row]", payload["observations"])
    for row in rows:
        old = member_of(state, row["agentId"])
        expected = _expected_scope(change, old, row)
        actual = (row["scopeRevision"], row["readPaths"], row["writePaths"])
        if not _same_task(old, row) or actual != expected:
            raise fail("reobservation: task, scope or paths differ from the declaration")
        if timestamp_ms(row["observedAt"], "observedAt") < changed_at:
            raise fail("reobservation: observed before the scope revision")
    return replace(
        state,
        observations=tuple(rows),
        graph=cast("Row", payload["graph"]),
        reobserved=True,
        awaiting_advisory=True,
    )


def _advisory_state(state: ReplayState) -> object:
    return None if state.latest_advisory is None else state.latest_advisory["state"]


def transition(state: ReplayState, receipt: Row, at_ms: int) -> ReplayState:
    """Apply one receipt (with a normalised payload) or raise with the broken rule."""
    kind, payload = receipt["kind"], cast("Row", receipt["payload"])
    if kind == "observation":
        return _observe(state, payload)
    if kind == "advisory":
        return _advise(state, payload, at_ms, cast("str", receipt["id"]))
    if state.awaiting_advisory or state.latest_advisory is None:
        raise fail(f"{kind}: an advisory is pending or missing")
    if kind == "acknowledgement":
        return _acknowledge(state, payload, at_ms)
    if kind == "scope-revision":
        return _revise_scope(state, payload, at_ms, cast("str", receipt["at"]))
    return _reobserve(state, payload, at_ms)
