"""Deny what would conflict, not what is near: git's merge verdict on a Resolution's shared files.

The engine raises a Resolution Advisory for lines that overlap, abut or sit close; git merges
changes one unchanged line apart without a conflict. Before a steerer's edit is denied, each
file the two agents share is judged as git would merge it:

- the planned edit's text is known (an ``Edit`` whose strings were located): ``git merge-file``
  on the file as the edit leaves it, the other agent's current version and their common base
  (the merge base of the two branches), the drift check's own simulation
  (:func:`proximity.agent.drift.merge_file_clean`);
- only its lines are known (``radar check``, MCP ``check_edit``, the server's check): git's rule
  on base-side hunks (:func:`proximity.engine.drift.colliding_hunks`: sharing a base line or
  abutting conflicts; identical changes, which git merges, are counted as conflicts);
- a whole-file write, a deletion, a rename on either side, a binary or unreadable file, a pair
  whose dry-run merge already conflicts there or whose merge check found problems only the merge
  has: the engine's Resolution stands (conservative).

When every shared file would merge cleanly the finding becomes Traffic context, with the
evidence; when one would conflict the Resolution stands, saying so. A Resolution with no shared
file (import or symbol coupling) is not textual and keeps the engine's rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from proximity.agent.drift import merge_file_clean
from proximity.agent.findings import Finding
from proximity.engine.drift import colliding_hunks
from proximity.sources.git._run import GitError, git, git_text

__all__ = ["CLEAN", "CONFLICT", "Simulate", "git_simulator", "textual_verdicts"]

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


_MAX_BYTES = 2 * 1024 * 1024  # a larger file is not simulated: the hunk rule answers


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def git_simulator(
    top: Path, others: Mapping[str, tuple[str, str | None]], written: Mapping[str, str]
) -> Simulate | None:
    """``git merge-file`` on this worktree's file as the edit leaves it (``written``), the other
    agent's current file (``others``: agent -> (worktree path, HEAD)) and their common base
    (the merge base of the two HEADs). None when no planned text is known."""
    if not written:
        return None

    def simulate(other: str, path: str) -> bool | None:
        text, where = written.get(path), others.get(other)
        if text is None or where is None or where[1] is None:
            return None
        theirs = _read_text(Path(where[0]) / path)
        if theirs is None:
            return None
        try:
            fork = git_text(top, ["merge-base", "HEAD", where[1]]).strip()
        except GitError:
            return None
        code, blob = git(top, ["cat-file", "blob", f"{fork}:{path}"], ok_codes=(0, 128))
        ancestor = blob.decode("utf-8", "surrogateescape") if code == 0 else ""
        return merge_file_clean(top, text, ancestor, theirs)

    return simulate
