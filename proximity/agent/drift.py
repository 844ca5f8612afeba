"""Has the mainline changed the lines about to be edited since this branch's merge base?

One git process in the common case: ``git diff HEAD...<base>`` is the mainline's change since
the merge base (the three-dot form diffs from the merge base), limited to the planned paths and
empty when the mainline has not touched them. Only when a planned edit meets it are the
commits named (``git log HEAD..<base>``), so the agent is told what it would conflict with.
The comparison is :func:`proximity.engine.drift.drift_hits`; a git failure answers nothing
found and is logged (a hook fails open), never "clear".
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from proximity.agent.findings import DriftFinding
from proximity.agent.worktree import AskingWorktree
from proximity.engine.diff import parse_raw_patch
from proximity.engine.drift import MainlineChange, drift_hits
from proximity.sources.git._run import DIFF_ARGS, GitError, git_text

__all__ = ["DriftUnknownError", "mainline_drift"]

_COMMITS_SHOWN = 3


class DriftUnknownError(Exception):
    """git could not say what the mainline changed (no such base ref, a broken repository)."""


def _planned(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in entries:
        hunks = entry.get("baseHunks")
        spans = None if entry.get("status") == "D" or not hunks else [tuple(h) for h in hunks]
        out[str(entry["path"])] = spans
    return out


def _mainline(text: str) -> dict[str, MainlineChange]:
    out = {}
    for diff in parse_raw_patch(text):
        key = diff.old_path if diff.status.startswith("R") and diff.old_path else diff.path
        whole = diff.binary or diff.status in {"D", "A"} or not diff.hunks
        out[key] = MainlineChange(key, diff.status, None if whole else diff.base_hunks)
    return out


def _commits(top: Any, base: str, path: str) -> tuple[str, ...]:
    args = ["log", f"-{_COMMITS_SHOWN}", "--no-merges", "--format=%h %s", f"HEAD..{base}"]
    try:
        return tuple(git_text(top, [*args, "--", path]).splitlines())
    except GitError:
        return ()


def _blob_id(text: str) -> str:
    """git's object id of ``text`` as a blob (what ``git hash-object`` prints)."""
    data = text.encode("utf-8", "surrogateescape")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _same_as_mainline(top: Any, base: str, path: str, text: str) -> bool:
    """The whole-file write leaves the file exactly as the mainline has it (a cherry-pick):
    git merges two identical changes cleanly."""
    try:
        return git_text(top, ["rev-parse", "--verify", "-q", f"{base}:{path}"]).strip() == (
            _blob_id(text)
        )
    except GitError:
        return False


def mainline_drift(
    worktree: AskingWorktree,
    entries: Sequence[dict[str, Any]],
    *,
    base: str,
    written: Mapping[str, str] | None = None,
) -> tuple[DriftFinding, ...]:
    """Drift findings for the engine file ``entries`` of a planned edit (``engine_entries``);
    ``written`` holds the new text of whole-file writes.

    Raises :class:`DriftUnknownError` when git cannot answer.
    """
    planned = _planned(entries)
    if not planned:
        return ()
    try:
        text = git_text(worktree.top, [*DIFF_ARGS, f"HEAD...{base}", "--", *sorted(planned)])
    except GitError as exc:
        raise DriftUnknownError(str(exc)) from None
    if not text.strip():
        return ()
    deleting = {str(e["path"]) for e in entries if e.get("status") == "D"}
    hits = [
        hit
        for hit in drift_hits(planned, _mainline(text), deleting=deleting)
        if not (
            hit.path in (written or {})
            and hit.status[:1] in {"A", "M"}
            and _same_as_mainline(worktree.top, base, hit.path, (written or {})[hit.path])
        )
    ]
    return tuple(
        DriftFinding(
            path=hit.path,
            mainline=base,
            status=hit.status,
            their_hunks=None if hit.mainline is None else [list(h) for h in hit.mainline],
            commits=_commits(worktree.top, base, hit.path),
        )
        for hit in hits
    )
