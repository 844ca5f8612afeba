"""The ``symbol`` channel: semantic hazards and call coupling between two agents' changes.

For an ordered pair (x, y) of agents, with the symbols both changed *identically* set aside
(two agents making the same refactor do not collide):

hazard
    x removes, renames, or changes the signature or return shape of S while y references S
    on its changed lines: a likely build or run-time break once both land. A call that still
    binds to the new parameters is no signature hazard (it is coupling).
coupling
    x changes F and y changes G where G uses F or F uses G within the call distance (the base
    graph's calls and name uses, or y's new reference to F or to something that uses F); x and
    y change the same symbol differently; or x's change writes an attribute of ``self`` that
    y's changed member of the same class reads or writes.

The channel value of a pair is the strongest item found in either direction (a max, as the
other channels take). Strengths are the intended risk of each item alone under the profile's
weight 1.0 (docs/DECISIONS.md, "The symbol channel"): a definite break is a Resolution
Advisory, a return-shape change against a consumer or coupling a Traffic Advisory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from proximity.engine.symbols.model import local_base
from proximity.engine.symbols.sides import (
    CALLABLE,
    SymbolChange,
    SymbolData,
    SymbolSide,
    SymbolUse,
    body_edits,
)

__all__ = [
    "Item",
    "Strengths",
    "SymbolScores",
    "attribute_item",
    "body_edits",
    "calls_coupling",
    "calls_item",
    "collect",
    "flows",
    "hazard_item",
    "interface_changed",
    "local_ends",
    "same_symbol_item",
    "scope_class",
    "semantic_item",
    "symbol_items_reference",
    "symbol_scores_reference",
    "use_coupling",
]

EVIDENCE_PER_PAIR = 5


@dataclass(frozen=True, slots=True)
class Strengths:
    """Risk of each kind of item alone (docs/DECISIONS.md, "Symbol strengths selected on pip's
    train slice"). ``coupling`` is the close kind (Traffic): members of one class, a new
    reference to a symbol whose interface changed, one symbol's interface changed by one side
    and edited by the other. ``loose`` is every other coupling (below Traffic): calls that
    already existed across classes or modules, body-only edits of one symbol, new references to
    a symbol whose body alone changed."""

    breaking: float = 0.8
    returns: float = 0.6
    coupling: float = 0.5
    loose: float = 0.15
    hop: float = 0.4
    by_name: float = 0.6
    max_distance: int = 2
    body_call: float = 0.15
    """A call (or property access) on one side's changed lines, resolved exactly (through
    imports or an inferred receiver type, a protocol call included), of a function whose
    body the other side changed. Defaults to ``loose`` (the rule off); ``radar-v1-symbols``
    raises it to Traffic (docs/DECISIONS.md, "Semantic coupling categories (issue 30)")."""
    same_body: float = 0.15
    """Both sides changed the body of one function or method (on different lines), and one
    side's changed lines write a local name the other side's changed lines read or write
    (:func:`flows`; a field of a local object counts per field): the two edits meet through
    the function's data."""
    shared_state: float = 0.15
    """One side changed or wrote state (a module variable, a class attribute, a field) that
    the other side's changed lines read or write: a read/write hazard."""
    parameter_call: float = 0.15
    """A call through an attribute of a parameter (``ctx.store.save()``) on an *unchanged*
    line of a function one side changed, of a function or method the other side changed."""
    hub_files: int = 0
    """``body_call`` is left out for a callee that code in this many other files calls
    (:attr:`SymbolChange.callers`): a hub's body changes under every caller alike, so a
    call of it says little about this pair (0: every callee counts)."""

    @classmethod
    def of(cls, values: Mapping[str, float]) -> Strengths:
        """From a profile's plain mapping; missing fields keep their defaults."""
        d = cls()
        return cls(
            breaking=float(values.get("breaking", d.breaking)),
            returns=float(values.get("returns", d.returns)),
            coupling=float(values.get("coupling", d.coupling)),
            loose=float(values.get("loose", d.loose)),
            hop=float(values.get("hop", d.hop)),
            by_name=float(values.get("by_name", d.by_name)),
            max_distance=int(values.get("max_distance", d.max_distance)),
            body_call=float(values.get("body_call", d.body_call)),
            same_body=float(values.get("same_body", d.same_body)),
            shared_state=float(values.get("shared_state", d.shared_state)),
            parameter_call=float(values.get("parameter_call", d.parameter_call)),
            hub_files=int(values.get("hub_files", d.hub_files)),
        )


class Item(NamedTuple):
    """One piece of evidence: x's ``change`` against y's ``other`` (a change or a use)."""

    strength: float
    kind: str
    reason: str
    x: int
    change: SymbolChange
    y: int
    other: SymbolChange | SymbolUse
    distance: int = 1
    detail: str = ""

    def key(self) -> tuple[str, str, tuple[int, str, int], tuple[int, str, int]]:
        """The same fact seen from either side is one item (a call found from both ends)."""
        mine = (self.x, self.change.symbol, 0)
        other = (self.y, self.other.symbol, getattr(self.other, "line", 0))
        if self.reason == "calls" and self.detail in ("calls", "called"):
            caller, callee = (mine, other) if self.detail == "calls" else (other, mine)
            return (self.reason, "", caller, callee)
        if self.reason in ("same-symbol", "attribute"):
            low, high = sorted([mine, other])
            return (self.reason, self.detail, low, high)
        return (self.reason, self.detail, mine, other)


class SymbolScores(NamedTuple):
    """Pairs ``i < j`` with a non-zero symbol channel, its value, and each pair's items."""

    i: NDArray[np.int64]
    j: NDArray[np.int64]
    value: NDArray[np.float64]
    items: Mapping[tuple[int, int], tuple[Item, ...]]


def _base(change: SymbolChange) -> bool:
    return "added" not in change.changes


_INTERFACE = frozenset({"signature", "returns"})


def interface_changed(change: SymbolChange) -> bool:
    """Did the change touch what callers see (parameters or the literal return shape)?"""
    return not _INTERFACE.isdisjoint(change.changes)


def scope_class(scope: str | None) -> str | None:
    """The class id of a method's scope id (``path::Cls.m`` -> ``path::Cls``), else None."""
    if not scope:
        return None
    path, _, qualname = scope.partition("::")
    parent, dot, _ = qualname.rpartition(".")
    return f"{path}::{parent}" if dot else None


def use_coupling(c: SymbolChange, u: SymbolUse, st: Strengths) -> float:
    """Close when y's new reference sits in a member of the class of x's changed method, or
    when x changed the interface the reference is written against; loose otherwise."""
    close = interface_changed(c) or (c.cls is not None and scope_class(u.scope) == c.cls)
    return st.coupling if close else st.loose


def calls_coupling(c: SymbolChange, c2: SymbolChange, st: Strengths) -> float:
    """Close between members of one class; loose for calls across classes or modules."""
    return st.coupling if c.cls is not None and c.cls == c2.cls else st.loose


STATE_SYMBOLS = frozenset({"constant", "state"})
STATE_USES = frozenset({"use", "call", "read", "write"})
BODY_USES = frozenset({"call", "read", "write"})


def hub(c: SymbolChange, st: Strengths) -> bool:
    """Code in at least ``st.hub_files`` other files calls ``c``'s symbol."""
    return st.hub_files > 0 and c.callers >= st.hub_files


def semantic_item(x: int, c: SymbolChange, y: int, u: SymbolUse, st: Strengths) -> Item | None:
    """Issue 30's narrow couplings of a change with an exact use on the other's changed lines:
    a call of a function whose body changed (``body-call``), a read or write of state the
    other side changed or wrote (``state``, a hazard)."""
    if not u.exact:
        return None
    if c.kind in STATE_SYMBOLS and u.kind in STATE_USES:
        return Item(st.shared_state, "hazard", "state", x, c, y, u)
    if body_edits(c) and u.kind in BODY_USES and not hub(c, st):
        return Item(st.body_call, "coupling", "body-call", x, c, y, u)
    return None


def local_ends(c: SymbolChange) -> tuple[frozenset[str], frozenset[str]]:
    """What one change's changed lines send and accept through its function's locals, keyed
    so that two edits meet (:func:`flows`) exactly when one's sent keys meet the other's
    accepted ones.

    A written name is a rebinding (``total = ...``) or, as ``name.attr`` / ``name[]``, a
    change to part of the object the name holds (``session.verify = ...``,
    ``rows.append(v)``). A rebinding meets any access of the name; a change to part of the
    object meets a read of the name and a change to the same part; two changes to
    different attributes of one object (``session.verify`` and ``session.cert``) write
    separate fields and do not meet. The sent keys are the rebindings, the changed parts and
    ``name~`` per changed object; the accepted ones the rebindings, reads, changed objects,
    changed parts and ``name~`` per read."""
    send: set[str] = set()
    accept: set[str] = set()
    for name in c.local_writes:
        base = local_base(name)
        if base == name:
            send.add(name)
            accept.add(name)
        else:
            send.update((name, base + "~"))
            accept.update((name, base))
    for name in c.local_reads:
        accept.update((name, name + "~"))
    return frozenset(send), frozenset(accept)


def flows(c: SymbolChange, c2: SymbolChange) -> tuple[str, ...]:
    """Where two edits of one body meet through its data (a def-use or a def-def of one
    variable, or a change to one field of a local object, :func:`local_ends`): the names,
    sorted. Two edits with none change separate strands of the function."""
    (send, accept), (send2, accept2) = local_ends(c), local_ends(c2)
    shared = send & accept2 | send2 & accept
    return tuple(sorted({k[:-1] if k.endswith("~") else k for k in shared}))


def same_symbol_item(x: int, c: SymbolChange, y: int, c2: SymbolChange, st: Strengths) -> Item:
    """Both changed one symbol differently: close when either changed its interface; both
    edited one function's body where the edits share a local name one of them writes
    (``same_body``; without one, loose); both wrote one piece of state."""
    close = interface_changed(c) or interface_changed(c2)
    if close:
        return Item(st.coupling, "coupling", "same-symbol", x, c, y, c2, 0)
    if body_edits(c) and body_edits(c2) and st.same_body > st.loose and flows(c, c2):
        return Item(st.same_body, "coupling", "same-symbol", x, c, y, c2, 0, "body")
    if c.kind in STATE_SYMBOLS and c2.kind in STATE_SYMBOLS and "state" in c.changes + c2.changes:
        return Item(max(st.shared_state, st.loose), "hazard", "state", x, c, y, c2, 0, "write")
    return Item(st.loose, "coupling", "same-symbol", x, c, y, c2, 0)


def hazard_item(x: int, c: SymbolChange, y: int, u: SymbolUse, st: Strengths) -> Item:
    """The strongest reading of y's use ``u`` of the symbol x changed by ``c``."""
    if u.unchanged:  # not on y's changed lines: only the parameter-attribute rule reads it
        callable_ = c.kind in CALLABLE
        strength = st.parameter_call if callable_ else st.loose
        return Item(strength, "coupling", "parameter-call" if callable_ else "uses", x, c, y, u)
    factor = 1.0 if u.exact else st.by_name
    # A method matched only by its name is evidence enough for a break, not for coupling:
    # alone, such a use stays below Traffic (0.5 * 0.6 * 0.6 = 0.18).
    base = use_coupling(c, u, st)
    weak = base if u.exact else base * st.by_name * st.by_name
    found = [Item(weak, "coupling", "uses", x, c, y, u)]
    found += [
        Item(st.breaking * factor, "hazard", reason, x, c, y, u)
        for reason in ("removed", "renamed")
        if reason in c.changes
    ]
    calls = u.kind == "call" and u.call is not None
    if "signature" in c.changes and calls and c.signature is not None and u.call is not None:
        fits = c.signature.accepts(u.call, bound=c.bound and u.bound)
        if fits is False:
            found.append(Item(st.breaking * factor, "hazard", "signature", x, c, y, u, 1, "breaks"))
        elif fits is None:
            found.append(Item(st.returns * factor, "hazard", "signature", x, c, y, u, 1, "unknown"))
    if "returns" in c.changes and u.kind == "call":
        found.append(Item(st.returns * factor, "hazard", "returns", x, c, y, u))
    semantic = semantic_item(x, c, y, u, st)
    if semantic is not None:
        found.append(semantic)
    return max(found, key=lambda item: item.strength)


def calls_item(x: int, c: SymbolChange, y: int, c2: SymbolChange, d: int, st: Strengths) -> Item:
    strength = calls_coupling(c, c2, st) * st.hop ** (abs(d) - 1)
    return Item(strength, "coupling", "calls", x, c, y, c2, abs(d), "calls" if d > 0 else "called")


def attribute_item(x: int, c: SymbolChange, y: int, c2: SymbolChange, st: Strengths) -> Item | None:
    shared = sorted(set(c.writes) & set(c2.accesses))
    if not shared:
        return None
    return Item(st.coupling, "coupling", "attribute", x, c, y, c2, 1, ",".join(shared))


def _outcomes(side: SymbolSide) -> dict[str, str]:
    out: dict[str, str] = {}
    for c in side.changes:
        out.setdefault(c.symbol, c.outcome)
    return out


def _directed(
    x: int, sx: SymbolSide, y: int, sy: SymbolSide, st: Strengths, same: set[str]
) -> Iterable[Item]:
    """Every item of x's changes against y's side, one pair at a time (the reference rules)."""
    for c in sx.changes:
        if c.symbol in same:
            continue
        if _base(c):
            for c2 in sy.changes:
                if c2.symbol == c.symbol and _base(c2):
                    yield same_symbol_item(x, c, y, c2, st)
            for u in sy.uses:
                if u.symbol == c.symbol and u.scope not in same:
                    yield hazard_item(x, c, y, u, st)
            for g, d in c.near:
                if g in same or abs(d) > st.max_distance:
                    continue
                for c2 in sy.changes:
                    if c2.symbol == g and _base(c2):
                        yield calls_item(x, c, y, c2, d, st)
            if st.max_distance >= 2:
                for u in sy.uses:
                    if c.symbol in u.near and u.scope not in same and u.symbol not in same:
                        strength = st.coupling * st.hop
                        yield Item(strength, "coupling", "calls", x, c, y, u, 2, "through")
        if c.cls is not None and c.writes:
            for c2 in sy.changes:
                if c2.cls == c.cls and c2.symbol != c.symbol and c2.symbol not in same:
                    item = attribute_item(x, c, y, c2, st)
                    if item is not None:
                        yield item


def collect(items: Iterable[Item]) -> tuple[Item, ...]:
    """One item per fact (the strongest), strongest first, in a deterministic order."""
    best: dict[tuple[object, ...], Item] = {}
    for item in items:
        key = item.key()
        held = best.get(key)
        # ties keep the lower-numbered side as x, so the result does not depend on visit order
        if held is None or (-item.strength, item.x) < (-held.strength, held.x):
            best[key] = item
    return tuple(sorted(best.values(), key=_order))


def _order(item: Item) -> tuple[object, ...]:
    return (-item.strength, item.reason, item.key())


def symbol_items_reference(
    ids: Sequence[str], data: SymbolData, strengths: Strengths
) -> dict[tuple[int, int], tuple[Item, ...]]:
    """Items of every pair, pair by pair: the obviously-correct baseline of :func:`symbol_items`."""
    out = {}
    present = [(k, data.sides[a]) for k, a in enumerate(ids) if a in data.sides]
    for n, (i, si) in enumerate(present):
        for j, sj in present[n + 1 :]:
            oi, oj = _outcomes(si), _outcomes(sj)
            same = {s for s, o in oi.items() if oj.get(s) == o}
            items = [
                *_directed(i, si, j, sj, strengths, same),
                *_directed(j, sj, i, si, strengths, same),
            ]
            if items:
                out[(i, j)] = collect(items)
    return out


def symbol_scores_reference(
    ids: Sequence[str], data: SymbolData, strengths: Strengths
) -> SymbolScores:
    """The channel for every pair of ``ids``, pair by pair (``engine="reference"`` of
    :func:`~.scores.symbol_scores`)."""
    items = symbol_items_reference(ids, data, strengths)
    pairs = sorted(items)
    i = np.array([p[0] for p in pairs], dtype=np.int64)
    j = np.array([p[1] for p in pairs], dtype=np.int64)
    value = np.array([items[p][0].strength for p in pairs], dtype=np.float64)
    return SymbolScores(i, j, value, items)
