"""What one changed file did, in symbols: from its hunks on both sides and both extractions.

Base-side hunks (git's ``-start,count``) mark the base lines a change replaced or the points
where it inserted; worktree-side ranges (``lines``) mark the new lines. A definition is touched
when a changed line or point falls in its *own* lines (a method's lines belong to the method,
not to its class). A touched definition present on both sides is changed only if what it is
actually differs (parameters: ``signature``; return-shape summary: ``returns``; normalised
body or header: ``body``), so a comment or whitespace edit changes nothing. One missing on the
new side is ``removed``, unless a new definition of the same kind and parent has the same body
modulo its name or a similar one (``renamed``, with the similarity); one only on the new side
is ``added``. References on changed lines are ``touched``; the ones the other version of the
same definition does not have are ``added`` (worktree) or ``removed`` (base).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import partial

from proximity.engine.symbols.model import Definition, FileSymbols, Reference

__all__ = ["CHANGE_KINDS", "DefinitionChange", "FileChanges", "file_changes", "returns_changed"]

CHANGE_KINDS = ("removed", "renamed", "signature", "returns", "body", "added")
RENAME_SIMILARITY = 0.8
"""A removed and an added definition this similar (difflib ratio of their normalised bodies,
own names replaced) are one definition renamed; locally selected on the constructed cases."""
_MIN_FUZZY_CHARS = 24  # bodies shorter than this are renamed only when identical
_MAX_FUZZY_RATIOS = 50_000_000  # per file: sum of len(a) * len(b) of full ratios (DECISIONS.md)

Interval = tuple[int, int]


@dataclass(frozen=True, slots=True)
class DefinitionChange:
    """One definition a change touched; ``qualname`` is the base one (the new one if added)."""

    qualname: str
    kind: str
    changes: tuple[str, ...]
    before: Definition | None
    after: Definition | None
    renamed_to: str | None = None
    similarity: float | None = None
    writes: tuple[str, ...] = ()
    """Attributes of ``self`` written on changed lines of this member (either side)."""
    accesses: tuple[str, ...] = ()
    """Attributes of ``self`` read or written anywhere in either version of this member."""
    local_writes: tuple[str, ...] = ()
    """Local names of a function or method written on its changed lines (either side)."""
    local_reads: tuple[str, ...] = ()
    """Local names read on its changed lines (either side)."""


@dataclass(frozen=True, slots=True)
class FileChanges:
    """A changed file in symbols; reference indexes point into ``head``/``base`` references."""

    path: str
    base_path: str
    definitions: tuple[DefinitionChange, ...]
    touched: tuple[int, ...]
    added: tuple[int, ...]
    removed: tuple[int, ...]
    base: FileSymbols | None
    head: FileSymbols | None


def _base_marks(base_hunks: Iterable[tuple[int, int]]) -> tuple[list[Interval], list[int]]:
    """Replaced base lines as intervals, and insertion points (after line ``s``)."""
    lines, points = [], []
    for start, count in base_hunks:
        if count > 0:
            lines.append((start, start + count - 1))
        else:
            points.append(start)
    return lines, points


def _children(defs: Sequence[Definition]) -> dict[str, list[Interval]]:
    out: dict[str, list[Interval]] = {}
    for d in defs:
        parent = d.parent
        if parent is not None:
            out.setdefault(parent, []).append((d.start, d.end))
    return out


def _own(d: Definition, inner: Sequence[Interval], line: int) -> bool:
    return d.start <= line <= d.end and not any(s <= line <= e for s, e in inner)


def _touched(
    defs: Sequence[Definition], lines: Sequence[Interval], points: Sequence[int] = ()
) -> set[int]:
    """Indexes of definitions with a changed line (or an insertion point) in their own lines."""
    children = _children(defs)
    out = set()
    for k, d in enumerate(defs):
        inner = children.get(d.qualname, [])
        for s, e in lines:
            lo, hi = max(s, d.start), min(e, d.end)
            if any(_own(d, inner, line) for line in range(lo, hi + 1)):
                out.add(k)
                break
        else:
            if any(d.start <= p < d.end and _own(d, inner, p) for p in points):
                out.add(k)
    return out


def _members(defs: Sequence[Definition], owners: set[str]) -> set[str]:
    return {d.qualname for d in defs if any(d.qualname.startswith(o + ".") for o in owners)}


def _first(defs: Sequence[Definition]) -> dict[str, Definition]:
    out: dict[str, Definition] = {}
    for d in defs:
        out.setdefault(d.qualname, d)
    return out


def _every(defs: Sequence[Definition]) -> dict[str, list[Definition]]:
    out: dict[str, list[Definition]] = {}
    for d in defs:
        out.setdefault(d.qualname, []).append(d)
    return out


def _overloads(
    before: Sequence[Definition], after: Sequence[Definition]
) -> tuple[tuple[str, ...], Definition, Definition]:
    """Differences of one qualname defined several times (``@overload`` stubs and their
    implementation, a ``@property`` and its setter, a redefinition), compared in order: an
    edit to any of them is a change of the symbol, shown by the first pair that differs. A
    definition added or dropped among them is a body change (the symbol's behaviour moved)."""
    kinds: set[str] = set()
    shown: tuple[Definition, Definition] | None = None
    for old, new in zip(before, after, strict=False):
        found = _differences(old, new)
        if found and shown is None:
            shown = (old, new)
        kinds.update(found)
    if len(before) != len(after):
        kinds.add("body")
    old, new = shown if shown is not None else (before[0], after[0])
    return tuple(k for k in CHANGE_KINDS if k in kinds), old, new


_OPAQUE = frozenset({"expr", "call"})


def _concrete(kinds: Sequence[str]) -> set[str]:
    return {k for k in kinds if k not in _OPAQUE and not k.startswith("call:")}


def returns_changed(before: Sequence[str], after: Sequence[str]) -> bool:
    """Did the return shape change? Only shapes that can be told count: a literal tuple, dict,
    list, constant or ``None``; a call or an arbitrary expression says nothing. So both sides
    must show a shape, unless ``None`` appears or disappears."""
    old, new = _concrete(before), _concrete(after)
    if old == new:
        return False
    return bool(old and new) or "none" in old ^ new


def _differences(before: Definition, after: Definition) -> tuple[str, ...]:
    if before.kind == "field":
        # A field's header is its declared type (an interface member's whole declaration, a
        # schema's value): what its readers are written against, so a change there is one of
        # its interface; a new initial value is a body change (docs/DECISIONS.md, issue 30).
        if before.header != after.header:
            return ("signature",)
        return ("body",) if before.body != after.body else ()
    out = []
    if before.signature != after.signature:
        out.append("signature")
    if before.kind in ("function", "method") and returns_changed(before.returns, after.returns):
        out.append("returns")
    if before.body != after.body or (before.header != after.header and "signature" not in out):
        out.append("body")
    return tuple(out)


class _Similarity:
    """difflib's ratio of two bodies, behind its two upper bounds computed without a matcher
    (the same figures as ``real_quick_ratio`` and ``quick_ratio``, character counts kept per
    body), and a budget per file for full ratios, counted in the product of the two bodies'
    lengths (a ratio's cost grows with it): a file replaced wholesale (a vendored library's
    update) would otherwise compare every removed with every added definition. Past the
    budget only identical bodies match."""

    def __init__(self, budget: int = _MAX_FUZZY_RATIOS) -> None:
        self.budget = budget
        self.counts: dict[int, Counter[str]] = {}

    def _count(self, d: Definition) -> Counter[str]:
        found = self.counts.get(id(d))
        if found is None:
            found = self.counts[id(d)] = Counter(d.body)
        return found

    def __call__(self, a: Definition, b: Definition) -> float:
        if a.body == b.body:
            return 1.0
        la, lb = len(a.body), len(b.body)
        if min(la, lb) < _MIN_FUZZY_CHARS or 2 * min(la, lb) / (la + lb) < RENAME_SIMILARITY:
            return 0.0
        if self.budget < la * lb:
            return 0.0
        shared = (self._count(a) & self._count(b)).total()
        if 2 * shared / (la + lb) < RENAME_SIMILARITY:
            return 0.0
        self.budget -= la * lb
        return SequenceMatcher(None, a.body, b.body, autojunk=False).ratio()


def _renames(
    removed: list[Definition], added: list[Definition]
) -> dict[str, tuple[Definition, float]]:
    """Greedy best-first matching of removed to added definitions, parents first.

    A member's parent must be the same class or the class it was renamed to, so renaming a
    class renames its methods with it.
    """
    out: dict[str, tuple[Definition, float]] = {}
    taken: set[str] = set()
    parent_map: dict[str, str] = {}
    similarity = _Similarity()
    for old in sorted(removed, key=lambda d: (d.qualname.count("."), d.qualname)):
        best: tuple[float, str] | None = None
        for new in added:
            if new.qualname in taken or new.kind != old.kind:
                continue
            expected = parent_map.get(old.parent or "", old.parent)
            if new.parent != expected:
                continue
            score = similarity(old, new)
            if score >= RENAME_SIMILARITY and (best is None or (-score, new.qualname) < best):
                best = (-score, new.qualname)
        if best is not None:
            target = next(d for d in added if d.qualname == best[1])
            out[old.qualname] = (target, -best[0])
            taken.add(target.qualname)
            parent_map[old.qualname] = target.qualname
    return out


def _in(line: int, intervals: Sequence[Interval]) -> bool:
    return any(s <= line <= e for s, e in intervals)


def _ref_key(ref: Reference, scope: str) -> tuple[str, str, str]:
    return (ref.name, ref.kind, scope)


def _attributes(
    refs: Sequence[Reference], scope: str, changed: Sequence[Interval]
) -> tuple[set[str], set[str]]:
    """(written on changed lines, accessed anywhere) attributes of ``self`` in one member."""
    writes, accesses = set(), set()
    for r in refs:
        if r.scope == scope and r.kind in ("read", "write") and r.name.startswith("self."):
            attr = r.name[5:]
            accesses.add(attr)
            if r.kind == "write" and _in(r.line, changed):
                writes.add(attr)
    return writes, accesses


def _locals(
    definitions: Sequence[tuple[Definition | None, Sequence[Interval]]],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(written, read) local names on the changed lines of each version of one function."""
    writes: set[str] = set()
    reads: set[str] = set()
    for d, changed in definitions:
        for line, name, written in d.names if d is not None else ():
            if _in(line, changed):
                (writes if written else reads).add(name)
    return tuple(sorted(writes)), tuple(sorted(reads))


def file_changes(
    base: FileSymbols | None,
    head: FileSymbols | None,
    *,
    base_hunks: Sequence[tuple[int, int]],
    lines: Sequence[tuple[int, int]],
    path: str,
    base_path: str | None = None,
) -> FileChanges:
    """Classify the definitions and references one file's change touched.

    Parameters
    ----------
    base, head : detailed extractions of the file at the merge base and in the worktree;
        ``None`` for a file added (no base) or deleted (no head).
    base_hunks : git's base-side ``(start, count)`` pairs; ``lines`` : the worktree's changed
        line ranges (inclusive). A new file is all changed; a deleted one all removed.
    path, base_path : the worktree path and, for a rename, the base path.
    """
    base_path = base_path or path
    base_defs = list(base.definitions) if base is not None else []
    head_defs = list(head.definitions) if head is not None else []
    b_points: list[int] = []
    if head is None:
        b_lines = [(1, max((d.end for d in base_defs), default=1))]
    else:
        b_lines, b_points = _base_marks(base_hunks)
    h_lines = list(lines) if base is not None else [(1, max((d.end for d in head_defs), default=1))]
    moved = base_path != path and base is not None and head is not None
    touched_base = {base_defs[k].qualname for k in _touched(base_defs, b_lines, b_points)}
    touched_head = {head_defs[k].qualname for k in _touched(head_defs, h_lines)}
    before, after = _first(base_defs), _first(head_defs)
    # A class that disappears (or appears) takes its members with it, touched or not, so a
    # renamed class renames its methods.
    touched_base |= _members(base_defs, {q for q in touched_base if q not in after})
    touched_head |= _members(head_defs, {q for q in touched_head if q not in before})
    gone = [before[q] for q in sorted(touched_base) if q not in after]
    new = [after[q] for q in sorted(touched_head) if q not in before]
    renames = _renames(gone, new)
    renamed_heads = {target.qualname for target, _ in renames.values()}
    b_refs = base.references if base is not None else ()
    h_refs = head.references if head is not None else ()
    change = partial(_change, sides=(b_refs, h_refs, b_lines, h_lines))
    out: list[DefinitionChange] = []
    b_all, h_all = _every(base_defs), _every(head_defs)
    for q in sorted((touched_base | touched_head) & before.keys() & after.keys()):
        kinds, old, now = _overloads(b_all[q], h_all[q])
        if kinds or moved:
            renamed = ("renamed",) if moved else ()
            out.append(change(q, (*renamed, *kinds), old, now, q if moved else None))
    if moved:  # every definition of a renamed file changed its id, touched or not
        untouched = before.keys() & after.keys() - touched_base - touched_head
        out += [change(q, ("renamed",), before[q], after[q], q) for q in sorted(untouched)]
    for d in gone:
        if d.qualname in renames:
            target, score = renames[d.qualname]
            kinds = tuple(k for k in _differences(d, target) if k != "body" or score < 1.0)
            out.append(change(d.qualname, ("renamed", *kinds), d, target, target.qualname, score))
        else:
            out.append(change(d.qualname, ("removed",), d, None, None))
    out += [
        change(d.qualname, ("added",), None, d, None)
        for d in new
        if d.qualname not in renamed_heads
    ]
    scope_map = {q: q for q in before}
    scope_map.update({target.qualname: old for old, (target, _) in renames.items()})
    touched, added, removed = _references(b_refs, h_refs, b_lines, h_lines, scope_map)
    out.sort(key=_position)
    return FileChanges(path, base_path, tuple(out), touched, added, removed, base, head)


def _position(change: DefinitionChange) -> tuple[int, str]:
    shown = change.before if change.before is not None else change.after
    return (shown.start if shown is not None else 0, change.qualname)


def _change(
    qualname: str,
    kinds: tuple[str, ...],
    before: Definition | None,
    after: Definition | None,
    renamed_to: str | None,
    similarity: float | None = None,
    *,
    sides: tuple[Sequence[Reference], Sequence[Reference], Sequence[Interval], Sequence[Interval]],
) -> DefinitionChange:
    b_refs, h_refs, b_lines, h_lines = sides
    shown = before if before is not None else after
    kind = shown.kind if shown is not None else "function"
    writes: set[str] = set()
    accesses: set[str] = set()
    if kind == "method":
        for refs, defn, changed in ((b_refs, before, b_lines), (h_refs, after, h_lines)):
            if defn is not None:
                w, a = _attributes(refs, defn.qualname, changed)
                writes |= w
                accesses |= a
    elif kind == "field" and shown is not None:
        # a changed declaration (type, initial value, removal) writes the field's state
        writes.add(shown.name)
        accesses.add(shown.name)
    local_writes, local_reads = _locals(((before, b_lines), (after, h_lines)))
    return DefinitionChange(
        qualname,
        kind,
        kinds,
        before,
        after,
        renamed_to,
        similarity,
        tuple(sorted(writes)),
        tuple(sorted(accesses)),
        local_writes,
        local_reads,
    )


def _references(
    b_refs: Sequence[Reference],
    h_refs: Sequence[Reference],
    b_lines: Sequence[Interval],
    h_lines: Sequence[Interval],
    scope_map: dict[str, str],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Touched worktree references, the added ones among them, and the removed base ones.

    "Added" compares with the base version of the same definition as a multiset of
    (name, kind), so moving a call within a function is neither added nor removed.
    """
    base_keys = Counter(_ref_key(r, r.scope) for r in b_refs)
    head_keys = Counter(_ref_key(r, scope_map.get(r.scope, r.scope)) for r in h_refs)
    touched = tuple(k for k, r in enumerate(h_refs) if _in(r.line, h_lines))
    added = tuple(
        k
        for k in touched
        if head_keys[key := _ref_key(h_refs[k], scope_map.get(h_refs[k].scope, h_refs[k].scope))]
        > base_keys.get(key, 0)
    )
    removed = tuple(
        k
        for k, r in enumerate(b_refs)
        if _in(r.line, b_lines)
        and base_keys[_ref_key(r, r.scope)] > head_keys.get(_ref_key(r, r.scope), 0)
    )
    return touched, added, removed
