"""From a diff hunk to the edit a coding agent sends: ``old_string`` -> ``new_string``.

A Claude Code ``Edit`` replaces one occurrence of ``old_string``, which must be unique in the
file; agents add surrounding lines until it is. :func:`plan_edit` does the same: the changed
lines (for an insertion, the line it goes after), widened one line at a time, alternately above
and below, until the text occurs once. Hunks come from ``git diff -U0`` (:func:`parse_hunks`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LineHunk", "PlannedText", "apply_hunk", "parse_hunks", "plan_edit", "split_lines"]

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True, slots=True)
class LineHunk:
    """``count`` lines from line ``start`` (1-based) become ``new``; ``count == 0`` inserts
    ``new`` after line ``start`` (0: at the top). Lines keep their line endings."""

    start: int
    count: int
    new: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlannedText:
    old: str
    new: str


def split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def parse_hunks(diff: str) -> list[LineHunk]:
    """Hunks of a one-file ``git diff -U0`` text (headers before the first ``@@`` skipped)."""
    out: list[LineHunk] = []
    start = count = -1
    new: list[str] = []
    last: str | None = None  # "+" or "-": which side the previous content line was on

    def flush() -> None:
        if start >= 0:
            out.append(LineHunk(start, count, tuple(new)))

    for line in diff.split("\n"):
        header = _HEADER.match(line)
        if header:
            flush()
            start = int(header.group(1))
            count = 1 if header.group(2) is None else int(header.group(2))
            new, last = [], None
        elif start < 0:
            continue
        elif line.startswith("+"):
            new.append(line[1:] + "\n")
            last = "+"
        elif line.startswith("-"):
            last = "-"
        elif line == _NO_NEWLINE and last == "+" and new:
            new[-1] = new[-1][:-1]
    flush()
    return out


def _unique(text: str, needle: str) -> bool:
    first = text.find(needle)
    return first >= 0 and text.find(needle, first + 1) < 0


def plan_edit(lines: Sequence[str], hunk: LineHunk) -> PlannedText | None:
    """The ``Edit`` an agent would send for ``hunk`` on the file ``lines``.

    ``None`` when no line anchors it (the file is empty): the agent writes the whole file.
    """
    if not lines:
        return None
    if hunk.count:
        lo, hi = hunk.start - 1, hunk.start - 1 + hunk.count  # the replaced block [lo, hi)
        before, after = "", "".join(hunk.new)
    elif hunk.start >= 1:
        lo, hi = hunk.start - 1, hunk.start  # anchor: the line the insertion follows
        before, after = "", "".join(hunk.new)
    else:
        lo, hi = 0, 1  # anchor: the first line, the insertion goes above it
        before, after = "".join(hunk.new), ""
    text = "".join(lines)
    core_old = "".join(lines[lo:hi])
    if hunk.count:
        core_new = after
    elif hunk.start >= 1:
        core_new = core_old + after
    else:
        core_new = before + core_old
    up, down = lo, hi
    grow_up = True
    while not _unique(text, "".join(lines[up:down])) and (up > 0 or down < len(lines)):
        if (grow_up and up > 0) or down >= len(lines):
            up -= 1
        else:
            down += 1
        grow_up = not grow_up
    prefix, suffix = "".join(lines[up:lo]), "".join(lines[hi:down])
    return PlannedText(prefix + core_old + suffix, prefix + core_new + suffix)


def apply_hunk(lines: Sequence[str], hunk: LineHunk) -> list[str]:
    """The file after ``hunk`` (what the planned edit produces, computed by position)."""
    out = list(lines)
    if hunk.count:
        out[hunk.start - 1 : hunk.start - 1 + hunk.count] = hunk.new
    else:
        out[hunk.start : hunk.start] = hunk.new
    return out
