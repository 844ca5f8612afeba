"""Validate the reference's JSON shapes into the data model (ECC-PROXIMITY.md sections 2 and 3).

Every rejection raises :class:`AirspaceInputError` naming the offending field, so the command
line can print one line and exit 2 before anything is written. ``lenient=True`` (the ecc-v0
profile) accepts three shapes the reference accepts and the default refuses: a reversed line
range (normalised), an agent with a missing, null or empty ``agentId`` (dropped), and a bare
adjacency object as ``graph`` (docs/DECISIONS.md, "ecc-v0 accepts what the reference accepts").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from proximity.engine.airspace.model import (
    Agent,
    Airspace,
    FileChange,
    Intent,
    Range,
)
from proximity.engine.airspace.options import parse_options
from proximity.engine.airspace.paths import normalise_path
from proximity.engine.airspace.validate import (
    AirspaceInputError,
    integer,
    number,
    parse_time_ms,
    path_field,
    time_field,
)

if TYPE_CHECKING:
    from proximity.engine.symbols.sides import SymbolData

__all__ = ["graph_adjacency", "parse_airspace"]

_STATUSES = frozenset("AMDRCT")
_HUNK_ID = re.compile(r"[0-9a-f]{8,64}")


def _pairs(value: Any, field: str, *, hunks: bool, lenient: bool = False) -> tuple[Range, ...]:
    if not isinstance(value, list):
        raise AirspaceInputError(field, "must be a list of [a, b] pairs")
    # Fast path for well-formed input (thousands of files per scan); on the first doubtful item
    # the checked loop below takes over and names the fault.
    fast: list[Range] = []
    for item in value:
        if type(item) is not list or len(item) != 2:
            break
        a, b = item
        if type(a) is not int or type(b) is not int or a < 0 or b < 0 or (a > b and not hunks):
            break
        fast.append((a, b))
    else:
        return tuple(fast)
    out: list[Range] = []
    for k, item in enumerate(value):
        where = f"{field}[{k}]"
        if not isinstance(item, list | tuple) or len(item) != 2:
            raise AirspaceInputError(where, "must be a pair")
        first, second = integer(item[0], where), integer(item[1], where)
        if not hunks and first > second:
            if not lenient:
                raise AirspaceInputError(where, "start must not exceed end")
            first, second = second, first  # the reference fixes reversed ranges with min/max
        out.append((first, second))
    return tuple(out)


def _optional(entry: Mapping[str, Any], key: str) -> Any:
    return entry.get(key)


def _hunk_ids(value: Any, hunks: Any, field: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not isinstance(hunks, list) or len(value) != len(hunks):
        raise AirspaceInputError(field, "must be a list with one id per baseHunks entry")
    for k, item in enumerate(value):
        if not isinstance(item, str) or not _HUNK_ID.fullmatch(item):
            raise AirspaceInputError(f"{field}[{k}]", "must be 8 to 64 hex digits")
    return tuple(value)


def _file(entry: Any, field: str, *, lenient: bool) -> FileChange:
    if not isinstance(entry, Mapping):
        raise AirspaceInputError(field, "must be an object")
    lines = _optional(entry, "lines")
    hunks = _optional(entry, "baseHunks")
    status = _optional(entry, "status")
    if status is not None and (not isinstance(status, str) or status[:1] not in _STATUSES):
        raise AirspaceInputError(f"{field}.status", "must be one of git's A/M/D/R/C/T")
    old = _optional(entry, "oldPath")
    ids = _hunk_ids(_optional(entry, "hunkIds"), hunks, f"{field}.hunkIds")
    weight = _optional(entry, "weight")
    touched = _optional(entry, "touchedAt")
    return FileChange(
        path=path_field(entry.get("path"), f"{field}.path"),
        lines=None
        if lines is None
        else _pairs(lines, f"{field}.lines", hunks=False, lenient=lenient),
        base_hunks=None if hunks is None else _pairs(hunks, f"{field}.baseHunks", hunks=True),
        hunk_ids=ids,
        status=None if status is None else status[0],
        old_path=None if old is None else path_field(old, f"{field}.oldPath"),
        weight=None if weight is None else number(weight, f"{field}.weight"),
        touched_at_ms=None if touched is None else time_field(touched, f"{field}.touchedAt"),
    )


def _intent(entry: Any, field: str) -> Intent:
    if isinstance(entry, str):
        return Intent(path=path_field(entry, field))
    if not isinstance(entry, Mapping):
        raise AirspaceInputError(field, "must be a path or {path, expiresAt}")
    expires = entry.get("expiresAt")
    return Intent(
        path=path_field(entry.get("path"), f"{field}.path"),
        expires_at_ms=None if expires is None else time_field(expires, f"{field}.expiresAt"),
    )


def _list(value: Any, field: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise AirspaceInputError(field, "must be a list")
    return value


def _agent(entry: Any, field: str, *, lenient: bool) -> Agent:
    if isinstance(entry, Agent):  # parsed before (a caller that keeps its agents between checks)
        return entry
    if not isinstance(entry, Mapping):
        raise AirspaceInputError(field, "must be an object")
    raw_id = entry.get("agentId")
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or raw_id == "":
        raise AirspaceInputError(f"{field}.agentId", "is required (a non-empty string)")
    agent_id = str(raw_id)
    label = entry.get("label")
    started = entry.get("startedAt")
    started_text = started if isinstance(started, str) else None
    files = _list(entry.get("files"), f"{field}.files")
    intent = _list(entry.get("intent"), f"{field}.intent")
    work = entry.get("workFiles")
    asked = entry.get("askedAt")
    published = entry.get("published", False)
    if not isinstance(published, bool):
        raise AirspaceInputError(f"{field}.published", "must be true or false")
    return Agent(
        agent_id=agent_id,
        label=label if isinstance(label, str) and label else agent_id,
        started_at=started_text,
        started_at_ms=parse_time_ms(started_text),
        files=tuple(_file(f, f"{field}.files[{k}]", lenient=lenient) for k, f in enumerate(files)),
        intent=tuple(_intent(i, f"{field}.intent[{k}]") for k, i in enumerate(intent)),
        work_files=None if work is None else integer(work, f"{field}.workFiles"),
        asked_at_ms=None if asked is None else time_field(asked, f"{field}.askedAt"),
        published=published,
    )


def graph_adjacency(graph: Any, field: str, *, bare: bool = False) -> dict[str, tuple[str, ...]]:
    """``{"adjacency": {file: [imported, ...]}}`` normalised; ``bare=True`` also takes the
    adjacency object itself, as the reference's ``graph.adjacency || graph`` does."""
    if graph is None:
        return {}
    if not isinstance(graph, Mapping):
        raise AirspaceInputError(field, "must be an object")
    if "adjacency" not in graph and graph and not bare:
        # A bare object is ambiguous (a file may be called "adjacency"): the default refuses it.
        raise AirspaceInputError(f"{field}.adjacency", 'is required: {"adjacency": {file: [...]}}')
    adj = graph.get("adjacency", graph)
    if not isinstance(adj, Mapping):
        raise AirspaceInputError(f"{field}.adjacency", "must be an object")
    out: dict[str, list[str]] = {}
    for key, targets in adj.items():
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise AirspaceInputError(f"{field}.adjacency[{key!r}]", "must be a list of paths")
        out.setdefault(normalise_path(str(key)), []).extend(normalise_path(t) for t in targets)
    return {key: tuple(value) for key, value in out.items()}


def _has_no_id(entry: Any) -> bool:
    # The reference keeps `a && a.agentId != null`; an empty id is dropped as well (its control
    # pane never sends one), so every entry without a usable id is left out.
    if isinstance(entry, Agent):
        return False
    return not isinstance(entry, Mapping) or entry.get("agentId") in (None, "")


def parse_airspace(
    data: Any,
    *,
    graphs: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
    lenient: bool = False,
) -> Airspace:
    """Validate ``{"agents", "graph", "options", "symbols"?}`` into an :class:`Airspace`.

    An entry of ``agents`` may be an :class:`Agent` this function made before: it is taken as
    it is (the agent side keeps the other agents parsed while their worktrees are unchanged).

    ``graphs`` maps a ``graphRef`` id to an already-parsed adjacency, so thousands of airspaces
    can share one repository graph. ``lenient`` accepts what the reference accepts (see the
    module docstring); field names keep the input's indices.
    """
    if not isinstance(data, Mapping):
        raise AirspaceInputError("airspace", "must be a JSON object")
    raw_agents = data.get("agents")
    if not isinstance(raw_agents, list):
        raise AirspaceInputError("agents", "must be a list")
    kept = [(k, a) for k, a in enumerate(raw_agents) if not (lenient and _has_no_id(a))]
    agents = tuple(_agent(a, f"agents[{k}]", lenient=lenient) for k, a in kept)
    seen: set[str] = set()
    for (k, _), agent in zip(kept, agents, strict=True):
        if agent.agent_id in seen:
            raise AirspaceInputError(f"agents[{k}].agentId", "duplicates an earlier agent")
        seen.add(agent.agent_id)
    adjacency = _graph(data, graphs, lenient=lenient)
    raw_options = data.get("options") or {}
    if not isinstance(raw_options, Mapping):
        raise AirspaceInputError("options", "must be an object")
    symbols = _symbols(data.get("symbols"))
    return Airspace(agents, adjacency, parse_options(raw_options), dict(raw_options), symbols)


def _symbols(value: Any) -> SymbolData | None:
    """The ``symbols`` object (docs: proximity/engine/symbols/jsonio.py), or ``None``."""
    if value is None:
        return None
    # Loaded only when given: a pre-edit check without symbols imports none of this.
    from proximity.engine.symbols.jsonio import SymbolInputError, symbol_data_from_json

    try:
        return symbol_data_from_json(value)
    except SymbolInputError as exc:
        field = exc.field if exc.field == "symbols" else f"symbols.{exc.field}"
        raise AirspaceInputError(field, str(exc).split(": ", 1)[-1]) from None


def _graph(
    data: Mapping[str, Any],
    graphs: Mapping[str, Mapping[str, tuple[str, ...]]] | None,
    *,
    lenient: bool,
) -> Mapping[str, tuple[str, ...]]:
    ref = data.get("graphRef")
    if ref is None:
        return graph_adjacency(data.get("graph"), "graph", bare=lenient)
    if graphs is None or not isinstance(ref, str) or ref not in graphs:
        raise AirspaceInputError("graphRef", "names no graph supplied with --graphs")
    return graphs[ref]
