"""Small builders for airspace inputs (plain JSON-shaped dicts, as callers send them)."""

from __future__ import annotations

from typing import Any

NOW = "2026-09-15T12:00:00Z"


def agent(agent_id: str, *files: Any, started: str | None = None, **extra: Any) -> dict[str, Any]:
    entries = [{"path": f} if isinstance(f, str) else f for f in files]
    out: dict[str, Any] = {"agentId": agent_id, "files": entries, **extra}
    if started is not None:
        out["startedAt"] = started
    return out


def airspace(
    *agents: dict[str, Any], graph: dict[str, list[str]] | None = None, **options: Any
) -> dict[str, Any]:
    return {
        "agents": list(agents),
        "graph": {"adjacency": graph or {}},
        "options": {"now": NOW, **options},
    }


def pair_link(result: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    for link in result["links"]:
        if {link["a"], link["b"]} == {a, b}:
            found: dict[str, Any] = link
            return found
    raise AssertionError(f"no link between {a} and {b}")
