"""Speculative merge check of two worktrees' current states, without writing anything of theirs.

Each side's state is the dry run's throwaway snapshot commit (:func:`~proximity.sources.git.
dryrun.snapshot_commit`, a temporary index and a scratch object directory with the real store
as alternate). ``git merge-tree --write-tree`` merges the two commits into that scratch store;
a textual conflict ends the check (the dry-run channel owns it). The three trees are then read
from the object store, not checked out: ``ls-tree`` lists each, one ``cat-file --batch`` reads
every distinct Python blob once (the trees share almost all of them), and the engine checks
side A, side B and the merge (:func:`proximity.engine.mergecheck.merge_check`; JavaScript and
TypeScript modules through :mod:`~proximity.sources.git.jscheck`). No index, ref,
worktree file or object of the repository is written; the scratch folder is deleted.

Every git child runs under :class:`~proximity.sources.limits.Limits`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from proximity.engine.mergecheck import MergeCheckResult, merge_check
from proximity.sources.git._run import GitError, git, git_text
from proximity.sources.git.dryrun import scratch_store, snapshot_commit
from proximity.sources.git.jscheck import js_merge_problems
from proximity.sources.git.testcheck import TestCheck, TestOptions, run_test_check
from proximity.sources.git.trees import read_tree_blobs, tree_listing
from proximity.sources.git.workingset import WorkingSet
from proximity.sources.limits import Limits

__all__ = [
    "TREE_CACHE",
    "MergeCheckRun",
    "run_merge_check",
    "worktree_trees",
]


class _FactsCache(dict[str, object]):
    """Facts and compile results by content hash, shared by the checks of this process; cleared
    whole when full (simple, and a refill costs one cold check)."""

    def __init__(self, size: int = 200_000) -> None:
        super().__init__()
        self.size = size

    def __setitem__(self, key: str, value: object) -> None:
        if len(self) >= self.size:
            self.clear()
        super().__setitem__(key, value)


TREE_CACHE = _FactsCache()


@dataclass(frozen=True)
class MergeCheckRun:
    """What one check found: ``status`` is ``done``, ``conflict`` (textual: not checked here)
    or ``moved`` (a side's current tree is not the one asked for)."""

    status: str
    tree_a: str
    tree_b: str
    base: str | None = None
    merged: str | None = None
    result: MergeCheckResult | None = None
    read_files: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)
    tests: TestCheck | None = None


def _tree(cwd: str, env: Mapping[str, str], commit: str, limits: Limits) -> str:
    return git_text(cwd, ["rev-parse", f"{commit}^{{tree}}"], env=env, preexec=limits.preexec())


def worktree_trees(
    sets: Iterable[WorkingSet], *, limits: Limits | None = None
) -> tuple[dict[str, str], list[str]]:
    """``{agent: tree id}`` of each worktree's current state, and the problems met.

    A tree id is a pure function of the content, so it names a state across calls (the
    snapshot objects themselves are discarded).
    """
    limits = limits or Limits()
    given = [ws for ws in sets if ws.merge_base is not None]
    if not given:
        return {}, []
    out, problems = {}, []
    with scratch_store(given[0].path) as scratch:
        for n, ws in enumerate(given):
            try:
                commit = snapshot_commit(ws, scratch, n)
                out[ws.agent_id] = _tree(ws.path, scratch.env(), commit, limits).strip()
            except GitError as exc:
                problems.append(f"{ws.agent_id}: state not read ({exc.problem})")
    return out, problems


def _merge(cwd: str, env: Mapping[str, str], left: str, right: str, limits: Limits) -> str | None:
    code, out = git(
        cwd,
        ["merge-tree", "--write-tree", "--no-messages", "-z", left, right],
        env=env,
        ok_codes=(0, 1),
        preexec=limits.preexec(),
    )
    return out.split(b"\0", 1)[0].decode().strip() if code == 0 else None


def _merge_base(
    cwd: str, env: Mapping[str, str], left: str, right: str, limits: Limits
) -> str | None:
    code, out = git(
        cwd, ["merge-base", left, right], env=env, ok_codes=(0, 1), preexec=limits.preexec()
    )
    return out.decode().strip() or None if code == 0 else None


def run_merge_check(
    a: WorkingSet,
    b: WorkingSet,
    *,
    expect: tuple[str, str] | None = None,
    limits: Limits | None = None,
    cache: dict[str, object] | None = None,
    tests: TestOptions | None = None,
) -> MergeCheckRun:
    """Check the merge of ``a``'s and ``b``'s current states (two worktrees of one repository).

    ``expect`` is ``(tree a, tree b)`` the caller wants checked: if either side has moved on,
    nothing is merged and the status is ``moved``. With ``tests``, the repository's tests that
    reach both sides' changes also run (:mod:`~proximity.sources.git.testcheck`). Raises
    :class:`GitError` when git fails (a missing worktree, a limit hit).
    """
    limits = limits or Limits()
    cache = TREE_CACHE if cache is None else cache
    with scratch_store(a.path) as scratch:
        env = scratch.env()
        commits = [snapshot_commit(ws, scratch, n) for n, ws in enumerate((a, b))]
        trees = [_tree(a.path, env, c, limits).strip() for c in commits]
        if expect is not None and tuple(trees) != tuple(expect):
            return MergeCheckRun("moved", trees[0], trees[1])
        merged = _merge(a.path, env, commits[0], commits[1], limits)
        base = _merge_base(a.path, env, commits[0], commits[1], limits)
        if merged is None:
            return MergeCheckRun("conflict", trees[0], trees[1], base)
        listed = [tree_listing(a.path, env, t, limits) for t in (*trees, merged)]
        texts = read_tree_blobs(
            a.path, env, (x for blobs, _ in listed for x in blobs.values()), limits
        )
        js = js_merge_problems(a.path, env, (trees[0], trees[1], merged), limits, cache)
        tested = None
        if tests is not None and base is not None:
            merged_files = {p: texts[blob] for p, blob in listed[2][0].items() if blob in texts}
            tested = run_test_check(
                a.path,
                env,
                base=base,
                sides=(commits[0], commits[1]),
                merged=merged,
                merged_files=merged_files,
                options=tests,
                worktrees=(str(a.path), str(b.path)),
            )
    files = [{p: texts[blob] for p, blob in blobs.items() if blob in texts} for blobs, _ in listed]
    others = {name: listed[k][1] for k, name in enumerate(("a", "b", "merged"))}
    # Thousands of ASTs are built and dropped: collector passes over them cost more than the
    # parse itself (as in the symbol index's build), so the collector waits for the check.
    paused = gc.isenabled()
    gc.disable()
    try:
        result = merge_check(files[0], files[1], files[2], others=others, cache=cache).joined(*js)
    finally:
        if paused:
            gc.enable()
    return MergeCheckRun(
        "done", trees[0], trees[1], base, merged, result, len(texts), result.counts, tested
    )
