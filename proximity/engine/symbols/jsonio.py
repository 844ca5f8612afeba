"""The symbol channel's input as JSON (the airspace's ``symbols`` key), both ways.

``{"version", "agents": {agentId: {"changes": [...], "uses": [...]}}}``; every rejection names
the offending field (``agents.alpha.changes[2].symbol``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proximity.engine.symbols.model import (
    SYMBOL_VERSION,
    CallShape,
    Param,
    Signature,
)
from proximity.engine.symbols.sides import SymbolChange, SymbolData, SymbolSide, SymbolUse

__all__ = ["SymbolInputError", "symbol_data_from_json", "symbol_data_to_json"]

_CHANGES = frozenset({"removed", "renamed", "signature", "returns", "body", "added", "state"})
_PARAM_KINDS = frozenset({"posonly", "normal", "varargs", "kwonly", "varkw"})


class SymbolInputError(ValueError):
    """Bad symbol input; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _span(value: tuple[int, int] | None) -> list[int] | None:
    return list(value) if value is not None else None


def _change_json(c: SymbolChange) -> dict[str, Any]:
    out: dict[str, Any] = {
        "symbol": c.symbol,
        "kind": c.kind,
        "changes": list(c.changes),
        "path": c.path,
        "lines": _span(c.lines),
        "baseLines": _span(c.base_lines),
        "outcome": c.outcome,
    }
    optional = {
        "renamedTo": c.renamed_to,
        "before": c.before,
        "after": c.after,
        "bound": c.bound,
        "returnsBefore": list(c.returns_before),
        "returnsAfter": list(c.returns_after),
        "class": c.cls,
        "writes": list(c.writes),
        "accesses": list(c.accesses),
        "near": [list(n) for n in c.near],
        "callers": c.callers,
        "localWrites": list(c.local_writes),
        "localReads": list(c.local_reads),
    }
    out.update({k: v for k, v in optional.items() if v})
    if c.signature is not None:
        out["params"] = [[p.name, p.kind, p.default] for p in c.signature.params]
    return out


def _use_json(u: SymbolUse) -> dict[str, Any]:
    out: dict[str, Any] = {
        "symbol": u.symbol,
        "name": u.name,
        "kind": u.kind,
        "path": u.path,
        "line": u.line,
        "exact": u.exact,
        "added": u.added,
        "bound": u.bound,
    }
    if u.scope is not None:
        out["in"] = u.scope
    if u.call is not None:
        out["call"] = [u.call.positional, list(u.call.keywords), u.call.starred]
    if u.near:
        out["near"] = list(u.near)
    if u.via:
        out["via"] = u.via
    if u.unchanged:
        out["unchanged"] = True
    return out


def symbol_data_to_json(data: SymbolData) -> dict[str, Any]:
    return {
        "version": data.version,
        "agents": {
            agent: {
                "changes": [_change_json(c) for c in side.changes],
                "uses": [_use_json(u) for u in side.uses],
            }
            for agent, side in data.sides.items()
        },
    }


def _text(entry: Mapping[str, Any], key: str, where: str, *, optional: bool = False) -> Any:
    value = entry.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise SymbolInputError(f"{where}.{key}", "must be a non-empty string")
    return value


def _texts(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SymbolInputError(f"{where}.{key}", "must be a list of strings")
    return tuple(value)


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SymbolInputError(where, "must be a non-negative integer")
    return int(value)


def _span_in(entry: Mapping[str, Any], key: str, where: str) -> tuple[int, int] | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise SymbolInputError(f"{where}.{key}", "must be [start, end]")
    start, end = _int(value[0], f"{where}.{key}[0]"), _int(value[1], f"{where}.{key}[1]")
    if start > end:
        raise SymbolInputError(f"{where}.{key}", "start must not exceed end")
    return start, end


def _signature(value: Any, where: str) -> Signature | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise SymbolInputError(where, "must be a list of [name, kind, hasDefault]")
    params = []
    for k, p in enumerate(value):
        ok = isinstance(p, list) and len(p) == 3 and isinstance(p[0], str)
        if not ok or p[1] not in _PARAM_KINDS or not isinstance(p[2], bool):
            raise SymbolInputError(f"{where}[{k}]", "must be [name, kind, hasDefault]")
        params.append(Param(p[0], p[1], p[2]))
    return Signature(tuple(params))


def _near(value: Any, where: str) -> tuple[tuple[str, int], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SymbolInputError(where, "must be a list of [symbol, signed distance]")
    out = []
    for k, n in enumerate(value):
        ok = isinstance(n, list) and len(n) == 2 and isinstance(n[0], str)
        if not ok or isinstance(n[1], bool) or not isinstance(n[1], int) or n[1] == 0:
            raise SymbolInputError(f"{where}[{k}]", "must be [symbol, non-zero distance]")
        out.append((n[0], n[1]))
    return tuple(out)


def _change(entry: Any, where: str) -> SymbolChange:
    if not isinstance(entry, Mapping):
        raise SymbolInputError(where, "must be an object")
    changes = _texts(entry, "changes", where)
    if not changes or not set(changes) <= _CHANGES:
        raise SymbolInputError(f"{where}.changes", f"must name some of {sorted(_CHANGES)}")
    return SymbolChange(
        symbol=_text(entry, "symbol", where),
        kind=_text(entry, "kind", where),
        changes=changes,
        path=_text(entry, "path", where),
        lines=_span_in(entry, "lines", where),
        base_lines=_span_in(entry, "baseLines", where),
        renamed_to=_text(entry, "renamedTo", where, optional=True),
        before=str(entry.get("before") or ""),
        after=str(entry.get("after") or ""),
        signature=_signature(entry.get("params"), f"{where}.params"),
        bound=bool(entry.get("bound")),
        returns_before=_texts(entry, "returnsBefore", where),
        returns_after=_texts(entry, "returnsAfter", where),
        outcome=str(entry.get("outcome") or ""),
        cls=_text(entry, "class", where, optional=True),
        writes=_texts(entry, "writes", where),
        accesses=_texts(entry, "accesses", where),
        near=_near(entry.get("near"), f"{where}.near"),
        callers=_int(entry.get("callers", 0), f"{where}.callers"),
        local_writes=_texts(entry, "localWrites", where),
        local_reads=_texts(entry, "localReads", where),
    )


def _call(value: Any, where: str) -> CallShape | None:
    if value is None:
        return None
    ok = isinstance(value, list) and len(value) == 3 and isinstance(value[1], list)
    if not ok or not all(isinstance(k, str) for k in value[1]) or not isinstance(value[2], bool):
        raise SymbolInputError(where, "must be [positional, [keywords], starred]")
    return CallShape(_int(value[0], f"{where}[0]"), tuple(value[1]), value[2])


def _use(entry: Any, where: str) -> SymbolUse:
    if not isinstance(entry, Mapping):
        raise SymbolInputError(where, "must be an object")
    return SymbolUse(
        symbol=_text(entry, "symbol", where),
        name=str(entry.get("name") or entry.get("symbol")),
        kind=_text(entry, "kind", where),
        path=_text(entry, "path", where),
        line=_int(entry.get("line"), f"{where}.line"),
        scope=_text(entry, "in", where, optional=True),
        call=_call(entry.get("call"), f"{where}.call"),
        exact=bool(entry.get("exact", True)),
        added=bool(entry.get("added", True)),
        bound=bool(entry.get("bound")),
        near=_texts(entry, "near", where),
        via=str(entry.get("via") or ""),
        unchanged=bool(entry.get("unchanged")),
    )


def _list(entry: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = entry.get(key) or []
    if not isinstance(value, list):
        raise SymbolInputError(f"{where}.{key}", "must be a list")
    return value


def symbol_data_from_json(value: Any) -> SymbolData:
    """Validate ``{"version"?, "agents": {id: {"changes", "uses"}}}`` into :class:`SymbolData`."""
    if not isinstance(value, Mapping):
        raise SymbolInputError("symbols", "must be an object")
    agents = value.get("agents") or {}
    if not isinstance(agents, Mapping):
        raise SymbolInputError("agents", "must be an object keyed by agent id")
    sides = {}
    for agent, entry in agents.items():
        where = f"agents.{agent}"
        if not isinstance(entry, Mapping):
            raise SymbolInputError(where, "must be {changes, uses}")
        changes = _list(entry, "changes", where)
        uses = _list(entry, "uses", where)
        sides[str(agent)] = SymbolSide(
            tuple(_change(c, f"{where}.changes[{k}]") for k, c in enumerate(changes)),
            tuple(_use(u, f"{where}.uses[{k}]") for k, u in enumerate(uses)),
        )
    return SymbolData(sides, str(value.get("version") or SYMBOL_VERSION))
