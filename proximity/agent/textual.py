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

import functools
from collections.abc import Mapping
from pathlib import Path

from proximity.agent.drift import merge_file_clean
from proximity.engine.textual import Simulate
from proximity.sources.git._run import GitError, git, git_text

__all__ = ["git_simulator"]

_MAX_BYTES = 2 * 1024 * 1024  # a larger file is not simulated: the hunk rule answers
# The warm daemon answers an unchanged airspace without running git (issue 29): a verdict is a
# function of its three texts and a blob at a commit never changes, so both are remembered
# (bounded: small files only, so the daemon's memory stays a few MB).
_REMEMBERED_BYTES = 256 * 1024


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
        ancestor = _blob_at(str(top), fork, path)
        if len(text) + len(ancestor) + len(theirs) > _REMEMBERED_BYTES:
            return merge_file_clean(top, text, ancestor, theirs)
        return _merges_clean(str(top), text, ancestor, theirs)

    return simulate


@functools.lru_cache(maxsize=256)
def _blob_at(top: str, commit: str, path: str) -> str:
    """``path`` at ``commit`` (a commit id: immutable), "" where it does not exist."""
    code, blob = git(top, ["cat-file", "blob", f"{commit}:{path}"], ok_codes=(0, 128))
    return blob.decode("utf-8", "surrogateescape") if code == 0 else ""


class _NoVerdictError(Exception):
    """git could not answer: raised through the cache so that no answer is remembered."""


def _merges_clean(top: str, ours: str, ancestor: str, theirs: str) -> bool | None:
    try:
        return _remembered_verdict(top, ours, ancestor, theirs)
    except _NoVerdictError:
        return None


@functools.lru_cache(maxsize=128)
def _remembered_verdict(top: str, ours: str, ancestor: str, theirs: str) -> bool:
    verdict = merge_file_clean(Path(top), ours, ancestor, theirs)
    if verdict is None:
        raise _NoVerdictError
    return verdict
