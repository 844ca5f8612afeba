"""Read what each worktree has changed since it forked from its base branch.

Everything is diffed against ``merge-base(base, HEAD)`` from the *working tree*, so committed,
staged and unstaged edits all count (the reference sees committed work only, weakness W3), and
changes made only on the base branch after the fork do not. Untracked, non-ignored files are
whole-file additions. Every git call is read-only and runs with ``GIT_OPTIONAL_LOCKS=0``.
An untracked file is read only up to :data:`MAX_READ_BYTES` (and only a regular file or a
link): a larger one is a whole-file addition without line numbers, so a multi-gigabyte file
in any worktree costs one ``lstat``, not a read of it.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from proximity.engine.diff import FileDiff, parse_raw_patch
from proximity.sources.git._run import DIFF_ARGS, GitError, carry_deadline, git, git_text
from proximity.sources.git.started import agent_start, created_at
from proximity.sources.git.status import read_status
from proximity.sources.git.worktrees import (
    Worktree,
    branch_descriptions,
    discover_worktrees,
    explicit_worktrees,
)
from proximity.sources.limits import read_bounded
from proximity.sources.radar_files import is_radar_file

__all__ = [
    "MAX_READ_BYTES",
    "WorkingFile",
    "WorkingSet",
    "WorkingSetReader",
    "read_working_set",
    "read_working_sets",
    "remote_tips",
    "with_published",
]

_BINARY_SNIFF = 8000  # git's own heuristic: a NUL in the first 8000 bytes means binary
#: Above this an untracked file's lines are not counted (it is a whole-file addition); source
#: files are far smaller, and a hook reads every worktree's untracked files.
MAX_READ_BYTES = 4 * 1024 * 1024


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class WorkingFile:
    """One changed path of a working set, in the engine's file-entry vocabulary."""

    path: str
    status: str
    old_path: str | None = None
    lines: tuple[tuple[int, int], ...] = ()
    base_hunks: tuple[tuple[int, int], ...] = ()
    binary: bool = False
    untracked: bool = False
    touched_at: datetime | None = None
    hunk_ids: tuple[str, ...] | None = None

    @property
    def whole_file(self) -> bool:
        """No line information: binary, deleted, pure renames, mode changes, empty new files."""
        return not self.lines

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"path": self.path, "status": self.status}
        if self.lines:
            entry["lines"] = [list(r) for r in self.lines]
        if self.base_hunks:
            entry["baseHunks"] = [list(h) for h in self.base_hunks]
            if self.hunk_ids is not None and len(self.hunk_ids) == len(self.base_hunks):
                entry["hunkIds"] = list(self.hunk_ids)
        if self.old_path is not None:
            entry["oldPath"] = self.old_path
        if self.touched_at is not None:
            entry["touchedAt"] = _iso(self.touched_at)
        return entry


@dataclass(frozen=True, slots=True)
class WorkingSet:
    """What one worktree has changed relative to ``merge_base``; ``errors`` name each problem."""

    agent_id: str
    path: str
    branch: str | None
    head: str | None
    base: str
    merge_base: str | None
    files: tuple[WorkingFile, ...] = ()
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    started_at: datetime | None = None
    label: str | None = None
    commits: tuple[str, ...] = ()
    """Commits of ``merge_base..head``, newest first."""
    uncommitted: bool = False
    """Some change is not committed, as the files are dated: a working-tree edit, an untracked
    file, a path the branch's log lacks (a staged edit of a committed path is not seen here;
    :func:`read_working_sets` asks ``git status`` before it calls work published)."""
    published: bool = False
    """Handed in for review: every change committed, and ``head`` is the tip of a remote-tracking
    branch (pushed, nothing since). Such work never parks (docs/DECISIONS.md, "Published work
    waits on review"); set by :func:`read_working_sets`, which reads the remotes once."""

    def touched_paths(self) -> frozenset[str]:
        """Every path the worktree changed since the merge base, old names of renames included."""
        return frozenset(p for f in self.files for p in (f.path, f.old_path) if p is not None)

    def file(self, path: str) -> WorkingFile | None:
        return next((f for f in self.files if f.path == path), None)

    def to_agent_json(self) -> dict[str, Any]:
        """The airspace engine's agent shape: ``{agentId, label, startedAt?, files}``."""
        agent: dict[str, Any] = {"agentId": self.agent_id, "label": self.label or self.agent_id}
        if self.started_at is not None:
            agent["startedAt"] = _iso(self.started_at)
        agent["files"] = [f.to_json() for f in self.files]
        if self.published:
            agent["published"] = True
        return agent


def _mtime(path: Path) -> datetime | None:
    """Modification time of the path, or of its nearest existing folder (a deletion's time)."""
    for candidate in (path, *path.parents):
        try:
            return datetime.fromtimestamp(candidate.lstat().st_mtime, tz=UTC)
        except OSError:
            continue
    return None


def _branch_log(
    root: Path, merge_base: str, head: str
) -> tuple[dict[str, datetime], list[int], tuple[str, ...]]:
    """Newest commit time per path changed in ``merge_base..head``, all commit times and ids."""
    if merge_base == head:
        return {}, [], ()
    _, out = git(root, ["log", "-z", "--format=%x01%H %ct", "--name-only", "--no-renames",
                        f"{merge_base}..{head}", "--"])  # fmt: skip
    times: dict[str, datetime] = {}
    stamps: list[int] = []
    commits: list[str] = []
    for chunk in out.decode("utf-8", "surrogateescape").split("\x01")[1:]:
        header, _, names = chunk.partition("\0")
        commit, stamp = header.split(" ")
        commits.append(commit)
        stamps.append(int(stamp))
        for name in names.lstrip("\n").split("\0"):
            if name and name not in times:  # log is newest first
                times[name] = datetime.fromtimestamp(int(stamp), tz=UTC)
    return times, stamps, tuple(commits)


def _untracked_file(root: Path, rel: str) -> tuple[WorkingFile, str | None]:
    """A whole-file addition; lines counted like git would for a new file (``-0,0 +1,n``)."""
    path = root / rel
    touched = _mtime(path)
    try:
        info = path.lstat()
        if not (stat.S_ISLNK(info.st_mode) or stat.S_ISREG(info.st_mode)):
            raise OSError(f"not a regular file (mode {oct(info.st_mode)})")  # a FIFO would block
        link = stat.S_ISLNK(info.st_mode)
        data = bytes(path.readlink()) if link else read_bounded(path, MAX_READ_BYTES)
    except OSError as exc:
        return WorkingFile(rel, "A", untracked=True, touched_at=touched), (
            f"{rel}: unreadable ({exc.strerror or exc}); kept as a whole-file edit"
        )
    if data is None:  # too large to count: the whole file, as for a binary one
        return WorkingFile(rel, "A", untracked=True, touched_at=touched), None
    if b"\0" in data[:_BINARY_SNIFF]:
        return WorkingFile(rel, "A", binary=True, untracked=True, touched_at=touched), None
    n = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    lines = ((1, n),) if n else ()
    return WorkingFile(rel, "A", None, lines, ((0, 0),), untracked=True, touched_at=touched), None


def _tracked_file(diff: FileDiff, root: Path, times: dict[str, datetime]) -> WorkingFile:
    # Uncommitted: unstaged (git could not vouch for the working file) or staged only (no
    # commit since the fork touched it). A path committed and then staged again keeps its
    # commit time: telling them apart would cost a second full scan of the worktree. A deletion
    # always has a null new-side id, so only the commit log can date it.
    if diff.path not in times or (diff.worktree_dirty and diff.status != "D"):
        touched = _mtime(root / diff.path)
    else:
        touched = times.get(diff.path)
    if diff.status == "A" and not diff.hunks and not diff.binary:
        # an intent-to-add entry (`git add -N`) shows as a new file without hunks
        entry, _ = _untracked_file(root, diff.path)
        return replace(entry, untracked=False, touched_at=touched)
    lines = () if diff.binary or diff.status == "D" else diff.lines
    hunks = () if diff.binary else diff.base_hunks
    ids = None if diff.binary else diff.hunk_ids
    return WorkingFile(diff.path, diff.status, diff.old_path, lines, hunks, diff.binary,
                       touched_at=touched, hunk_ids=ids)  # fmt: skip


def _merge_base(root: Path, base: str, worktree: Worktree) -> str:
    code, out = git(root, ["merge-base", base, "HEAD"], ok_codes=(0, 1, 128))
    if code == 0:
        return out.decode().strip()
    code, _ = git(root, ["rev-parse", "--verify", "-q", f"{base}^{{commit}}"], ok_codes=(0, 1))
    if code != 0:
        raise GitError(worktree.path, f"base branch {base!r} not found")
    raise GitError(worktree.path, f"HEAD shares no history with base branch {base!r}")


def _read(worktree: Worktree, base: str, ignore: Sequence[str] = ()) -> WorkingSet:
    root = Path(worktree.path)
    merge_base = _merge_base(root, base, worktree)
    head = worktree.head or git_text(root, ["rev-parse", "HEAD"]).strip()
    diffs = parse_raw_patch(git_text(root, [*DIFF_ARGS, merge_base, "--"]))
    untracked = git_text(root, ["ls-files", "-z", "--others", "--exclude-standard"]).split("\0")
    times, stamps, commits = _branch_log(root, merge_base, head)
    # Radar's own files (hook settings, their backups) and the repository's ignore globs are
    # nobody's work; dropped before the start time is dated from the files.
    ours = [d for d in diffs if not is_radar_file(d.path, ignore)]
    files = [_tracked_file(d, root, times) for d in ours]
    # as _tracked_file dates them: a change git's log does not hold, or one the worktree redid
    uncommitted = any(d.path not in times or d.worktree_dirty for d in ours)
    errors = []
    for rel in (r for r in untracked if r and not is_radar_file(r, ignore)):
        uncommitted = True
        entry, problem = _untracked_file(root, rel)
        files.append(entry)
        if problem:
            errors.append(f"{worktree.path} ({worktree.agent_id}): {problem}")
    # As git records it, the same for every reader (docs/DECISIONS.md, "One right of way").
    created = created_at(root, worktree.branch, base)
    started = agent_start(stamps, created, (f.touched_at for f in files))
    files.sort(key=lambda f: f.path)
    return WorkingSet(worktree.agent_id, worktree.path, worktree.branch, head, base, merge_base,
                      tuple(files), tuple(errors), started_at=started, commits=commits,
                      uncommitted=uncommitted)  # fmt: skip


def read_working_set(
    worktree: Worktree, *, base: str = "main", ignore: Sequence[str] = ()
) -> WorkingSet:
    """Read one worktree; a problem becomes an error on the result, never an exception.

    ``worktree.base`` (from explicit pairs) wins over ``base``. Radar's own files are never
    part of it, nor paths matching ``ignore`` (the repository's ``[radar] ignore`` globs).
    """
    base = worktree.base or base
    empty = WorkingSet(worktree.agent_id, worktree.path, worktree.branch, worktree.head, base, None)
    warnings: tuple[str, ...] = ()
    if worktree.detached:
        warnings = (
            f"{worktree.path}: detached HEAD at {(worktree.head or '?')[:12]}; "
            f"agent id is {worktree.agent_id!r}",
        )
    if worktree.problem is None and not Path(worktree.path).is_dir():
        worktree = replace(worktree, problem="worktree directory is missing")
    if worktree.problem is not None:
        return replace(
            empty, errors=(f"{worktree.path} ({worktree.agent_id}): {worktree.problem}",)
        )
    try:
        result = _read(worktree, base, ignore)
    except GitError as exc:
        return replace(empty, errors=(f"{worktree.path} ({worktree.agent_id}): {exc.problem}",),
                       warnings=warnings)  # fmt: skip
    return replace(result, warnings=warnings)


class WorkingSetReader(Protocol):
    """A long-lived caller's reader that remembers working sets between calls
    (:class:`~proximity.sources.git.memo.WorkingSetMemo`)."""

    def read(
        self,
        worktree: Worktree,
        *,
        base: str,
        base_commit: str | None,
        ignore: Sequence[str] = (),
    ) -> WorkingSet: ...


def read_working_sets(
    repo: str | Path | None = None,
    *,
    base: str = "main",
    worktrees: Sequence[tuple[str | Path, str]] | None = None,
    max_workers: int = 4,
    memo: WorkingSetReader | None = None,
    ignore: Sequence[str] = (),
) -> tuple[WorkingSet, ...]:
    """Working sets of every worktree of ``repo`` (or of explicit (path, base) pairs).

    Raises :class:`GitError` only when ``repo`` itself is not a git repository; each worktree's
    own problems (missing base, deleted directory, unreadable file) are errors on its result and
    the other worktrees are still read. A branch description (``git branch --edit-description``)
    becomes the agent's label. Worktrees are read in parallel threads: the time is spent in git
    subprocesses, which release the GIL. A ``memo`` (a long-lived caller's) re-reads only the
    worktrees that changed since its last read.
    """
    if worktrees is not None:
        found = explicit_worktrees(worktrees)
    elif repo is not None:
        found = discover_worktrees(repo)
    else:
        raise ValueError("read_working_sets needs repo or worktrees")
    readable = [w.path for w in found if w.problem is None and Path(w.path).is_dir()]
    labels = branch_descriptions(readable[0]) if readable else {}
    tips = remote_tips(readable[0]) if readable else frozenset()

    def read(w: Worktree) -> WorkingSet:
        if memo is None:
            ws = read_working_set(w, base=base, ignore=ignore)
        else:
            ws = memo.read(w, base=base, base_commit=commits.get(w.base or base), ignore=ignore)
        # in the worker too: a pushed head's `git status` runs beside the other reads
        return replace(
            ws, label=labels.get(ws.branch or ""), published=_published(ws, tips, ignore)
        )

    commits: dict[str, str | None] = {}
    if memo is not None and readable:
        commits = _base_commits(readable[0], {w.base or base for w in found})
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        return tuple(pool.map(carry_deadline(read), found))


def with_published(ws: WorkingSet, ignore: Sequence[str] = ()) -> WorkingSet:
    """``ws`` read alone (:func:`read_working_set`), with ``published`` as
    :func:`read_working_sets` sets it."""
    tips = remote_tips(ws.path) if ws.merge_base is not None else frozenset()
    return replace(ws, published=_published(ws, tips, ignore))


def _published(ws: WorkingSet, tips: frozenset[str], ignore: Sequence[str]) -> bool:
    """Work handed in: commits of its own, its head pushed as it is, nothing uncommitted
    (radar's own files and the repository's ignored paths apart, as in the working set). Only
    a pushed head costs the ``git status``."""
    if not ws.commits or ws.uncommitted or ws.errors or ws.head not in tips:
        return False
    try:
        status = read_status(ws.path)
    except GitError:
        return False
    return all(is_radar_file(p, ignore) for p in (*status.changed, *status.untracked))


def remote_tips(root: str | Path) -> frozenset[str]:
    """The commits the remote-tracking branches point at (``refs/remotes``), read in one call
    for every worktree of the repository (they share refs); empty without remotes."""
    try:
        code, out = git(root, ["for-each-ref", "--format=%(objectname)", "refs/remotes"],
                        ok_codes=(0,))  # fmt: skip
    except GitError:
        return frozenset()
    return frozenset(out.decode().split()) if code == 0 else frozenset()


def _base_commits(root: str | Path, bases: set[str]) -> dict[str, str | None]:
    """The commit each base branch names now, in one ``rev-parse`` (``None``: not found)."""
    names = sorted(bases)
    code, out = git(root, ["rev-parse", *(f"{b}^{{commit}}" for b in names)], ok_codes=(0, 128))
    found = out.decode().split() if code == 0 else []
    if len(found) == len(names):
        return dict(zip(names, found, strict=True))
    return dict.fromkeys(names)
