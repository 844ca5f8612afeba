"""radar-v1 change regions in base-side coordinates (fixes W1, W2 and W5 where data allows).

Positions are doubled so insertions have a place: base line ``k`` is ``2k`` and the gap after
it is ``2k + 1``. A hunk ``-s,c`` with ``c > 0`` covers ``[2s, 2(s + c - 1)]``; ``-s,0`` (an
insertion after line ``s``) is the single point ``2s + 1``. Two regions *abut* when they do not
share a point but are at most 2 apart (consecutive lines, or an insertion next to a changed
line), but not two insertions with an unchanged line between them: git's merge reports a
conflict for exactly those (found by the conflict backtest, docs/DECISIONS.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from proximity.engine.airspace.lines import covered, intersection_size, merge_ranges
from proximity.engine.airspace.model import FileChange

__all__ = [
    "IdentifiedHunks",
    "abuts",
    "base_key",
    "base_regions",
    "hunk_regions",
    "identified_hunks",
    "region_overlap",
    "twin_channels",
]

Interval = tuple[int, int]
IdentifiedHunks = frozenset[tuple[int, int, str]]


def base_key(change: FileChange) -> str:
    """The base-side identity of a file: a rename is compared under its old path."""
    return change.old_path if change.status == "R" and change.old_path else change.path


def base_regions(change: FileChange) -> list[Interval] | None:
    """Merged doubled-coordinate regions; ``None`` means the whole file.

    Base-side hunks are preferred; without them the new-side ``lines`` are used as the
    reference does (not comparable across branches, but the best available).
    """
    if change.base_hunks:
        return hunk_regions(change.base_hunks)
    if change.lines:
        return merge_ranges((2 * s, 2 * e) for s, e in change.lines)
    return None


def hunk_regions(hunks: Iterable[tuple[int, int]]) -> list[Interval]:
    """Merged doubled-coordinate regions of git's base-side ``(start, count)`` hunks."""
    return merge_ranges(
        (2 * s, 2 * (s + c - 1)) if c > 0 else (2 * s + 1, 2 * s + 1) for s, c in hunks
    )


def union(regions: Iterable[list[Interval] | None]) -> list[Interval] | None:
    """Union over duplicate entries of one file; any whole-file entry makes the whole file."""
    listed = list(regions)
    if len(listed) == 1:
        return listed[0]
    out: list[Interval] = []
    for region in listed:
        if region is None:
            return None
        out.extend(region)
    return merge_ranges(out)


def region_overlap(a: list[Interval] | None, b: list[Interval] | None) -> float:
    """Overlap coefficient on doubled positions; a whole file overlaps everything."""
    if a is None or b is None:
        return 1.0
    return intersection_size(a, b) / min(covered(a), covered(b))


def _touch(sa: int, ea: int, sb: int, eb: int) -> bool:
    low, high = max(sa, sb), min(ea, eb)
    return low - high == 1 or (low - high == 2 and high % 2 == 0)


def abuts(a: Sequence[Interval] | None, b: Sequence[Interval] | None) -> bool:
    """True when two regions touch the way git's merge treats as a conflict.

    Consecutive changed lines (positions 2k and 2k+2) and an insertion beside a changed line
    (gap 1) touch; two insertions with an unchanged line between them (2k+1 and 2k+3) do not,
    since git merges those cleanly. Callers check that the regions share no position.
    """
    if a is None or b is None:
        return False
    return any(_touch(sa, ea, sb, eb) for sa, ea in a for sb, eb in b)


def identified_hunks(changes: Iterable[FileChange]) -> IdentifiedHunks | None:
    """The ``(start, count, id)`` hunks of one agent's entries for one base key; ``None`` when
    any entry has no base hunks or no id per hunk (its text is unknown)."""
    out: set[tuple[int, int, str]] = set()
    for c in changes:
        ids = c.hunk_ids
        if not c.base_hunks or ids is None or len(ids) != len(c.base_hunks):
            return None
        out.update((s, n, h) for (s, n), h in zip(c.base_hunks, ids, strict=True))
    return frozenset(out)


def twin_channels(
    a: IdentifiedHunks | None, b: IdentifiedHunks | None
) -> tuple[float, bool] | None:
    """``(overlap coefficient, abutting)`` of one shared file with the hunks both sides made
    identically set apart (same base lines, same text: git's merge takes the one result and
    reports nothing); ``None`` when they share no such hunk and their regions stand as they
    are. A side left with nothing overlaps and touches nothing.

    Two hunks of one side never touch (git's diff would have made them one), so a twin's
    neighbours on either side are compared exactly as without it.
    """
    if a is None or b is None:
        return None
    shared = a & b
    if not shared:
        return None
    ra = hunk_regions((s, n) for s, n, _ in a - shared)
    rb = hunk_regions((s, n) for s, n, _ in b - shared)
    if not ra or not rb:
        return 0.0, False
    coefficient = region_overlap(ra, rb)
    return coefficient, coefficient == 0 and abuts(ra, rb)
