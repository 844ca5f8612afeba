"""Channel items as advisory evidence: the symbols and lines on each side, and one sentence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proximity.engine.symbols.channel import EVIDENCE_PER_PAIR, Item, flows
from proximity.engine.symbols.model import split_id
from proximity.engine.symbols.sides import SymbolChange, SymbolUse

__all__ = ["evidence_json", "evidence_text"]

_VERBS = {
    "call": "calls",
    "use": "uses",
    "import": "imports",
    "export": "re-exports",
    "read": "reads",
    "write": "writes",
}


def _name(symbol: str) -> str:
    path, qualname = split_id(symbol)
    return f"{qualname} ({path})"


def _change_side(agent: str, c: SymbolChange) -> dict[str, Any]:
    side: dict[str, Any] = {
        "agent": agent,
        "symbol": c.symbol,
        "change": list(c.changes),
        "path": c.path,
        "lines": list(c.lines) if c.lines else None,
        "baseLines": list(c.base_lines) if c.base_lines else None,
    }
    if c.renamed_to:
        side["renamedTo"] = c.renamed_to
    if "signature" in c.changes:
        side["signature"] = {"before": c.before, "after": c.after}
    if "returns" in c.changes:
        side["returns"] = {"before": list(c.returns_before), "after": list(c.returns_after)}
    return side


def _use_side(agent: str, u: SymbolUse) -> dict[str, Any]:
    side = {
        "agent": agent,
        "symbol": u.symbol,
        "use": u.kind,
        "name": u.name,
        "path": u.path,
        "lines": [u.line, u.line],
        "in": u.scope,
        "byName": not u.exact,
    }
    if u.via:
        side["via"] = u.via
    if u.unchanged:
        side["unchanged"] = True
    return side


def _where(u: SymbolUse) -> str:
    return f"{u.path}:{u.line}" + ("" if u.exact else " (matched by name)")


def evidence_text(item: Item, ids: Sequence[str]) -> str:
    """One sentence a person or a model can act on."""
    x, y, c, other = ids[item.x], ids[item.y], item.change, item.other
    s = _name(c.symbol)
    if isinstance(other, SymbolUse):
        verb = _VERBS.get(other.kind, "uses")
        if item.reason == "removed":
            return f"{x} removes {s}; {y} {verb} it at {_where(other)}"
        if item.reason == "renamed":
            to = _name(c.renamed_to) if c.renamed_to else "another name"
            return f"{x} renames {s} to {to}; {y} {verb} the old name at {_where(other)}"
        if item.reason == "signature":
            fits = "which no longer fits" if item.detail == "breaks" else "which may not fit"
            return (
                f"{x} changes the parameters of {s} {c.before} -> {c.after}; {y} calls it at "
                f"{_where(other)}, {fits}"
            )
        if item.reason == "returns":
            before, after = ", ".join(c.returns_before), ", ".join(c.returns_after)
            return (
                f"{x} changes what {s} returns ({before} -> {after}); {y} calls it at "
                f"{_where(other)}"
            )
        if item.reason == "parameter-call":
            scope = split_id(other.scope)[1] if other.scope else "a function"
            return (
                f"{y} changes {scope}, whose unchanged line {other.line} of {other.path} calls "
                f"{split_id(c.symbol)[1]} through {other.via} (an attribute of a parameter); "
                f"{x} changes {_name(c.symbol)}"
            )
        if item.reason == "body-call":
            how = f" through {other.via}" if other.via else ""
            what = "calls" if other.kind == "call" else "accesses"
            return (
                f"{y}'s changed line {other.line} of {other.path} {what} "
                f"{split_id(c.symbol)[1]}{how}, whose body {x} changed ({_name(c.symbol)})"
            )
        if item.reason == "state":
            how = f" through {other.via}" if other.via else ""
            at = f" at {c.path}:{c.lines[0]}" if c.lines and c.kind == "state" else ""
            wrote = "writes" if c.kind == "state" else "changes"
            verb = "writes" if other.kind == "write" else "reads"
            return (
                f"{x} {wrote} {s}{at}; {y}'s changed line {other.line} of {other.path} "
                f"{verb} it{how} (shared state)"
            )
        if item.detail == "through":
            return (
                f"{x} changes {s}; {y} {verb} {_name(other.symbol)} at {_where(other)}, "
                f"which uses it (call distance 2)"
            )
        return f"{x} changes {s}; {y} {verb} it at {_where(other)}"
    g = _name(other.symbol)
    if item.reason == "state":
        return f"{x} and {y} both write {s} on their changed lines (shared state)"
    if item.reason == "same-symbol" and item.detail == "body" and isinstance(other, SymbolChange):
        shared = ", ".join(flows(c, other)) or "none"
        return (
            f"{x} and {y} both change the body of {s}, on different lines that meet through "
            f"its local {shared} (one edit writes it, the other reads or writes it)"
        )
    if item.reason == "same-symbol":
        return f"{x} and {y} both change {s}, differently"
    if item.reason == "attribute":
        owner = _name(c.cls) if c.cls else "the class"
        return (
            f"{x} writes self.{item.detail.replace(',', ', self.')} of {owner} in {s}; "
            f"{y} changes {g}, which reads or writes it"
        )
    relation = "calls or uses" if item.detail == "calls" else "is called or used by"
    hops = "directly" if item.distance == 1 else f"within {item.distance} calls"
    return f"{x} changes {s}, which {relation} {g} ({hops}); {y} changes {g}"


def _side(agent: str, part: SymbolChange | SymbolUse) -> dict[str, Any]:
    return _change_side(agent, part) if isinstance(part, SymbolChange) else _use_side(agent, part)


def evidence_json(
    items: Sequence[Item], ids: Sequence[str], i: int, *, limit: int = EVIDENCE_PER_PAIR
) -> list[dict[str, Any]]:
    """The strongest ``limit`` items of pair (i, j), each side under ``a``/``b`` as the advisory
    names them (``a`` is agent ``i``)."""
    out = []
    for item in items[:limit]:
        mine = _side(ids[item.x], item.change)
        theirs = _side(ids[item.y], item.other)
        a, b = (mine, theirs) if item.x == i else (theirs, mine)
        out.append(
            {
                "kind": item.kind,
                "reason": item.reason,
                "strength": item.strength,
                "distance": item.distance,
                "text": evidence_text(item, ids),
                "a": a,
                "b": b,
            }
        )
    return out
