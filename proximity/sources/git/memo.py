"""Working sets remembered between calls of a long-lived reader (the agent-side daemon).

Reading a worktree takes three or four git processes; telling whether it changed since the last
read takes one. The change key is what determines the working set: the base branch's commit
and HEAD (so the merge base), ``git status`` (every path that differs from HEAD, with its HEAD
and index object ids, and every untracked file), and the size, modification time and inode of
each of those paths (an already modified file modified again keeps its status line). A key
whose files were modified less than :data:`RACY_S` before the read is never trusted: file
clocks are coarse, and two writes within one tick can leave the same stamp (git's own "racy
git" problem), so such a worktree is read again on the next call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from proximity.sources.git._run import GitError, git
from proximity.sources.git.status import parse_status
from proximity.sources.git.workingset import WorkingSet, read_working_set
from proximity.sources.git.worktrees import Worktree

__all__ = ["RACY_S", "WorkingSetMemo"]

RACY_S = 1.0
_MAX_ENTRIES = 512

_STATUS = ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all",
           "--no-renames", "--ignore-submodules=all"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Entry:
    key: tuple[object, ...]
    working_set: WorkingSet
    trusted: bool


def _stamps(root: Path, paths: list[str]) -> tuple[tuple[str, int, int, int], ...]:
    out = []
    for rel in paths:
        try:
            st = os.lstat(root / rel)
            out.append((rel, st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            out.append((rel, -1, -1, -1))
    return tuple(out)


class WorkingSetMemo:
    """``read(worktree)`` gives what :func:`read_working_set` would, reading only what changed.

    Safe to share between threads (one lock around the table; reads run outside it).
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str, tuple[str, ...]], _Entry] = {}
        self._lock = threading.Lock()
        self.reads = 0  # full reads, for tests and benchmarks
        self.hits = 0

    def _key(
        self, worktree: Worktree, base_commit: str | None
    ) -> tuple[tuple[object, ...], float] | None:
        """The change key and the newest modification time among its files (seconds)."""
        root = Path(worktree.path)
        try:
            _, status = git(root, _STATUS)
        except GitError:
            return None  # the full read reports the problem
        listed = parse_status(status.decode("utf-8", "surrogateescape"))
        stamps = _stamps(root, sorted(listed.changed | set(listed.untracked)))
        key = (worktree.agent_id, worktree.head, worktree.branch, base_commit, status, stamps)
        return key, max((s[2] for s in stamps), default=0) / 1e9

    def read(
        self,
        worktree: Worktree,
        *,
        base: str,
        base_commit: str | None,
        ignore: Sequence[str] = (),
    ) -> WorkingSet:
        """``base_commit``: the commit ``base`` names now (one ``rev-parse`` for all worktrees);
        ``ignore``: the repository's ignore globs (part of the slot: they change the result)."""
        slot = (worktree.path, worktree.base or base, tuple(ignore))
        found = self._key(worktree, base_commit) if worktree.problem is None else None
        with self._lock:
            entry = self._entries.get(slot)
        if found is not None and entry is not None and entry.trusted and entry.key == found[0]:
            self.hits += 1
            return entry.working_set
        started = time.time()
        working_set = read_working_set(worktree, base=base, ignore=ignore)
        self.reads += 1
        if found is not None:
            key, newest = found
            trusted = newest < started - RACY_S and not working_set.errors
            with self._lock:
                if len(self._entries) >= _MAX_ENTRIES:
                    self._entries.pop(next(iter(self._entries)))
                self._entries[slot] = _Entry(key, working_set, trusted)
        return working_set
