"""The symbol channel's input: each agent's changed symbols and touched uses, with ids.

:func:`agent_side` turns one agent's :class:`~.changes.FileChanges` into base-side ids (a
definition moved to another file is a rename, not a removal plus an addition), resolves the
references on its changed lines through the base index (exactly through imports, or by a
unique method name), and reads each changed member's attribute accesses. :func:`symbol_data`
does it for every agent and adds, for each changed symbol, the *other* changed symbols within
the call distance (the only neighbours the channel can use, so the input stays small).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from proximity.engine.symbols.changes import DefinitionChange, FileChanges
from proximity.engine.symbols.index import SymbolIndex
from proximity.engine.symbols.model import (
    SYMBOL_VERSION,
    CallShape,
    Definition,
    Reference,
    Signature,
    split_id,
    symbol_id,
)

__all__ = [
    "CALLABLE",
    "SymbolChange",
    "SymbolData",
    "SymbolSide",
    "SymbolUse",
    "agent_side",
    "body_edits",
    "edits_body",
    "symbol_data",
    "with_neighbours",
]

Span = tuple[int, int]
_USE_KINDS = frozenset({"call", "use", "import", "export"})
_STATE_KINDS = frozenset({"read", "write"})
_JS_METHODS = """push map filter reduce forEach then catch finally join split slice splice includes
indexOf find findIndex some every concat replace trim keys values entries has get set delete add
clear toString valueOf apply call bind emit on off once log error warn info debug"""
_COMMON_METHODS = frozenset(
    {n for t in (dict, list, str, set, bytes, int, float, tuple, object) for n in dir(t)}
    | set(_JS_METHODS.split())
)
"""Methods of built-in types (Python's and JavaScript's): ``obj.get()`` on an unknown ``obj``
is far more often a ``dict.get`` than the one ``get`` the repository defines, so such calls
are never matched by name."""


@dataclass(frozen=True, slots=True)
class SymbolChange:
    """One symbol an agent changed. ``path``/``lines``: where it is now (worktree side);
    ``base_lines``: where it was in the base. ``outcome`` digests the resulting state, so two
    agents that made the same change to a symbol have equal outcomes. ``near`` lists other
    changed symbols within the call distance, ``+d`` when this one reaches it in ``d`` calls or
    uses, ``-d`` when it reaches this one. ``callers``: for a function or method whose body
    changed, how many other base files hold code that calls or names it (its fan-in in the
    index, which a bounded index counts up to its bound), so the channel can tell a hub half
    the code calls from a helper two callers share. ``local_writes``/``local_reads``: the
    function's local names its changed lines write and read (on either version), so two
    edits of one body can be told to meet through a variable (``same_body``)."""

    symbol: str
    kind: str
    changes: tuple[str, ...]
    path: str
    lines: Span | None = None
    base_lines: Span | None = None
    renamed_to: str | None = None
    before: str = ""
    after: str = ""
    signature: Signature | None = None
    bound: bool = False
    returns_before: tuple[str, ...] = ()
    returns_after: tuple[str, ...] = ()
    outcome: str = ""
    cls: str | None = None
    writes: tuple[str, ...] = ()
    accesses: tuple[str, ...] = ()
    near: tuple[tuple[str, int], ...] = ()
    callers: int = 0
    local_writes: tuple[str, ...] = ()
    local_reads: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SymbolUse:
    """A reference on an agent's changed lines to a base definition ``symbol``.

    ``exact``: resolved through the imports (else matched by a unique method name).
    ``bound``: a call that passes the instance implicitly (``obj.m()``, not ``Class.m(obj)``).
    ``near``: definitions ``symbol`` itself uses that some agent changed (one hop further).
    ``kind`` ``read``/``write``: an access to state (a module variable, a class attribute, an
    object's field) on the changed lines.
    """

    symbol: str
    name: str
    kind: str
    path: str
    line: int
    scope: str | None = None
    call: CallShape | None = None
    exact: bool = True
    added: bool = True
    bound: bool = False
    near: tuple[str, ...] = ()
    via: str = ""
    """The receiver whose inferred type resolved it (``ctx.store``, ``self``), if any."""
    unchanged: bool = False
    """On an unchanged line of a function this side changed: kept only for a call through an
    attribute of one of its parameters (``def f(ctx): ctx.store.save()``)."""


@dataclass(frozen=True, slots=True)
class SymbolSide:
    changes: tuple[SymbolChange, ...] = ()
    uses: tuple[SymbolUse, ...] = ()


@dataclass(frozen=True, slots=True)
class SymbolData:
    """Symbol sides by agent id; an agent absent here has no symbol data (unknown, not clear)."""

    sides: Mapping[str, SymbolSide] = field(default_factory=dict)
    version: str = SYMBOL_VERSION


def _outcome(change: DefinitionChange, renamed_to: str | None) -> str:
    after = change.after
    parts = [",".join(change.changes), renamed_to or ""]
    if after is not None:
        signature = after.signature.text if after.signature is not None else ""
        parts += [after.header, after.body, signature, ",".join(after.returns)]
    return hashlib.sha1("\0".join(parts).encode(), usedforsecurity=False).hexdigest()[:16]


def _interface(d: Definition | None) -> str:
    """What a caller or reader is written against: parameters, or a field's declared type."""
    if d is None:
        return ""
    if d.signature is not None:
        return d.signature.text
    return d.header if d.kind == "field" else ""


def _symbol_change(fc: FileChanges, change: DefinitionChange) -> SymbolChange:
    added = change.changes == ("added",)
    home = fc.path if added else fc.base_path
    before, after = change.before, change.after
    renamed_to = symbol_id(fc.path, change.renamed_to) if change.renamed_to else None
    shown = before if before is not None else after
    parent = shown.parent if shown is not None else None
    return SymbolChange(
        symbol=symbol_id(home, change.qualname),
        kind=change.kind,
        changes=change.changes,
        path=fc.path,
        lines=(after.start, after.end) if after is not None else None,
        base_lines=(before.start, before.end) if before is not None else None,
        renamed_to=renamed_to,
        before=_interface(before),
        after=_interface(after),
        signature=after.signature if after is not None else None,
        bound=after.bound if after is not None else bool(before and before.bound),
        returns_before=before.returns if before is not None else (),
        returns_after=after.returns if after is not None else (),
        outcome=_outcome(change, renamed_to),
        cls=symbol_id(home, parent) if change.kind in ("method", "field") and parent else None,
        writes=change.writes,
        accesses=change.accesses,
        local_writes=change.local_writes,
        local_reads=change.local_reads,
    )


def _moves(changes: list[tuple[FileChanges, DefinitionChange]]) -> list[SymbolChange]:
    """Symbol changes of one agent; a removal and an identical addition elsewhere are a move."""
    out = [_symbol_change(fc, c) for fc, c in changes]
    added: dict[tuple[str, str, str], int] = {}
    for k, (_, c) in enumerate(changes):
        if c.changes == ("added",) and c.after is not None and c.kind != "method":
            added.setdefault((c.kind, c.after.header, c.after.body), k)
    dropped = set()
    for k, (fc, c) in enumerate(changes):
        if c.changes != ("removed",) or c.before is None:
            continue
        hit = added.get((c.kind, c.before.header, c.before.body))
        if hit is not None and hit not in dropped and changes[hit][0].path != fc.path:
            target = out[hit]
            out[k] = replace(
                out[k],
                changes=("renamed",),
                renamed_to=target.symbol,
                lines=target.lines,
                path=target.path,
                outcome=target.outcome,
            )
            dropped.add(hit)
    return [c for k, c in enumerate(out) if k not in dropped]


def _scope_id(fc: FileChanges, scope: str, renamed_back: Mapping[str, str]) -> str | None:
    if not scope:
        return None
    if fc.base is not None and scope in renamed_back:
        return symbol_id(fc.base_path, renamed_back[scope])
    base_names = {d.qualname for d in fc.base.definitions} if fc.base is not None else set()
    return symbol_id(fc.base_path if scope in base_names else fc.path, scope)


def _field_uses(
    fc: FileChanges,
    index: SymbolIndex,
    targets: Sequence[str | None],
    renamed_back: Mapping[str, str],
) -> list[SymbolUse]:
    """Reads and writes, on the changed lines, of a field (JS/TS: a class field, an interface's
    or object type's member, an object literal's property): uses of it, so its removal, rename
    or new type meets them as a call meets a changed function. Python's ``self.x`` is no field
    definition and stays with the attribute rule."""
    head = fc.head
    added = set(fc.added)
    out: list[SymbolUse] = []
    if head is None:
        return out
    for k in fc.touched:
        ref, target = head.references[k], targets[k]
        if ref.kind not in ("read", "write") or target is None:
            continue
        if fc.path != fc.base_path and target.startswith(fc.path + "::"):
            target = symbol_id(fc.base_path, split_id(target)[1])
        definition = index.definition(target)
        if definition is None or definition.kind != "field":
            continue
        scope = _scope_id(fc, ref.scope, renamed_back)
        out.append(
            SymbolUse(target, ref.name, ref.kind, fc.path, ref.line, scope, added=k in added)
        )
    return out


def _bound_call(ref: Reference, target: str) -> bool:
    """Does the call pass the instance itself? ``Class.method(x)`` does not; ``x.method()``,
    ``self.method()`` and a method matched by name do."""
    qualname = split_id(target)[1]
    if "." not in qualname:
        return False
    owner = qualname.rsplit(".", 1)[0].rsplit(".", 1)[-1]
    parts = ref.name.split(".")
    return not (len(parts) >= 2 and parts[-2] == owner)


def _is_state(index: SymbolIndex, target: str) -> bool:
    """A module variable, or an attribute of a class (a field, declared or not)."""
    definition = index.definition(target)
    if definition is not None:
        return definition.kind in ("constant", "function", "method")  # a property is state
    path, qualname = split_id(target)
    owner = (
        index.definition(symbol_id(path, qualname.rsplit(".", 1)[0])) if "." in qualname else None
    )
    return owner is not None and owner.kind == "class"


def _parameter_calls(
    fc: FileChanges, index: SymbolIndex, targets: Sequence[str | None]
) -> list[SymbolUse]:
    """Calls through an attribute of a parameter (``ctx.store.save()``, typed) on unchanged
    lines of a function whose body this side changed: the object the function is handed is
    what its change works on, so a change to the called method's behaviour meets it."""
    head = fc.head
    changed = {
        c.after.qualname: c.after
        for c in fc.definitions
        if c.after is not None and c.kind in ("function", "method") and "body" in c.changes
    }
    if head is None or not changed:
        return []
    touched = set(fc.touched)
    renamed_back = {c.renamed_to: c.qualname for c in fc.definitions if c.renamed_to}
    out = []
    for k, ref in enumerate(head.references):
        d = changed.get(ref.scope)
        if d is None or k in touched or ref.kind != "call" or "." not in ref.via:
            continue
        params = [p.name for p in d.signature.params] if d.signature is not None else []
        if ref.via.split(".")[0] not in params[1 if d.bound else 0 :]:
            continue
        target = targets[k]
        definition = index.definition(target) if target is not None else None
        if target is None or definition is None or definition.kind not in ("function", "method"):
            continue
        scope = _scope_id(fc, ref.scope, renamed_back)
        use = SymbolUse(target, ref.name, "call", fc.path, ref.line, scope, ref.call)
        out.append(replace(use, added=False, bound=True, via=ref.via, unchanged=True))
    return out


def _uses(fc: FileChanges, index: SymbolIndex) -> list[SymbolUse]:
    head = fc.head
    if head is None:
        return []
    if not fc.touched and not any("body" in c.changes for c in fc.definitions):
        return []
    targets = index.link_foreign(fc.path, head).targets
    return _touched_uses(fc, index, targets) + _parameter_calls(fc, index, targets)


def _touched_uses(
    fc: FileChanges, index: SymbolIndex, targets: Sequence[str | None]
) -> list[SymbolUse]:
    head = fc.head
    if head is None:
        return []
    renamed_back = {c.renamed_to: c.qualname for c in fc.definitions if c.renamed_to}
    added = set(fc.added)
    out: list[SymbolUse] = []
    for k in fc.touched:
        ref = head.references[k]
        state = ref.kind in _STATE_KINDS
        if ref.kind not in _USE_KINDS and not state:
            continue
        target, exact = targets[k], True
        if target is not None and fc.path != fc.base_path and target.startswith(fc.path + "::"):
            target = symbol_id(fc.base_path, split_id(target)[1])
        member = ref.name.rsplit(".", 1)[-1]
        if target is None and ref.kind == "call" and not ref.via and member not in _COMMON_METHODS:
            target, exact = index.unique_callable(member), False
        if state:
            if target is not None and _is_state(index, target):
                scope = _scope_id(fc, ref.scope, renamed_back)
                out.append(
                    SymbolUse(target, ref.name, ref.kind, fc.path, ref.line, scope, via=ref.via)
                )
            continue
        definition = index.definition(target) if target is not None else None
        if target is None or definition is None:
            continue
        scope = _scope_id(fc, ref.scope, renamed_back)
        use = SymbolUse(
            target,
            ref.name,
            ref.kind,
            fc.path,
            ref.line,
            scope,
            ref.call,
            exact,
            k in added,
            bool(ref.via) or _bound_call(ref, target),
            via=ref.via,
        )
        out.append(use)
        init = f"{target}.__init__"
        if definition.kind == "class" and ref.kind == "call" and index.definition(init):
            out.append(replace(use, symbol=init, bound=True))  # the constructor is called too
    return out + _field_uses(fc, index, targets, renamed_back)


def _state_changes(
    changes: Sequence[SymbolChange], uses: Sequence[SymbolUse]
) -> list[SymbolChange]:
    """A write of state on the changed lines is a change of that state (kind ``state``), so
    every rule that joins a change with another side's use or change applies to it: another
    side's read or write on its changed lines is a read/write hazard (issue 30)."""
    have = {c.symbol for c in changes}
    out: list[SymbolChange] = []
    for u in uses:
        if u.kind != "write" or u.symbol in have:
            continue
        have.add(u.symbol)
        digest = hashlib.sha1(
            f"state\0{u.path}\0{u.line}\0{u.name}".encode(), usedforsecurity=False
        ).hexdigest()[:16]
        out.append(
            SymbolChange(u.symbol, "state", ("state",), u.path, (u.line, u.line), outcome=digest)
        )
    return out


def agent_side(files: Sequence[FileChanges], index: SymbolIndex) -> SymbolSide:
    """One agent's changes as channel input (without ``near``; see :func:`symbol_data`)."""
    changes = [(fc, c) for fc in files for c in fc.definitions]
    uses = [u for fc in files for u in _uses(fc, index)]
    moved = _moves(changes)
    return SymbolSide(tuple(moved + _state_changes(moved, uses)), tuple(uses))


def _near(
    index: SymbolIndex, start: str, wanted: set[str], cap: int
) -> tuple[tuple[str, int], ...]:
    """Wanted symbols within ``cap`` directed uses of ``start``, signed by direction."""
    best: dict[str, int] = {}
    for sign, step in ((1, index.uses), (-1, index.users)):
        seen = {start}
        frontier: deque[tuple[str, int]] = deque([(start, 0)])
        while frontier:
            node, depth = frontier.popleft()
            if depth == cap:
                continue
            for nxt in step(node):
                if nxt in seen:
                    continue
                seen.add(nxt)
                frontier.append((nxt, depth + 1))
                if nxt in wanted and abs(best.get(nxt, cap + 1)) > depth + 1:
                    best[nxt] = sign * (depth + 1)
    return tuple(sorted(best.items()))


def symbol_data(
    agents: Mapping[str, Sequence[FileChanges]], index: SymbolIndex, *, max_distance: int = 2
) -> SymbolData:
    """Every agent's side (:func:`agent_side`) with its neighbours (:func:`with_neighbours`)."""
    sides = {agent: agent_side(files, index) for agent, files in agents.items()}
    return with_neighbours(sides, index, max_distance=max_distance)


CALLABLE = frozenset({"function", "method"})


def body_edits(c: SymbolChange) -> bool:
    """A function's or method's body changed (what it does, not what callers pass)."""
    return edits_body(c.kind, c.changes)


def edits_body(kind: str, changes: tuple[str, ...]) -> bool:
    """:func:`body_edits` of a change's ``kind`` and ``changes`` (the array channel asks it once
    per distinct pair)."""
    return kind in CALLABLE and "body" in changes


def _callers(index: SymbolIndex, c: SymbolChange) -> int:
    """Other base files whose code calls or names ``c``'s symbol (:meth:`SymbolIndex.callers`);
    0 unless its body changed (the only rule that reads it)."""
    return index.callers(c.symbol) if body_edits(c) else 0


def with_neighbours(
    sides: Mapping[str, SymbolSide], index: SymbolIndex, *, max_distance: int = 2
) -> SymbolData:
    """The sides with ``near`` filled from ``index``'s uses, restricted to changed symbols,
    and ``callers`` of every function or method whose body changed.

    Restricting ``near``, and keeping only the uses of a changed symbol or of one whose own
    uses reach a changed symbol, is exact for the channel: nothing left out can raise a pair.
    ``max_distance`` is the call distance the channel looks at (radar's default 2).
    """
    changed = {c.symbol for side in sides.values() for c in side.changes if c.changes != ("added",)}
    memo: dict[str, tuple[tuple[str, int], ...]] = {}
    out = {}
    for agent, side in sides.items():
        changes = []
        for c in side.changes:
            if c.changes != ("added",):
                if c.symbol not in memo:
                    memo[c.symbol] = _near(index, c.symbol, changed - {c.symbol}, max_distance)
                c = replace(c, near=memo[c.symbol], callers=_callers(index, c))
            changes.append(c)
        uses = []
        for u in side.uses:
            near = () if u.unchanged else tuple(g for g in index.uses(u.symbol) if g in changed)
            if near or u.symbol in changed:  # any other use can raise no pair: left out
                uses.append(replace(u, near=near))
        out[agent] = SymbolSide(tuple(changes), tuple(uses))
    return SymbolData(out)
