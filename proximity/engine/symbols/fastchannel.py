"""The symbol channel by array joins: the same items as the per-pair reference, found at once.

Every change, use and neighbour of every agent becomes a row; symbols are interned to
integers. Items are joins on the symbol: (1) changes of one symbol by two agents, (2) uses of a
symbol someone changed, (3) a change's neighbours changed by someone else, (4) a use whose
target uses something someone changed. Rows where both agents made the same change to a
symbol involved are dropped, as the reference's "identical" set does. A pair's value is its
strongest row; its :class:`~.channel.Item` objects are built only when the pair's evidence is
read (few pairs are published, and a busy airspace has hundreds of thousands of rows).
Attribute items (members of one class) are rare and found by the reference's own loop.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.crossing import ragged_cross, ragged_range
from proximity.engine.symbols.channel import (
    BODY_USES,
    STATE_SYMBOLS,
    STATE_USES,
    Item,
    Strengths,
    SymbolScores,
    attribute_item,
    calls_item,
    collect,
    hazard_item,
    local_ends,
    same_symbol_item,
    scope_class,
)
from proximity.engine.symbols.model import CallShape
from proximity.engine.symbols.sides import (
    CALLABLE,
    SymbolChange,
    SymbolData,
    SymbolUse,
    edits_body,
)

__all__ = ["symbol_scores_fast"]

Ints = NDArray[np.int64]
Ends = tuple[frozenset[str], frozenset[str]]
_SAME, _USE, _NEAR, _THROUGH, _ATTRIBUTE = range(5)
_EMPTY = np.zeros(0, dtype=np.int64)


class _LocalEnds:
    """:func:`channel.local_ends` of each change, computed when first asked and shared by
    changes with equal name tuples (most edits write and read few, common names)."""

    def __init__(self, changes: Sequence[SymbolChange]) -> None:
        self.changes = changes
        self.memo: dict[tuple[tuple[str, ...], tuple[str, ...]], Ends] = {}

    def of(self, k: int) -> Ends:
        c = self.changes[k]
        key = (c.local_writes, c.local_reads)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = local_ends(c)
        return found


class _Rows:
    """The sides as flat arrays; ``changes``/``uses`` keep the records for evidence.

    Symbols are interned to dense integers (:func:`_intern`), outcomes compared by hash; the
    rest are joins on those integers.
    """

    def __init__(self, ids: Sequence[str], data: SymbolData) -> None:
        present = [(k, data.sides[a]) for k, a in enumerate(ids) if a in data.sides]
        self.changes: list[SymbolChange] = [c for _, side in present for c in side.changes]
        self.uses: list[SymbolUse] = [u for _, side in present for u in side.uses]
        changes, uses = self.changes, self.uses
        agents = np.array([k for k, _ in present], dtype=np.int64)
        self.c_agent = np.repeat(agents, [len(side.changes) for _, side in present])
        self.u_agent = np.repeat(agents, [len(side.uses) for _, side in present])
        # Every flag of a change (or use) is looked up once per distinct kind: one pass over
        # the records' attributes each, not one per flag (a pass over 50,000 records is
        # mostly their memory reads).
        flags = _codes(
            _CHANGE_FLAGS,
            zip(map(_GET_KIND, changes), map(_GET_CHANGES, changes), strict=True),
            len(changes),
        )
        self.c_base, self.c_gone = (flags & _ADDED) == 0, (flags & _GONE) != 0
        self.c_returns, self.c_signature = (flags & _RETURNS) != 0, (flags & _SIGNATURE) != 0
        self.c_interface = self.c_returns | self.c_signature
        # issue 30's narrow couplings (channel.semantic_item): body edits, state changed
        self.c_body = (flags & _BODY) != 0
        self.c_state = (flags & _STATE) != 0
        self.c_wrote = (flags & _WROTE) != 0
        self.c_callable = (flags & _CALLABLE) != 0
        self.c_locals = np.fromiter(
            map(bool, map(_GET_WRITES, changes)), dtype=bool, count=len(changes)
        )
        self._local_sets: _LocalEnds | None = None
        self.c_callers = np.fromiter(map(_GET_CALLERS, changes), dtype=np.int64, count=len(changes))
        u_flags = _codes(_USE_FLAGS, map(_GET_KIND, uses), len(uses))
        self.u_state = (u_flags & _STATE_USE) != 0
        self.u_body = (u_flags & _BODY_USE) != 0
        self.u_call = (u_flags & _CALL_USE) != 0
        self.u_unchanged = np.fromiter(map(_GET_UNCHANGED, uses), dtype=bool, count=len(uses))
        self.u_exact = np.fromiter(map(_GET_EXACT, uses), dtype=bool, count=len(uses))
        # A change's class by string hash (as symbols are interned): two members of one class
        # have equal hashes; ``c_has_class`` rules out functions outside any class.
        classes = list(map(_GET_CLS, changes))
        self.c_has_class = np.fromiter(map(bool, classes), dtype=bool, count=len(changes))
        self.c_class = np.fromiter(map(hash, classes), dtype=np.int64, count=len(changes))
        # A symbol's neighbours are one tuple shared by every change of it (the producer
        # computes them once per symbol): read once per distinct tuple, then spread.
        near_lists = list(map(_GET_NEAR, changes))
        ident = np.fromiter(map(id, near_lists), dtype=np.int64, count=len(near_lists))
        _, first, which = np.unique(ident, return_index=True, return_inverse=True)
        which = which.ravel()
        distinct = [near_lists[k] for k in first.tolist()]
        sizes = np.fromiter(map(len, distinct), dtype=np.int64, count=len(distinct))
        near = list(chain.from_iterable(distinct))
        n_names, n_d = zip(*near, strict=True) if near else ((), ())
        self.n_change, at = ragged_range(sizes[which] if len(sizes) else _EMPTY)
        spread = (np.cumsum(sizes) - sizes)[which[self.n_change]] + at
        through_lists = list(map(_GET_NEAR, uses))
        self.t_use = np.repeat(np.arange(len(uses)), list(map(len, through_lists)))
        # Only a changed symbol can join anything: uses and neighbours of other symbols get -1.
        self.c_sym, others, self.n_symbols = _intern(
            list(map(_GET_SYMBOL, changes)),
            (list(map(_GET_SYMBOL, uses)), list(n_names), list(chain.from_iterable(through_lists))),
        )
        self.u_sym, n_sym, self.t_sym = others
        self.n_sym = n_sym[spread]
        self.n_d = np.array(n_d, dtype=np.int64)[spread]
        self._outcomes()
        # A use's scope matters only when both agents changed it identically (a twin).
        twins = {changes[k].symbol: int(self.c_sym[k]) for k in self.twin_changes.tolist()}
        self.u_scope = np.full(len(uses), -1, dtype=np.int64)
        if twins:
            self.u_scope[:] = [twins.get(u.scope, -1) if u.scope else -1 for u in uses]
        order = np.flatnonzero(self.c_base)
        order = order[np.argsort(self.c_sym[order], kind="stable")]
        self.by_symbol = order  # base changes grouped by symbol
        self.ptr = np.searchsorted(self.c_sym[order], np.arange(self.n_symbols + 1))

    def local_masks(
        self, wanted: Ints
    ) -> tuple[tuple[NDArray[np.uint64], NDArray[np.uint64]], bool]:
        """The sent and accepted local keys (:func:`channel.local_ends`) of the changes
        ``wanted`` as 64-bit masks over all changes (zero elsewhere), and whether they are
        exact: one bit per distinct key when at most 64 are seen, else a bit per key modulo
        64, which only ever adds candidates (two disjoint sets may share a bit, two meeting
        sets always do). Changes sharing their names share the work."""
        bits: dict[str, int] = {}
        of: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[int, int]] = {}
        send = np.zeros(len(self.changes), dtype=np.uint64)
        accept = np.zeros(len(self.changes), dtype=np.uint64)
        ends = self.local_sets()
        for k in wanted.tolist():
            c = self.changes[k]
            found = of.get((c.local_writes, c.local_reads))
            if found is None:
                masks = [0, 0]
                for side, keys in enumerate(ends.of(k)):
                    for key in keys:
                        masks[side] |= 1 << (bits.setdefault(key, len(bits)) % 64)
                found = of[(c.local_writes, c.local_reads)] = (masks[0], masks[1])
            send[k], accept[k] = found
        return (send, accept), len(bits) <= 64

    def local_sets(self) -> _LocalEnds:
        """Each change's sent and accepted local keys (:func:`channel.local_ends`), read on
        first use and once per distinct pair of name tuples."""
        if self._local_sets is None:
            self._local_sets = _LocalEnds(self.changes)
        return self._local_sets

    def _outcomes(self) -> None:
        """First outcome per (agent, symbol), as sorted keys; and the symbols two agents
        changed identically (usually none), so most rows need no outcome lookup at all."""
        outcome = np.fromiter(
            map(hash, map(_GET_OUTCOME, self.changes)), dtype=np.int64, count=len(self.changes)
        )
        keys = self.c_agent * self.n_symbols + self.c_sym
        self.o_keys, first = np.unique(keys, return_index=True)
        self.o_values = outcome[first]
        symbol = self.c_sym[first]
        # only a symbol two agents changed can be a twin: the sort is over those rows alone
        shared = np.flatnonzero(np.bincount(symbol, minlength=self.n_symbols)[symbol] > 1)
        order = shared[np.lexsort((self.o_values[shared], symbol[shared]))]
        twin = (symbol[order][1:] == symbol[order][:-1]) & (
            self.o_values[order][1:] == self.o_values[order][:-1]
        )
        self.twinned = np.unique(symbol[order][1:][twin])
        self.twin_changes = first[np.isin(symbol, self.twinned)]

    def outcome(self, agent: Ints, symbol: Ints) -> tuple[Ints, NDArray[np.bool_]]:
        """Each row's outcome hash, and whether the agent changed that symbol at all."""
        if len(self.o_keys) == 0:
            return np.zeros(len(agent), dtype=np.int64), np.zeros(len(agent), dtype=bool)
        keys = agent * self.n_symbols + symbol
        at = np.minimum(np.searchsorted(self.o_keys, keys), len(self.o_keys) - 1)
        found = (self.o_keys[at] == keys) & (symbol >= 0)  # -1: no symbol (module level)
        return self.o_values[at], found

    def same(self, x: Ints, y: Ints, symbol: Ints) -> NDArray[np.bool_]:
        """Did agents ``x`` and ``y`` both change ``symbol``, identically?"""
        out = np.zeros(len(symbol), dtype=bool)
        if len(self.twinned) == 0:
            return out
        rows = np.flatnonzero(np.isin(symbol, self.twinned))
        if len(rows):
            mine, mine_found = self.outcome(x[rows], symbol[rows])
            theirs, theirs_found = self.outcome(y[rows], symbol[rows])
            out[rows] = mine_found & theirs_found & (mine == theirs)
        return out

    def changers(self, symbol: Ints) -> tuple[Ints, Ints]:
        """(row, base change) for every base change of each row's symbol (none for -1)."""
        known = symbol >= 0
        start = self.ptr[np.where(known, symbol, 0)]
        stop = np.where(known, self.ptr[symbol + 1], start)
        row, k = ragged_range((stop - start).astype(np.int64))
        return row, self.by_symbol[start[row] + k]


_ADDED, _GONE, _RETURNS, _SIGNATURE, _BODY, _STATE, _WROTE, _CALLABLE = (1 << k for k in range(8))
_STATE_USE, _BODY_USE, _CALL_USE = 1, 2, 4
_GET_CHANGES, _GET_EXACT, _GET_KIND = (attrgetter(a) for a in ("changes", "exact", "kind"))
_GET_NEAR, _GET_SCOPE, _GET_SYMBOL = (attrgetter(a) for a in ("near", "scope", "symbol"))
_GET_OUTCOME, _GET_CLS = attrgetter("outcome"), attrgetter("cls")
_GET_WRITES, _GET_CALLERS = attrgetter("local_writes"), attrgetter("callers")
_GET_UNCHANGED = attrgetter("unchanged")


class _Codes(dict[Hashable, int]):
    """Bit flags of a record's kind, computed by ``rule`` once per distinct kind."""

    def __init__(self, rule: Callable[[Any], int]) -> None:
        super().__init__()
        self.rule = rule

    def __missing__(self, key: Hashable) -> int:
        code = self[key] = self.rule(key)
        return code


def _change_flags(key: tuple[str, tuple[str, ...]]) -> int:
    kind, changed = key
    callable_ = kind in CALLABLE
    return (
        (_ADDED if "added" in changed else 0)
        | (_GONE if "removed" in changed or "renamed" in changed else 0)
        | (_RETURNS if "returns" in changed else 0)
        | (_SIGNATURE if "signature" in changed else 0)
        | (_BODY if edits_body(kind, changed) else 0)
        | (_STATE if kind in STATE_SYMBOLS else 0)
        | (_WROTE if "state" in changed else 0)
        | (_CALLABLE if callable_ else 0)
    )


def _use_flags(kind: str) -> int:
    return (
        (_STATE_USE if kind in STATE_USES else 0)
        | (_BODY_USE if kind in BODY_USES else 0)
        | (_CALL_USE if kind == "call" else 0)
    )


_CHANGE_FLAGS, _USE_FLAGS = _Codes(_change_flags), _Codes(_use_flags)


def _codes(table: _Codes, keys: Iterable[Hashable], count: int) -> Ints:
    return np.fromiter(map(table.__getitem__, keys), dtype=np.int64, count=count)


def _intern(keys: list[str], others: tuple[list[str], ...]) -> tuple[Ints, list[Ints], int]:
    """Dense codes for ``keys`` (the changed symbols), and for each list of ``others`` the code
    of the same string, or -1 for a string that is not a key.

    By the strings' hashes (computed in C, cached in each ``str``) made dense by one
    ``np.unique``: the cheapest interning CPython offers, about twice as fast as a dict.
    Two distinct ids with one 64-bit (randomised SipHash) hash would be taken for one
    symbol; with ``n`` distinct ids the chance is about ``n**2 / 2**65`` (3e-10 for the
    100,000 of a 500-agent scan), far below anything else that can go wrong in a scan.
    """
    hashed = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
    unique, inverse = np.unique(hashed, return_inverse=True)
    out = []
    for group in others:
        h = np.fromiter(map(hash, group), dtype=np.int64, count=len(group))
        if len(unique) == 0:
            out.append(np.full(len(h), -1, dtype=np.int64))
            continue
        at = np.minimum(np.searchsorted(unique, h), len(unique) - 1)
        out.append(np.where(unique[at] == h, at, -1).astype(np.int64))
    return inverse.astype(np.int64).ravel(), out, len(unique)


class _Found:
    """Candidate items as columns: pair, strength, kind and the two row indexes."""

    def __init__(self) -> None:
        self.parts: list[tuple[Ints, Ints, NDArray[np.float64], int, Ints, Ints, Ints]] = []

    def add(
        self,
        x: Ints,
        y: Ints,
        strength: NDArray[np.float64],
        kind: int,
        a: Ints,
        b: Ints,
        extra: Ints | None = None,
    ) -> None:
        if len(x):
            self.parts.append((x, y, strength, kind, a, b, _EMPTY if extra is None else extra))


def _same_symbol(r: _Rows, st: Strengths, found: _Found) -> None:
    sizes = np.diff(r.ptr)
    group, ka, kb = ragged_cross(sizes, sizes)
    a = r.by_symbol[r.ptr[group] + ka]
    b = r.by_symbol[r.ptr[group] + kb]
    x, y = r.c_agent[a], r.c_agent[b]
    keep = (x != y) & ~r.same(x, y, r.c_sym[a])
    a, b = a[keep], b[keep]
    body = r.c_body[a] & r.c_body[b] & (st.same_body > st.loose)
    # a shared local name written by one edit (channel.flows): asked only of the body pairs
    # where some side writes a local at all
    body &= r.c_locals[a] | r.c_locals[b]
    rows = np.flatnonzero(body)
    if len(rows):
        x, y = a[rows], b[rows]
        (ms, ma), exact = r.local_masks(np.unique(np.concatenate((x, y))))
        meet = ((ms[x] & ma[y]) | (ms[y] & ma[x])) != 0
        body[rows] = meet
        if not exact:  # the masks can only say "maybe": ask the keys of those rows
            keys = r.local_sets()
            for k in rows[meet].tolist():
                (sx, ax), (sy, ay) = keys.of(int(a[k])), keys.of(int(b[k]))
                body[k] = not (sx.isdisjoint(ay) and sy.isdisjoint(ax))
    state = r.c_state[a] & r.c_state[b] & (r.c_wrote[a] | r.c_wrote[b])
    other = np.where(body, st.same_body, np.where(state, max(st.shared_state, st.loose), st.loose))
    strength = np.where(r.c_interface[a] | r.c_interface[b], st.coupling, other)
    found.add(r.c_agent[a], r.c_agent[b], strength, _SAME, a, b)


def _uses(r: _Rows, st: Strengths, found: _Found) -> None:
    u, c = r.changers(r.u_sym)
    x, y = r.c_agent[c], r.u_agent[u]
    keep = (x != y) & ~r.same(x, y, r.u_sym[u]) & ~r.same(x, y, r.u_scope[u])
    u, c, x, y = u[keep], c[keep], x[keep], y[keep]
    found.add(x, y, _use_strength(r, c, u, st), _USE, c, u)


def _use_strength(r: _Rows, c: Ints, u: Ints, st: Strengths) -> NDArray[np.float64]:
    """``hazard_item(...).strength`` of every row; rows of a signature change against a call
    ask the signature itself (few), the rest is arithmetic on the change's kinds, each product
    formed as the reference forms it (so equal to the bit)."""
    exact = r.u_exact[u]
    factor = np.where(exact, 1.0, st.by_name)
    call = r.u_call[u]
    close = r.c_interface[c].copy()
    # Close also when the use sits in a member of the changed method's class: asked only of
    # rows whose change is a method (few), by the reference's own rule.
    for k in np.flatnonzero(r.c_has_class[c] & ~close).tolist():
        close[k] = scope_class(r.uses[int(u[k])].scope) == r.changes[int(c[k])].cls
    base = np.where(close, st.coupling, st.loose)
    out: NDArray[np.float64] = np.where(exact, base, base * st.by_name * st.by_name)
    out = np.where(r.c_gone[c], np.maximum(out, st.breaking * factor), out)
    out = np.where(r.c_returns[c] & call, np.maximum(out, st.returns * factor), out)
    state = exact & r.c_state[c] & r.u_state[u]
    hubs = (st.hub_files > 0) & (r.c_callers[c] >= st.hub_files)  # channel.hub, by rows
    body = exact & r.c_body[c] & r.u_body[u] & ~state & ~hubs
    out = np.where(state, np.maximum(out, st.shared_state), out)
    out = np.where(body, np.maximum(out, st.body_call), out)
    # A signature against a call: does the call still bind? Asked once per (signature,
    # binding, call shape); many calls share one shape.
    fits: dict[tuple[int, bool, CallShape | None], bool | None] = {}
    for k in np.flatnonzero(r.c_signature[c] & call).tolist():
        change, use = r.changes[int(c[k])], r.uses[int(u[k])]
        if change.signature is None or use.call is None:
            continue
        bound = change.bound and use.bound
        key = (id(change.signature), bound, use.call)
        if key not in fits:
            fits[key] = change.signature.accepts(use.call, bound=bound)
        f = 1.0 if use.exact else st.by_name
        if fits[key] is False:
            out[k] = max(out[k], st.breaking * f)
        elif fits[key] is None:
            out[k] = max(out[k], st.returns * f)
    # a parameter's attribute called on an unchanged line: channel.hazard_item's first rule
    unchanged = np.where(r.c_callable[c], st.parameter_call, st.loose)
    return np.where(r.u_unchanged[u], unchanged, out)


def _near(r: _Rows, st: Strengths, found: _Found) -> None:
    if len(r.n_change) == 0:
        return
    ok = np.abs(r.n_d) <= st.max_distance
    rows = np.flatnonzero(ok)
    n, c2 = r.changers(r.n_sym[rows])
    n = rows[n]
    c = r.n_change[n]
    x, y = r.c_agent[c], r.c_agent[c2]
    keep = (x != y) & r.c_base[c] & ~r.same(x, y, r.n_sym[n]) & ~r.same(x, y, r.c_sym[c])
    n, c, c2 = n[keep], c[keep], c2[keep]
    hops = range(st.max_distance + 1)
    close = np.array([st.coupling * st.hop ** (d - 1) for d in hops])
    loose = np.array([st.loose * st.hop ** (d - 1) for d in hops])
    distance = np.abs(r.n_d[n])
    same_class = r.c_has_class[c] & (r.c_class[c] == r.c_class[c2])
    strength = np.where(same_class, close[distance], loose[distance])
    found.add(r.c_agent[c], r.c_agent[c2], strength, _NEAR, c, c2, r.n_d[n])


def _through(r: _Rows, st: Strengths, found: _Found) -> None:
    if len(r.t_use) == 0 or st.max_distance < 2:
        return
    t, c = r.changers(r.t_sym)
    u = r.t_use[t]
    x, y = r.c_agent[c], r.u_agent[u]
    blocked = r.same(x, y, r.t_sym[t]) | r.same(x, y, r.u_scope[u]) | r.same(x, y, r.u_sym[u])
    keep = (x != y) & ~blocked
    c, u = c[keep], u[keep]
    strength = np.full(len(c), st.coupling * st.hop)
    found.add(r.c_agent[c], r.u_agent[u], strength, _THROUGH, c, u)


def _attributes(r: _Rows, st: Strengths) -> list[Item]:
    members: dict[str, list[int]] = defaultdict(list)
    for k, c in enumerate(r.changes):
        if c.cls is not None:
            members[c.cls].append(k)
    if not members:
        return []
    outcome: dict[tuple[int, str], str] = {}
    for k, c in enumerate(r.changes):
        outcome.setdefault((int(r.c_agent[k]), c.symbol), c.outcome)

    def same(x: int, y: int, symbol: str) -> bool:
        mine = outcome.get((x, symbol))
        return mine is not None and mine == outcome.get((y, symbol))

    out = []
    for k, c in enumerate(r.changes):
        if c.cls is None or not c.writes:
            continue
        x = int(r.c_agent[k])
        for m in members[c.cls]:
            y, c2 = int(r.c_agent[m]), r.changes[m]
            if y == x or c2.symbol == c.symbol or same(x, y, c.symbol) or same(x, y, c2.symbol):
                continue
            item = attribute_item(x, c, y, c2, st)
            if item is not None:
                out.append(item)
    return out


class _LazyItems(Mapping[tuple[int, int], tuple[Item, ...]]):
    """Items per pair, built from the candidate rows on first read of that pair."""

    def __init__(self, r: _Rows, st: Strengths, found: _Found, extra: list[Item], n: int) -> None:
        self.r, self.st, self.n = r, st, n
        self.cols = cols = found.parts
        self.x = np.concatenate([p[0] for p in cols]) if cols else _EMPTY
        self.y = np.concatenate([p[1] for p in cols]) if cols else _EMPTY
        self.strength = np.concatenate([p[2] for p in cols]) if cols else np.zeros(0)
        self._columns: tuple[Ints, Ints, Ints, Ints] | None = None  # kind, a, b, d: on demand
        self.extra: dict[tuple[int, int], list[Item]] = defaultdict(list)
        for item in extra:
            self.extra[(min(item.x, item.y), max(item.x, item.y))].append(item)
        self.key = np.minimum(self.x, self.y) * n + np.maximum(self.x, self.y)
        self._sorted: tuple[Ints, Ints] | None = None
        self._built: dict[tuple[int, int], tuple[Item, ...]] = {}
        self._pairs: tuple[Ints, Ints, NDArray[np.float64]] | None = None

    def pairs(self) -> tuple[Ints, Ints, NDArray[np.float64]]:
        """Every pair with an item and its strongest item's strength, ``i < j`` ascending."""
        if self._pairs is None:
            best = np.zeros(self.n * self.n)
            np.maximum.at(best, self.key, self.strength)
            for (i, j), items in self.extra.items():
                k = i * self.n + j
                best[k] = max(best[k], max(item.strength for item in items))
            cells = np.flatnonzero(best > 0)
            self._pairs = (cells // self.n, cells % self.n, best[cells])
        return self._pairs

    def _detail(self) -> tuple[Ints, Ints, Ints, Ints]:
        """The columns only evidence needs, joined on the first pair read."""
        if self._columns is None:
            cols = self.cols
            kind = np.concatenate([np.full(len(p[0]), p[3]) for p in cols]) if cols else _EMPTY
            a = np.concatenate([p[4] for p in cols]) if cols else _EMPTY
            b = np.concatenate([p[5] for p in cols]) if cols else _EMPTY
            d = np.concatenate(
                [p[6] if len(p[6]) else np.zeros(len(p[0]), dtype=np.int64) for p in cols]
            ) if cols else _EMPTY  # fmt: skip
            self._columns = (kind, a, b, d)
        return self._columns

    def _rows(self, key: int) -> list[int]:
        if self._sorted is None:  # sorted once, on the first pair read
            order = np.argsort(self.key, kind="stable")
            self._sorted = (order, self.key[order])
        order, keys = self._sorted
        lo, hi = np.searchsorted(keys, [key, key + 1])
        rows: list[int] = order[lo:hi].tolist()
        return rows

    def _item(self, row: int) -> Item:
        r, st = self.r, self.st
        kinds, a_col, b_col, d_col = self._detail()
        kind, a, b = int(kinds[row]), int(a_col[row]), int(b_col[row])
        x, y = int(self.x[row]), int(self.y[row])
        if kind == _SAME:
            return same_symbol_item(x, r.changes[a], y, r.changes[b], st)
        if kind == _USE:
            return hazard_item(x, r.changes[a], y, r.uses[b], st)
        if kind == _NEAR:
            return calls_item(x, r.changes[a], y, r.changes[b], int(d_col[row]), st)
        strength = st.coupling * st.hop
        return Item(strength, "coupling", "calls", x, r.changes[a], y, r.uses[b], 2, "through")

    def __getitem__(self, pair: tuple[int, int]) -> tuple[Item, ...]:
        hit = self._built.get(pair)
        if hit is None:
            rows = self._rows(pair[0] * self.n + pair[1])
            items = [self._item(k) for k in rows] + self.extra.get(pair, [])
            if not items:
                raise KeyError(pair)
            hit = self._built[pair] = collect(items)
        return hit

    def __iter__(self) -> Iterator[tuple[int, int]]:
        i, j, _ = self.pairs()
        return iter(zip(i.tolist(), j.tolist(), strict=True))

    def __len__(self) -> int:
        return len(self.pairs()[0])


def symbol_scores_fast(ids: Sequence[str], data: SymbolData, strengths: Strengths) -> SymbolScores:
    """:func:`~.scores.symbol_scores` by joins (the reference's numbers, tested equal)."""
    # The rows are numpy arrays and short-lived lists of strings, none in a cycle; the cyclic
    # collector would only rescan the caller's heap (measured: it doubled this function's time
    # in a 500-agent scan). Paused here, restored even on error.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _scores(ids, data, strengths)
    finally:
        if paused:
            gc.enable()


def _scores(ids: Sequence[str], data: SymbolData, strengths: Strengths) -> SymbolScores:
    r = _Rows(ids, data)
    found = _Found()
    _same_symbol(r, strengths, found)
    _uses(r, strengths, found)
    _near(r, strengths, found)
    _through(r, strengths, found)
    items = _LazyItems(r, strengths, found, _attributes(r, strengths), max(len(ids), 1))
    i, j, value = items.pairs()
    return SymbolScores(i, j, value, items)
