"""Deny what would conflict, not what is near: git's merge verdict on a Resolution's shared files.

The airspace raises a Resolution Advisory for lines that overlap, abut or sit close; git merges
changes one unchanged line apart without a conflict. Before a steerer's edit is denied, each
file the two agents share is judged as git would merge it: by ``simulate`` (the agent side's
``git merge-file`` on the file as the edit leaves it, :mod:`proximity.agent.textual`) when the
planned text is known, else by git's rule on base-side hunks
(:func:`proximity.engine.drift.colliding_hunks`; the server's check uses only this). A whole-file
write, a deletion, a rename, a pair whose dry-run merge already conflicts there or whose merge
check found problems only the merge has keep the Resolution (conservative). When every shared
file would merge cleanly the finding becomes Traffic context with the evidence; a Resolution
with no shared file (import or symbol coupling) keeps the airspace's rule. Pure: the one I/O,
``simulate``, is handed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from proximity.engine.drift import colliding_hunks
from proximity.engine.findings import Finding

__all__ = ["CLEAN", "CONFLICT", "Simulate", "textual_verdicts"]

CLEAN, CONFLICT = "clean", "conflict"
Simulate = Callable[[str, str], bool | None]
"""``(other agent, path) -> clean?`` by ``git merge-file`` (None: cannot be simulated)."""


def _hunks(entry: Mapping[str, Any] | None) -> list[tuple[int, int]] | None:
    """Base-side hunks of a line-level change; None for anything the conservative rule keeps."""
    if entry is None or entry.get("status") in {"D", "R", "C", "T"} or entry.get("oldPath"):
        return None
    hunks = entry.get("baseHunks")
    if not hunks or not entry.get("lines"):
        return None
    return [(int(a), int(b)) for a, b in hunks]


def _path_verdict(
    path: str,
    other: str,
    mine: Mapping[str, Any] | None,
    theirs: Mapping[str, Any] | None,
    simulate: Simulate | None,
) -> str | None:
    planned, their_hunks = _hunks(mine), _hunks(theirs)
    if planned is None or their_hunks is None:
        return None
    clean = simulate(other, path) if simulate is not None else None
    if clean is None:
        clean = not colliding_hunks(planned, their_hunks)
    return CLEAN if clean else CONFLICT


def _verdict(
    f: Finding,
    planned: Mapping[str, Mapping[str, Any]],
    theirs: Mapping[str, Mapping[str, Any]],
    simulate: Simulate | None,
) -> str | None:
    if not f.paths or f.channels.get("conflict") or (f.merge_check or {}).get("problems"):
        return None  # not textual, or a merge already known to fail: the engine's rule stands
    verdicts = [_path_verdict(p, f.other, planned.get(p), theirs.get(p), simulate) for p in f.paths]
    if CONFLICT in verdicts:
        return CONFLICT
    return CLEAN if all(v == CLEAN for v in verdicts) else None


def textual_verdicts(
    findings: Sequence[Finding],
    *,
    asker: str,
    planned: Sequence[Mapping[str, Any]],
    theirs: Mapping[str, Sequence[Mapping[str, Any]]],
    simulate: Simulate | None = None,
) -> tuple[Finding, ...]:
    """``findings`` with each would-be denial judged by git's merge of the shared files.

    ``planned`` are the asker's engine file entries (``baseHunks`` in merge-base coordinates);
    ``theirs`` maps each other agent to its file entries. Only a Resolution that would stop the
    asker (unacknowledged, the asker not holding) is judged; a clean one becomes Traffic.
    """
    mine = {str(e["path"]): e for e in planned}
    out = []
    for f in findings:
        if f.resolution and not f.acknowledged and f.hold != asker:
            files = {str(e["path"]): e for e in theirs.get(f.other, ())}
            verdict = _verdict(f, mine, files, simulate)
            if verdict == CLEAN:
                f = replace(f, level="advisory", textual=CLEAN)
            elif verdict == CONFLICT:
                f = replace(f, textual=CONFLICT)
        out.append(f)
    return tuple(out)
