"""Has the mainline changed the lines about to be edited since this branch's merge base?

One git process in the common case: ``git diff HEAD...<base>`` is the mainline's change since
the merge base (the three-dot form diffs from the merge base), limited to the planned paths and
empty when the mainline has not touched them. Only when a planned edit meets it are the
commits named (``git log HEAD..<base>``), so the agent is told what it would conflict with.
The comparison is :func:`proximity.engine.drift.drift_hits`; a git failure answers nothing
found and is logged (a hook fails open), never "clear".
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from proximity.agent.worktree import AskingWorktree
from proximity.engine.diff import parse_raw_patch
from proximity.engine.drift import MainlineChange, drift_hits
from proximity.engine.findings import DriftFinding
from proximity.sources.git._run import DIFF_ARGS, GitError, git, git_text

__all__ = ["DriftUnknownError", "mainline_drift", "merge_file_clean"]

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


def _blob(top: Any, rev: str) -> str | None:
    """The text of ``rev`` (``commit:path``), or None when the path is not there."""
    try:
        return git_text(top, ["cat-file", "blob", rev])
    except GitError:
        return None


def merge_file_clean(top: Any, ours: str, ancestor: str, theirs: str) -> bool | None:
    """git's three-way merge of one file's three versions: True clean, False conflict, None
    when git could not answer. ``git merge-file`` writes nothing but its answer here (the
    versions live in a scratch folder); the mainline drift check and the pre-edit merge
    simulation against another agent (:mod:`proximity.agent.textual`) both ask it."""
    with tempfile.TemporaryDirectory(prefix="radar-merge-") as folder:
        names = []
        for name, content in (("ours", ours), ("base", ancestor), ("theirs", theirs)):
            target = Path(folder, name)
            target.write_bytes(content.encode("utf-8", "surrogateescape"))
            names.append(str(target))
        try:
            code, _ = git(top, ["merge-file", "-p", "-q", *names], ok_codes=tuple(range(256)))
        except GitError:
            return None
    return True if code == 0 else False if 0 < code < 128 else None


def _fork(top: Any, base: str) -> str | None:
    try:
        return git_text(top, ["merge-base", "HEAD", base]).strip()
    except GitError:
        return None


def _merges_cleanly(top: Any, base: str, fork: str | None, path: str, text: str) -> bool:
    """Would git's three-way merge of this file be clean, with the edit made?

    The merge base's version, the file as the planned edit leaves it, and the mainline's.
    Identical changes on both sides merge cleanly, so a backport or a cherry-picked fix is not
    denied; only used to clear a hit, never to add one (a conflict of the agent's earlier edits
    is not this edit's).
    """
    if fork is None:
        return False
    theirs = _blob(top, f"{base}:{path}")
    if theirs is None:
        return False  # the mainline deleted it: the engine's rule decides
    ancestor = _blob(top, f"{fork}:{path}") or ""
    return merge_file_clean(top, text, ancestor, theirs) is True


def _new_on_branch(top: Any, fork: str | None, path: str) -> bool:
    """Is ``path`` absent at the merge base? Then deleting it undoes the branch's own addition:
    against the base the branch leaves the path as it was, and git's merge takes the mainline's
    side whatever the mainline did there (a release branch renaming the news file of a fix it
    cherry-picked, which the fix's own pull request has since brought to the mainline)."""
    return fork is not None and _blob(top, f"{fork}:{path}") is None


def mainline_drift(
    worktree: AskingWorktree,
    entries: Sequence[dict[str, Any]],
    *,
    base: str,
    written: Mapping[str, str] | None = None,
) -> tuple[DriftFinding, ...]:
    """Drift findings for the engine file ``entries`` of a planned edit (``engine_entries``);
    ``written`` holds each file's text as the planned edit leaves it, where that is known
    (whole-file writes, located replacements): such a hit is cleared when git would merge
    the file cleanly.

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
    found = drift_hits(planned, _mainline(text), deleting=deleting)
    top, known = worktree.top, written or {}
    fork = _fork(top, base) if found else None  # asked once, only when there is a hit
    hits = [
        hit
        for hit in found
        if not (
            hit.path in known
            and hit.status[:1] in {"A", "M"}
            and _merges_cleanly(top, base, fork, hit.path, known[hit.path])
        )
        and not (hit.path in deleting and _new_on_branch(top, fork, hit.path))
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
