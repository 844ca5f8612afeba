"""Merged pull requests from first-parent merge commits, with each branch's own commit chain."""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from proximity.sources.git._run import git_text

__all__ = ["PullRequest", "read_pull_requests"]

_PR = re.compile(r"^Merge pull request #(\d+)")


@dataclass(frozen=True, slots=True)
class PullRequest:
    """A pull request merged with a merge commit.

    ``chain`` is the branch's own first-parent commits (newest first) not already on the mainline
    when it merged, each with its committer time in epoch seconds. ``started_at`` is the oldest
    committer time there: a lower bound of the branch's real age, as rebases reset these times.
    """

    number: int
    merge: str
    merged_at: int
    mainline: str
    tip: str
    chain: tuple[tuple[str, int], ...]
    files: frozenset[str]

    @property
    def started_at(self) -> int:
        return min(t for _, t in self.chain)

    def state_at(self, moment: int) -> str | None:
        """Newest commit of the branch's own chain committed at or before ``moment``."""
        return next((sha for sha, t in self.chain if t <= moment), None)


def _merges(repo: Path, ref: str, since: str | None) -> list[tuple[int, str, int, str, str]]:
    args = ["log", "--first-parent", "--merges", "--format=%H %ct %P%x09%s", ref]
    if since:
        args.insert(1, f"--since={since}")
    out = []
    for line in git_text(repo, args).splitlines():
        head, _, subject = line.partition("\t")
        parts = head.split()
        match = _PR.match(subject)
        if match and len(parts) == 4:
            sha, ct, p1, p2 = parts
            out.append((int(match.group(1)), sha, int(ct), p1, p2))
    return out


def _read_one(repo: Path, merge: tuple[int, str, int, str, str]) -> PullRequest | None:
    number, sha, merged_at, p1, p2 = merge
    log = git_text(repo, ["log", "--first-parent", "--format=%H %ct", p2, f"^{p1}"])
    chain = tuple((s, int(t)) for s, t in (line.split() for line in log.splitlines()))
    if not chain:
        return None
    names = git_text(repo, ["diff", "--name-only", "--no-renames", f"{p1}...{p2}"])
    return PullRequest(number, sha, merged_at, p1, p2, chain, frozenset(names.splitlines()))


def read_pull_requests(
    repo: str | Path, *, ref: str = "HEAD", since: str | None = None, workers: int = 3
) -> tuple[PullRequest, ...]:
    """Pull requests merged into ``ref`` ("Merge pull request #N", first parent), oldest first.

    ``files`` is what the whole pull request changed against the mainline it merged into; it is only
    used to stratify sampling, while labels and working sets use the branch state of each pair.
    """
    root = Path(repo)
    merges = _merges(root, ref, since)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        found: Sequence[PullRequest | None] = list(pool.map(lambda m: _read_one(root, m), merges))
    prs = [pr for pr in found if pr is not None]
    return tuple(sorted(prs, key=lambda p: (p.merged_at, p.number)))
