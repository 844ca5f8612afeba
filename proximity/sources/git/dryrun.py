"""Exact textual conflicts now: a dry-run three-way merge of every pair of worktree states.

Each worktree's current state (committed, staged, unstaged and untracked-not-ignored files) is
written as a throwaway commit whose parent is its HEAD, using a temporary index file and a scratch
object directory (``GIT_OBJECT_DIRECTORY``, with the real store as an alternate). Then
``git merge-tree --write-tree --name-only`` merges each pair. No index, ref, worktree file or
object of the repository is written; the scratch folder is deleted afterwards.
"""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proximity.sources.git._run import GitError, git, git_text
from proximity.sources.git.workingset import WorkingSet

__all__ = [
    "Conflict",
    "DryRun",
    "cannot_conflict",
    "dry_run_conflicts",
    "scratch_store",
    "snapshot_commit",
]

_MOVED_ASIDE = re.compile(r"~[0-9a-f]{40}$")
# Fixed identity and time make snapshot ids a pure function of the trees (and keep any user
# hook or config out of it: commit-tree runs no hooks).
_SNAPSHOT_ENV = {
    "GIT_AUTHOR_NAME": "overlap-radar",
    "GIT_AUTHOR_EMAIL": "radar@localhost",
    "GIT_AUTHOR_DATE": "@0 +0000",
    "GIT_COMMITTER_NAME": "overlap-radar",
    "GIT_COMMITTER_EMAIL": "radar@localhost",
    "GIT_COMMITTER_DATE": "@0 +0000",
}


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two agents whose current states do not merge cleanly, and the files git reports."""

    a: str
    b: str
    files: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "files": list(self.files)}


@dataclass(frozen=True, slots=True)
class DryRun:
    """Conflicting pairs (only those), pairs merged, and per-worktree problems."""

    conflicts: tuple[Conflict, ...]
    pairs_checked: int
    errors: tuple[str, ...] = ()

    def to_options(self) -> list[dict[str, Any]]:
        """The engine's ``options.conflicts`` list."""
        return [c.to_json() for c in self.conflicts]


@dataclass(frozen=True, slots=True)
class _Scratch:
    folder: Path
    real_objects: str

    def env(self, index: str | None = None) -> dict[str, str]:
        env = {
            "GIT_OBJECT_DIRECTORY": str(self.folder / "objects"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": self.real_objects,
            **_SNAPSHOT_ENV,
        }
        if index is not None:
            env["GIT_INDEX_FILE"] = str(self.folder / index)
        return env


def _abs_git_path(cwd: str, name: str) -> Path:
    return Path(git_text(cwd, ["rev-parse", "--path-format=absolute", "--git-path", name]).strip())


@contextmanager
def scratch_store(cwd: str | Path) -> Iterator[_Scratch]:
    """A throwaway object directory with ``cwd``'s repository store as its alternate."""
    folder = Path(tempfile.mkdtemp(prefix="radar-dryrun-"))
    try:
        (folder / "objects").mkdir()
        yield _Scratch(folder, str(_abs_git_path(str(cwd), "objects")))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def snapshot_commit(ws: WorkingSet, scratch: _Scratch, n: int) -> str:
    """Commit the worktree's current state into the scratch store; return the commit id.

    ``n`` names the temporary index file (distinct per worktree of one scratch store).
    """
    return _snapshot(ws, scratch, n)


def _snapshot(ws: WorkingSet, scratch: _Scratch, n: int) -> str:
    index_name = f"index-{n}"
    env = scratch.env(index_name)
    real_index = _abs_git_path(ws.path, "index")
    if real_index.exists():
        # Copying keeps the stat cache, so `add -A` re-hashes only files changed since.
        shutil.copy2(real_index, scratch.folder / index_name)
    else:
        git(ws.path, ["read-tree", "HEAD"], env=env)
    git(ws.path, ["add", "-A", "--ignore-errors", "."], env=env)
    tree = git_text(ws.path, ["write-tree"], env=env).strip()
    message = f"overlap-radar dry-run snapshot of {ws.agent_id}".encode()
    _, out = git(ws.path, ["commit-tree", tree, "-p", "HEAD"], env=env, stdin=message)
    return out.decode().strip()


def _merge(cwd: str, scratch: _Scratch, left: str, right: str) -> tuple[str, ...]:
    code, out = git(
        cwd,
        ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", left, right],
        env=scratch.env(),
        ok_codes=(0, 1),
    )
    if code == 0:
        return ()
    names = out.decode("utf-8", "surrogateescape").split("\0")[1:]
    # a file/folder clash moves the file aside as "path~<commit id>": report the real path
    return tuple(sorted({_MOVED_ASIDE.sub("", n) for n in names if n}))


def _snapshots(
    sets: Sequence[WorkingSet], scratch: _Scratch, pool: ThreadPoolExecutor
) -> tuple[dict[str, str], list[str]]:
    def one(item: tuple[int, WorkingSet]) -> tuple[str, str | None, str | None]:
        n, ws = item
        try:
            return ws.agent_id, _snapshot(ws, scratch, n), None
        except GitError as exc:
            return ws.agent_id, None, f"{ws.path} ({ws.agent_id}): dry-run snapshot: {exc.problem}"

    commits, errors = {}, []
    for agent, commit, error in pool.map(one, enumerate(sets)):
        if commit is not None:
            commits[agent] = commit
        if error is not None:
            errors.append(error)
    return commits, errors


def _folders(paths: frozenset[str]) -> set[str]:
    return {p[:i] for p in paths for i in range(len(p)) if p[i] == "/"}


def cannot_conflict(a: WorkingSet, b: WorkingSet) -> bool:
    """True when git's merge of the two states provably has nothing to conflict on.

    Both forked from the same merge base and share no commit since, so the base of their merge
    is exactly that commit (common ancestors of the heads are then the merge base's own), and
    the paths each side changed from it are its working set's. Disjoint paths, with no file of
    one side being a folder of the other, merge cleanly. Anything else goes to ``merge-tree``.
    """
    if a.merge_base != b.merge_base or set(a.commits) & set(b.commits):
        return False
    pa, pb = a.touched_paths(), b.touched_paths()
    return not (pa & pb or pa & _folders(pb) or pb & _folders(pa))


def dry_run_conflicts(
    working_sets: Iterable[WorkingSet],
    *,
    pairs: Iterable[tuple[str, str]] | None = None,
    exhaustive: bool = False,
    max_workers: int = 4,
) -> DryRun:
    """Merge every pair of worktree states (or only ``pairs`` of agent ids) without writing.

    Pairs that :func:`cannot_conflict` are not merged unless ``exhaustive``; ``pairs_checked``
    counts the merges run. Worktrees whose working set already carries an error (deleted
    folder, missing base) are left out and named in ``errors``. All worktrees must belong to
    one repository.
    """
    given = list(working_sets)
    by_id = {ws.agent_id: ws for ws in given if ws.merge_base is not None}
    skipped = tuple(e for ws in given if ws.merge_base is None for e in ws.errors)
    wanted = list(pairs) if pairs is not None else list(itertools.combinations(by_id, 2))
    todo = [
        (a, b)
        for a, b in wanted
        if a in by_id and b in by_id and (exhaustive or not cannot_conflict(by_id[a], by_id[b]))
    ]
    if not todo:
        return DryRun((), 0, skipped)
    # only worktrees that take part in some merge are snapshotted
    sets = [by_id[x] for x in dict.fromkeys(x for pair in todo for x in pair)]
    with scratch_store(sets[0].path) as scratch, ThreadPoolExecutor(max_workers) as pool:
        commits, errors = _snapshots(sets, scratch, pool)
        todo = [(a, b) for a, b in todo if a in commits and b in commits]
        found = pool.map(
            lambda p: _merge(sets[0].path, scratch, commits[p[0]], commits[p[1]]), todo
        )
        conflicts = tuple(
            Conflict(a, b, files) for (a, b), files in zip(todo, found, strict=True) if files
        )
    return DryRun(conflicts, len(todo), skipped + tuple(errors))
