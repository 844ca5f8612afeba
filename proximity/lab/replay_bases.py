"""Another agent's changed lines renumbered onto the asking agent's base.

Each working set numbers its base-side hunks on its own merge base with the mainline. Two
worktrees forked from different mainline commits number one line differently as soon as the
mainline moved between their forks, yet the engine compares base-side hunks as if both had one
base (pip #8016 and #8167 on ``commands/list.py``, docs/EVALUATION.md). At merge time git
compares the other side's change as it reached the mainline with this agent's change against
this agent's base, so the other side's hunks are mapped through git's diff from this agent's
base to the other's, with :func:`~proximity.engine.planned.planned_base_hunks`, the same map
the hook uses for its planned lines (a line the mainline changed between the two bases maps to
the whole changed region). A path renamed between the bases keeps its hunks unmapped.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from proximity.engine.diff import Hunk, parse_raw_patch
from proximity.engine.planned import base_line_span, planned_base_hunks
from proximity.sources.git._run import DIFF_ARGS, git_text
from proximity.sources.git.workingset import WorkingFile, WorkingSet

__all__ = ["map_base_hunks", "onto_base"]

Range = tuple[int, int]


def _inside(hunks: tuple[Hunk, ...], line: int) -> bool:
    return any(h.new_count and h.new_start <= line < h.new_start + h.new_count for h in hunks)


def map_base_hunks(between: tuple[Hunk, ...], base_hunks: tuple[Range, ...]) -> tuple[Range, ...]:
    """``base_hunks`` on the other base, renumbered through ``between`` (this base -> other)."""
    if not between:
        return base_hunks
    out: list[Range] = []
    for start, count in base_hunks:
        if count:
            out.extend(planned_base_hunks(between, [(start, start + count - 1)]))
            continue
        # an insertion after line ``start``: after that line's image, or the whole region the
        # mainline rewrote around it
        span = base_line_span(between, start) if start else (0, 1)
        out.append(span if start and _inside(between, start) else (span[0], 0))
    return tuple(out)


def _key(f: WorkingFile) -> str:
    return f.old_path if f.status == "R" and f.old_path else f.path


def onto_base(root: str | Path, ws: WorkingSet, onto: str | None) -> WorkingSet:
    """``ws`` with its base-side hunks on commit ``onto`` (unchanged when the bases agree)."""
    if onto is None or ws.merge_base is None or ws.merge_base == onto:
        return ws
    keys = sorted({_key(f) for f in ws.files if f.base_hunks})
    if not keys:
        return ws
    text = git_text(Path(root), [*DIFF_ARGS, onto, ws.merge_base, "--", *keys])
    between = {d.path: d.hunks for d in parse_raw_patch(text) if d.path == (d.old_path or d.path)}
    if not between:
        return ws
    files = tuple(
        # the hunks' text is the old base's: their ids would name other text on ``onto``
        replace(f, base_hunks=map_base_hunks(between[_key(f)], f.base_hunks), hunk_ids=None)
        if f.base_hunks and _key(f) in between
        else f
        for f in ws.files
    )
    return replace(ws, files=files)
