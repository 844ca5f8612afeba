"""Plan sketches and the declared atom recipe that MinHash and SimHash read.

Schema (requirement 42): ``{workVersion, scopeId, deliverable, acceptance[], nodes[id, actionType,
arguments, target], edges[before, after, kind]}``. The recipe below is the one named
``PLAN_RECIPE_VERSION`` in the policy (requirement 46); changing it changes that version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "PLAN_RECIPE_VERSION",
    "PlanEdge",
    "PlanNode",
    "PlanSketch",
    "plan_atoms",
    "plan_exact_key",
    "plan_sketch_from_mapping",
]

#: Recipe ``plan-atoms/1``:
#: - ``deliverable:<text>`` and ``acceptance:<text>`` for each declared (lower-cased, whitespace
#:   collapsed) value;
#: - per node ``action:<actionType>``, ``target:<actionType>:<target>`` when the target is declared,
#:   ``arg:<actionType>:<argument>`` per declared argument;
#: - per edge ``edge:<kind>:<before actionType>-><after actionType>`` (node ids are local names,
#:   so edges are described by the actions they join).
#: A missing target, argument list or acceptance list contributes no atom: nothing is inferred
#: (requirement 47). The exact key omits ``workVersion``: it numbers the record, not the plan.
PLAN_RECIPE_VERSION = "plan-atoms/1"


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass(frozen=True, slots=True)
class PlanNode:
    """One planned action. ``target`` and ``arguments`` are ``None`` when not declared."""

    id: str
    action_type: str
    arguments: tuple[str, ...] | None = None
    target: str | None = None


@dataclass(frozen=True, slots=True)
class PlanEdge:
    """An ordering or data dependency between two nodes of the same sketch."""

    before: str
    after: str
    kind: str


@dataclass(frozen=True, slots=True)
class PlanSketch:
    """A declared plan in the schema of requirement 42."""

    work_version: int
    scope_id: str | None
    deliverable: str | None
    acceptance: tuple[str, ...] | None
    nodes: tuple[PlanNode, ...]
    edges: tuple[PlanEdge, ...] = ()

    def __post_init__(self) -> None:
        ids = [n.id for n in self.nodes]
        if len(set(ids)) != len(ids):
            raise ValueError("plan_sketch.nodes: node ids must be unique")
        for edge in self.edges:
            if edge.before not in ids or edge.after not in ids:
                raise ValueError(f"plan_sketch.edges: {edge} refers to an unknown node id")


def plan_sketch_from_mapping(data: Mapping[str, object]) -> PlanSketch:
    """Build a sketch from its JSON form (camelCase keys of requirement 42)."""
    nodes = tuple(
        PlanNode(
            id=str(n["id"]),
            action_type=str(n["actionType"]),
            arguments=_strings(n.get("arguments"), "arguments"),
            target=None if n.get("target") is None else str(n["target"]),
        )
        for n in _items(data, "nodes")
    )
    edges = tuple(
        PlanEdge(str(e["before"]), str(e["after"]), str(e["kind"])) for e in _items(data, "edges")
    )
    return PlanSketch(
        work_version=int(str(data["workVersion"])),
        scope_id=None if data.get("scopeId") is None else str(data["scopeId"]),
        deliverable=None if data.get("deliverable") is None else str(data["deliverable"]),
        acceptance=_strings(data.get("acceptance"), "acceptance"),
        nodes=nodes,
        edges=edges,
    )


def _seq(value: object, name: str) -> Sequence[object]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"plan_sketch.{name} must be a list")
    return value


def _strings(value: object, name: str) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in _seq(value, name))


def _items(data: Mapping[str, object], name: str) -> list[Mapping[str, object]]:
    items = _seq(data.get(name, []), name)
    if not all(isinstance(i, Mapping) for i in items):
        raise ValueError(f"plan_sketch.{name} must be a list of objects")
    return [i for i in items if isinstance(i, Mapping)]


def plan_exact_key(sketch: PlanSketch) -> str:
    """SHA-256 of the canonical JSON serialization (sorted keys, sorted nodes and edges).

    Equality of two keys means "same serialization", never same_task (requirement 43).
    """
    body = {
        "scopeId": sketch.scope_id,
        "deliverable": sketch.deliverable,
        "acceptance": None if sketch.acceptance is None else sorted(sketch.acceptance),
        "nodes": sorted(
            [n.id, n.action_type, None if n.arguments is None else list(n.arguments), n.target]
            for n in sketch.nodes
        ),
        "edges": sorted([e.before, e.after, e.kind] for e in sketch.edges),
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def plan_atoms(sketch: PlanSketch) -> frozenset[str]:
    """The declared atom set of recipe ``plan-atoms/1`` (see ``PLAN_RECIPE_VERSION``)."""
    atoms: set[str] = set()
    if sketch.deliverable is not None:
        atoms.add(f"deliverable:{_norm(sketch.deliverable)}")
    atoms.update(f"acceptance:{_norm(a)}" for a in sketch.acceptance or ())
    actions = {n.id: _norm(n.action_type) for n in sketch.nodes}
    for node in sketch.nodes:
        action = actions[node.id]
        atoms.add(f"action:{action}")
        if node.target is not None:
            atoms.add(f"target:{action}:{_norm(node.target)}")
        atoms.update(f"arg:{action}:{_norm(arg)}" for arg in node.arguments or ())
    atoms.update(
        f"edge:{_norm(e.kind)}:{actions[e.before]}->{actions[e.after]}" for e in sketch.edges
    )
    return frozenset(atoms)
