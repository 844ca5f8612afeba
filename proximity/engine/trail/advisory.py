"""The advisory a trail records after each (re-)observation, recomputed again by the verifier.

Semantics are the reference's (ECC-PROXIMITY.md section 7, "Advisory"): an exact path hazard
beats the score, and any reason (incomparable, stale/future, incomplete) turns the state into
``unknown``, because a missing or outdated footprint must never read as "clear".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from proximity.engine.airspace import collision_risk_paths
from proximity.engine.trail.canonical import js_sorted
from proximity.engine.trail.validation import timestamp_ms

__all__ = [
    "ADVISORY_FIELDS",
    "TRAFFIC_THRESHOLD",
    "compute_advisory",
    "direct_hazard",
    "is_current",
]

ADVISORY_FIELDS = (
    "state",
    "reason",
    "hazard",
    "heuristicRisk",
    "scoreKind",
    "authority",
    "outcome",
)
TRAFFIC_THRESHOLD = 0.35  # tau_TA of the ecc-v0 profile (ECC-PROXIMITY.md section 2)
SCORE_KIND = "uncalibrated-three-channel-heuristic"

Observation = Mapping[str, object]


def _paths(row: Observation, key: str) -> list[str]:
    return cast("list[str]", row[key])  # normalised observations hold validated path lists


def direct_hazard(a: Observation, b: Observation) -> str | None:
    """``write-write`` beats ``write-read``; reads alone never make a hazard."""
    a_writes, b_writes = set(_paths(a, "writePaths")), set(_paths(b, "writePaths"))
    if a_writes & b_writes:
        return "write-write"
    if a_writes & set(_paths(b, "readPaths")) or b_writes & set(_paths(a, "readPaths")):
        return "write-read"
    return None


def _footprint(row: Observation) -> list[str]:
    return js_sorted(list(set(_paths(row, "readPaths")) | set(_paths(row, "writePaths"))))


def _risk(a: Observation, b: Observation, adjacency: Mapping[str, Sequence[str]]) -> float:
    """Worst of (A's writes against everything B touches) and the converse, as whole-file edits."""
    first = collision_risk_paths(_paths(a, "writePaths"), _footprint(b), adjacency)
    second = collision_risk_paths(_paths(b, "writePaths"), _footprint(a), adjacency)
    return max(first, second)


def _as_js_number(value: float) -> int | float:
    """0.0 and 1.0 become ints so ``json.dumps`` writes ``0``/``1`` as ``JSON.stringify`` does.

    The hash is unaffected (the canonical encoder prints both alike); this only keeps trail
    files written here byte-identical to the reference's for the common whole-number risks.
    """
    return int(value) if value.is_integer() else value


def is_current(row: Observation, at_ms: int) -> bool:
    """observedAt <= at < expiresAt, on a normalised observation."""
    observed = timestamp_ms(row["observedAt"], "observedAt")
    return observed <= at_ms < timestamp_ms(row["expiresAt"], "expiresAt")


def _reason(pair: Sequence[Observation], at_ms: int) -> str | None:
    a, b = pair
    if a["repoId"] != b["repoId"] or a["baseRevision"] != b["baseRevision"]:
        return "incomparable-context"
    if not all(is_current(row, at_ms) for row in pair):
        return "stale-or-future-observation"
    if any(row["footprint"] == "incomplete" for row in pair):
        return "incomplete-footprint"
    return None


def compute_advisory(
    pair: Sequence[Observation],
    adjacency: Mapping[str, Sequence[str]],
    at_ms: int,
) -> dict[str, object]:
    """The 7-field advisory payload for a normalised pair at ``at_ms``.

    Parameters
    ----------
    pair : the two normalised observations, sorted by agentId.
    adjacency : the normalised graph's adjacency (out-edges), passed to the ecc-v0 scorer.
    at_ms : the receipt time in epoch milliseconds.

    Returns
    -------
    dict
        Keys in the reference's payload order: state, reason, hazard, heuristicRisk,
        scoreKind, authority, outcome.
    """
    hazard = direct_hazard(pair[0], pair[1])
    risk = _risk(pair[0], pair[1], adjacency)
    reason = _reason(pair, at_ms)
    if reason is not None:
        state = "unknown"
    elif hazard is not None or risk >= TRAFFIC_THRESHOLD:
        state = "advisory"
    else:
        state = "no-advisory-in-scope"
    return {
        "state": state,
        "reason": reason,
        "hazard": None if reason == "incomparable-context" else hazard,
        "heuristicRisk": _as_js_number(risk),
        "scoreKind": SCORE_KIND,
        "authority": "observation-only",
        "outcome": "unadjudicated",
    }
