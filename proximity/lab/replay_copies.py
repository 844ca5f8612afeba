"""Commits a pull request copied from work already on the mainline: git's, not an agent's edit.

Release and backport branches carry work the mainline already merged, copied by git, not
written: ``git cherry-pick`` of a merged commit (pip's ``release/21.1.2`` copies #9920's and
#9960's commits two days after their merges; the copy keeps the author, the author date and the
patch, ``git patch-id``). No pre-edit hook sees it, since it is a git command, not an edit, so
when the replay asks the radar about such a commit, a mainline denial of it is the replay's own:
the report counts those apart from the agents' own edits (docs/DECISIONS.md, "git's copy of the
mainline's work is no agent's edit"). A branch's merge of a branch the mainline holds is a pull
already (:mod:`proximity.lab.replay_history`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from proximity.engine.replay.schedule import MainlineStep, PullRequestHistory
from proximity.sources.git._run import git, git_text

__all__ = ["mainline_copies"]

_SHA = re.compile(r"^[0-9a-f]{40,64}$")


def _contains(repo: Path, ancestor: str, commit: str) -> bool:
    code, _ = git(repo, ["merge-base", "--is-ancestor", ancestor, commit], ok_codes=(0, 1))
    return code == 0


def _first_step(repo: Path, commit: str, steps: Sequence[MainlineStep]) -> str | None:
    """The first mainline step whose commit holds ``commit``: the steps only grow, so a
    binary search over them."""
    lo, hi = 0, len(steps)
    while lo < hi:
        mid = (lo + hi) // 2
        if _contains(repo, commit, steps[mid].sha):
            hi = mid
        else:
            lo = mid + 1
    return steps[lo].sha if lo < len(steps) else None


def _patch_ids(repo: Path, shas: Sequence[str]) -> dict[str, str]:
    """``git patch-id --stable`` of each commit (a commit with no diff has none)."""
    # a merge's patch is its change to its first parent (what ``cherry-pick -m 1`` copies)
    _, shown = git(repo, ["show", "--format=commit %H", "--no-color",
                          "--diff-merges=first-parent", *shas])  # fmt: skip
    text = git_text(repo, ["patch-id", "--stable"], stdin=shown)
    out = {}
    for line in text.splitlines():
        patch, _, sha = line.partition(" ")
        out[sha] = patch
    return out


def _twins(repo: Path, rng: str, own: dict[str, PullRequestHistory]) -> dict[str, list[str]]:
    """Per pull-request commit, the other commits of ``rng`` with its author, author date and
    patch: what ``git cherry-pick`` makes (its copy, or its original). Merges count by their
    change to their first parent: ``git cherry-pick -m 1`` of the mainline's merge of a pull
    request copies that (pip's ``release/21.3.1`` copies #10580's merge so)."""
    log = git_text(repo, ["log", "--format=%H%x09%ae%x09%at", rng])
    by_author: dict[tuple[str, str], list[str]] = defaultdict(list)
    for line in log.splitlines():
        sha, email, at = line.split("\t")
        if _SHA.match(sha):
            by_author[(email, at)].append(sha)
    groups = [s for s in by_author.values() if len(s) > 1 and any(x in own for x in s)]
    if not groups:
        return {}
    patch = _patch_ids(repo, sorted({s for shas in groups for s in shas}))
    out: dict[str, list[str]] = {}
    for shas in groups:
        for sha in shas:
            if sha in own and sha in patch:
                same = [d for d in shas if d != sha and patch.get(d) == patch[sha]]
                if same:
                    out[sha] = same
    return out


def mainline_copies(
    repo: str | Path,
    start: str,
    mainline: Sequence[MainlineStep],
    prs: Sequence[PullRequestHistory],
) -> dict[str, frozenset[str]]:
    """Per replayed pull-request commit that copies another (a cherry-pick): the mainline steps
    (history's commits) at which a twin first reached the mainline before the copy was made,
    other than the pull request's own merge. The commit is git's copy of the mainline's work
    once such a step has been replayed."""
    path = Path(repo)
    if not mainline or not prs:
        return {}
    own = {c.sha: pr for pr in prs for c in pr.commits}
    made_at = {c.sha: c.committer_at for pr in prs for c in pr.commits}
    step_at = {s.sha: s.at for s in mainline}
    rng = f"{start}..{mainline[-1].sha}"
    sources = _twins(path, rng, own)
    first: dict[str, str | None] = {}
    out: dict[str, frozenset[str]] = {}
    for sha, works in sources.items():
        steps = set()
        for work in works:
            if work not in first:
                first[work] = _first_step(path, work, mainline)
            step = first[work]
            if step is None or step == own[sha].merge:
                continue
            if step_at[step] <= made_at[sha]:  # merged before the copy was made
                steps.add(step)
        if steps:
            out[sha] = frozenset(steps)
    return out
