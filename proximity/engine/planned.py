"""Where a planned edit lands on the base side: current-file lines to base-side hunks.

An agent about to edit lines 40-42 of its working copy describes them in its *own* file's
coordinates, which drift from every other branch's as soon as it has inserted or deleted lines
above them. The overlap channel compares base-side hunks (weakness W1), so the hook maps the
planned lines through the agent's own diff against the merge base before asking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from proximity.engine.diff import Hunk

__all__ = ["base_line_span", "planned_base_hunks"]

Range = tuple[int, int]


def base_line_span(hunks: Sequence[Hunk], line: int) -> Range:
    """Base-side ``(start, count)`` of one current-file line, git's ``-start,count`` shape.

    A line the agent has not changed maps to one base line (shifted by the hunks above it); a
    line inside one of its own hunks maps to that hunk's whole base side, which is an insertion
    point (count 0) when the hunk only added lines.
    """
    shift = 0
    for h in sorted(hunks, key=lambda h: h.new_start):
        first_new = h.new_start if h.new_count else h.new_start + 1
        if h.new_count and h.new_start <= line <= h.new_start + h.new_count - 1:
            return (h.base_start, h.base_count)
        if first_new > line:
            break
        shift += h.base_count - h.new_count
    return (line + shift, 1)


def _end(span: Range) -> int:
    start, count = span
    return start + count - 1 if count else start


def _insertion(hunks: Sequence[Hunk], after: int) -> Range:
    """The base-side place of an insertion after current line ``after`` (0: the top).

    After a line the agent has not changed, it is the insertion point after that line's base
    line; after a line of one of its own hunks, that hunk's base side (the insertion extends
    the agent's own change there).
    """
    if after <= 0:
        return (0, 0)
    for h in hunks:
        if h.new_count and h.new_start <= after <= h.new_start + h.new_count - 1:
            return (h.base_start, h.base_count)
    start, _ = base_line_span(hunks, after)
    return (start, 0)


def planned_base_hunks(hunks: Sequence[Hunk], ranges: Iterable[Range]) -> list[Range]:
    """Base-side hunks covering the current-file ``ranges`` (inclusive, 1-based).

    Each range maps to the span from its first line's base start to its last line's base end;
    a range that falls wholly inside one insertion stays an insertion point. An empty range
    ``(k + 1, k)`` (the planned edit only inserts after line ``k``) maps to an insertion point.
    """
    out: list[Range] = []
    for first, last in ranges:
        if last < first:
            out.append(_insertion(hunks, first - 1))
            continue
        lo, hi = base_line_span(hunks, min(first, last)), base_line_span(hunks, max(first, last))
        if lo == hi and lo[1] == 0:
            out.append(lo)
            continue
        start = lo[0] if lo[1] else lo[0] + 1
        end = max(_end(hi), start)
        out.append((start, end - start + 1))
    return out
