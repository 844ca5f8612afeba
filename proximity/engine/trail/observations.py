"""Observations, observation pairs and dependency graphs, rebuilt field by field.

Rebuilding (never copying) is what makes the hash canonical: keys come out in the reference's
documented order, path lists and graph keys sorted (ECC-PROXIMITY.md section 7, "Observation").
"""

from __future__ import annotations

from proximity.engine.trail.canonical import js_key_order, js_sorted
from proximity.engine.trail.errors import fail
from proximity.engine.trail.validation import (
    base_revision,
    identifier,
    path,
    paths,
    plain_dict,
    plain_list,
    safe_int,
    shape,
    timestamp_ms,
)

__all__ = [
    "OBSERVATION_FIELDS",
    "dependency_graph",
    "observation",
    "observation_pair",
    "task_identity",
]

OBSERVATION_FIELDS = (
    "agentId",
    "taskId",
    "repoId",
    "baseRevision",
    "scopeRevision",
    "footprint",
    "readPaths",
    "writePaths",
    "observedAt",
    "expiresAt",
)
MAX_GRAPH_NODES = 64
MAX_NODE_EDGES = 16
MAX_GRAPH_EDGES = 256


def task_identity(row: dict[str, object], field: str) -> dict[str, object]:
    """agentId, taskId, repoId, baseRevision: the identity an observation and a scope share."""
    revision = base_revision(row["baseRevision"], f"{field}.baseRevision")
    return {
        "agentId": identifier(row["agentId"], f"{field}.agentId"),
        "taskId": identifier(row["taskId"], f"{field}.taskId"),
        "repoId": identifier(row["repoId"], f"{field}.repoId"),
        "baseRevision": revision,
    }


def observation(value: object, field: str) -> dict[str, object]:
    """One normalised observation: exactly the 10 documented keys, in the documented order."""
    row = shape(value, field, OBSERVATION_FIELDS)
    identity = task_identity(row, field)
    scope = safe_int(row["scopeRevision"], f"{field}.scopeRevision")
    if type(row["footprint"]) is not str or row["footprint"] not in ("complete", "incomplete"):
        raise fail(f"{field}.footprint: not 'complete' or 'incomplete'")
    observed = timestamp_ms(row["observedAt"], f"{field}.observedAt")
    expires = timestamp_ms(row["expiresAt"], f"{field}.expiresAt")
    if expires <= observed:
        raise fail(f"{field}.expiresAt: not after observedAt")
    return {
        **identity,
        "scopeRevision": scope,
        "footprint": row["footprint"],
        "readPaths": paths(row["readPaths"], f"{field}.readPaths"),
        "writePaths": paths(row["writePaths"], f"{field}.writePaths"),
        "observedAt": row["observedAt"],
        "expiresAt": row["expiresAt"],
    }


def observation_pair(value: object, field: str) -> list[dict[str, object]]:
    """Exactly two observations of distinct agents, sorted by agentId."""
    items = plain_list(value, field, 2)
    if len(items) != 2:
        raise fail(f"{field}: not exactly two observations")
    rows = [observation(item, f"{field}[{index}]") for index, item in enumerate(items)]
    # Identifiers are ASCII, so code-point order is the reference's code-unit order here.
    rows.sort(key=lambda row: str(row["agentId"]))
    if rows[0]["agentId"] == rows[1]["agentId"]:
        raise fail(f"{field}: both observations name the same agent")
    return rows


def dependency_graph(value: object, field: str) -> dict[str, object]:
    """``{adjacency}`` with at most 64 nodes, 16 edges per node and 256 edges in total.

    Keys are sorted in JS string order and then laid out in JS property order (integer-like
    keys first), which is how the reference's null-prototype object enumerates them.
    """
    row = shape(value, field, ("adjacency",))
    adjacency = plain_dict(row["adjacency"], f"{field}.adjacency")
    if len(adjacency) > MAX_GRAPH_NODES:
        raise fail(f"{field}.adjacency: too many nodes")
    normalized: dict[str, list[str]] = {}
    edge_count = 0
    for index, name in enumerate(js_sorted(list(adjacency))):
        edges = adjacency[name]
        edge_count += len(edges) if type(edges) is list else MAX_GRAPH_EDGES + 1
        if edge_count > MAX_GRAPH_EDGES:
            raise fail(f"{field}.adjacency: too many edges")
        node = path(name, f"{field}.adjacency key {index}")
        if node in normalized:
            raise fail(f"{field}.adjacency: duplicate node")
        normalized[node] = paths(edges, f"{field}.adjacency node {index}", MAX_NODE_EDGES)
    return {"adjacency": {key: normalized[key] for key in js_key_order(list(normalized))}}
