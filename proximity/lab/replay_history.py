"""Read a window of a repository's history for the replay, without writing to it.

Only reading git commands run on the source (``log``, ``diff``, ``rev-parse``): the first-parent
mainline with its times, the pull requests merged with a merge commit ("Merge pull request #N"),
and for each its own first-parent commits with author and committer times and, per commit, the
files it changed with git's -U0 hunk counts. Squash-merged and directly pushed commits stay
mainline pushes: history kept no branch for them, so they cannot be agents.

With ``closed``, the pull requests GitHub closed without merging join as agents that never
merge: a repository's ``refs/pull/N/head`` (a mirror keeps them) whose number no mainline
subject names ("Merge pull request #N", or a squash's "(#N)"), not on the mainline, with
commits inside the window. A window of merged pull requests alone never shows a branch that is
abandoned, the case the parked rule exists for (docs/DECISIONS.md, "Closed pull requests in
the replay").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from proximity.engine.replay.schedule import (
    BranchPull,
    CommitInfo,
    FileChange,
    MainlineStep,
    PullRequestHistory,
)
from proximity.sources.git._run import git, git_text

__all__ = ["ReplayHistory", "read_window"]

_PR = re.compile(r"^Merge pull request #(\d+)")
_SQUASHED = re.compile(r"\(#(\d+)\)\s*$")
_PULL_HEAD = re.compile(r"^refs/pull/(\d+)/head$")
_HUNK = re.compile(rb"^@@ ", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ReplayHistory:
    """What a replay needs: the start commit, the mainline after it, the replayed PRs."""

    source: str
    ref: str
    head: str
    start: str
    clock_start: int
    mainline: tuple[MainlineStep, ...]
    prs: tuple[PullRequestHistory, ...]


def _epoch(value: str | None) -> int | None:
    if value is None:
        return None
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"{value!r}: give a timezone (e.g. 2022-01-01T00:00:00+00:00)")
    return int(moment.timestamp())


Row = tuple[str, list[str], int, str]


def _first_parent(repo: Path, ref: str) -> list[Row]:
    out = git_text(repo, ["log", "--first-parent", "--reverse", "--format=%H %P%x09%ct%x09%s", ref])
    rows = []
    for line in out.splitlines():
        head, ct, subject = line.split("\t", 2)
        sha, *parents = head.split()
        rows.append((sha, parents, int(ct), subject))
    return rows


def _files(repo: Path, parent: str, sha: str) -> tuple[FileChange, ...]:
    raw = git(repo, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", parent, sha])[1]
    parts = raw.decode("utf-8", "surrogateescape").split("\0")
    records = []
    for k in range(0, len(parts) - 1, 2):
        meta, path = parts[k], parts[k + 1]
        old_mode, new_mode, old_blob, new_blob, status = meta.lstrip(":").split()
        records.append((path, status[0], old_blob, new_blob, old_mode, new_mode))
    if not records:
        return ()
    patch = git(repo, ["diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
                       "--src-prefix=a/", "--dst-prefix=b/", parent, sha])[1]  # fmt: skip
    counts = _hunk_counts(patch)
    out = []
    for path, status, old_blob, new_blob, old_mode, new_mode in records:
        hunks, binary = counts.get(path, (1, False))
        out.append(FileChange(path, status, old_blob, new_blob, old_mode, new_mode,
                              max(1, hunks), binary))  # fmt: skip
    return tuple(out)


def _hunk_counts(patch: bytes) -> dict[str, tuple[int, bool]]:
    """Hunks per path of a ``diff -U0`` text, and whether git called the file binary."""
    out: dict[str, tuple[int, bool]] = {}
    for section in re.split(rb"(?m)^diff --git ", patch)[1:]:
        header = section.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        # "a/PATH b/PATH" with PATH unchanged (no renames); quoted paths are C-escaped
        half = header[: len(header) // 2].strip()
        path = _unquote(half)[2:] if half else ""
        binary = b"\nBinary files " in section or section.startswith(b"Binary files ")
        out[path] = (len(_HUNK.findall(section)), binary)
    return out


def _unquote(text: str) -> str:
    from proximity.engine.diff import unquote_c_path

    return unquote_c_path(text) if text.startswith('"') else text


def _pull_request(
    repo: Path, number: int, merge: str, parents: list[str], at: int
) -> PullRequestHistory:
    p1, p2 = parents[0], parents[1]
    log = git_text(repo, ["log", "--first-parent", "--reverse", "--format=%H %P%x09%at %ct",
                          p2, f"^{p1}"])  # fmt: skip
    commits: list[CommitInfo] = []
    pulls: list[BranchPull] = []
    for line in log.splitlines():
        head, times = line.split("\t")
        sha, *ps = head.split()
        author_at, committer_at = (int(x) for x in times.split())
        if len(ps) != 1 and _on_mainline(repo, ps[1], p1):
            # the mainline merged into the branch: not the branch's own work, but its moment
            pulls.append(BranchPull(len(commits), ps[1], author_at, committer_at, sha))
            continue
        # a merge of the branch's own side work (two clones of one branch) is replayed as the
        # change it made to the branch's first parent
        commits.append(CommitInfo(sha, ps[0], author_at, committer_at, _files(repo, ps[0], sha)))
    return PullRequestHistory(number, merge, at, p1, p2, tuple(commits), pulls=tuple(pulls))


def _closed_pull_requests(
    repo: Path, rows: list[Row], last_index: int, clock_start: int
) -> list[PullRequestHistory]:
    """Pull requests closed without merging whose own commits fall in the window.

    Their branch is read as a merged one's is, against the last replayed mainline commit; the
    commits after the window's end are dropped. They never merge (``closed``): git does not
    record when GitHub closed them, so they stay open to the window's end.
    """
    named = {int(m.group(1)) for _, _, _, subject in rows
             if (m := _PR.match(subject) or _SQUASHED.search(subject))}  # fmt: skip
    heads = git_text(repo, ["for-each-ref", "refs/pull",
                            "--format=%(refname) %(objectname) %(committerdate:unix)"])  # fmt: skip
    tip, end = rows[last_index][0], rows[last_index][2]
    found = []
    for line in heads.splitlines():
        ref, sha, last = line.split()
        m = _PULL_HEAD.match(ref)
        # cheap tests first: a head committed before the window, or named by the mainline
        if m is None or int(m.group(1)) in named or int(last or 0) < clock_start:
            continue
        own = git_text(repo, ["log", "--first-parent", "--format=%ct", sha, f"^{tip}"])
        if not any(clock_start <= int(t) <= end for t in own.split()):
            continue  # nothing of its own inside the window (or already on the mainline)
        pr = _pull_request(repo, int(m.group(1)), "", [tip, sha], end)
        commits = tuple(c for c in pr.commits if c.committer_at <= end)
        if not any(c.committer_at >= clock_start for c in commits):
            continue
        pulls = tuple(p for p in pr.pulls if p.committer_at <= end)
        found.append(replace(pr, commits=commits, closed=True, pulls=pulls))
    return found


def _on_mainline(repo: Path, commit: str, mainline_parent: str) -> bool:
    code, _ = git(repo, ["merge-base", "--is-ancestor", commit, mainline_parent], ok_codes=(0, 1))
    return code == 0


def _fork_point(
    repo: Path,
    pr: PullRequestHistory,
    rows: list[Row],
    mainline_at: dict[str, int],
    start_index: int,
) -> str:
    """The mainline commit the branch forked from, no earlier than the replay's start.

    A base off the first-parent line (a commit of another branch, or of a release branch, that
    the mainline merged) counts from the first mainline commit that holds it, not from the
    replay's start: a branch forked in 2021 does not start from 2020's mainline.
    """
    first = pr.commits[0].parent if pr.commits else pr.mainline_parent
    code, out = git(repo, ["merge-base", pr.mainline_parent, first], ok_codes=(0, 1))
    base = out.decode().strip() if code == 0 else ""
    index = mainline_at.get(base)
    if index is None and base:
        index = mainline_at.get(_first_holding(repo, base, pr.mainline_parent))
    return rows[max(start_index if index is None else index, start_index)][0]


def _first_holding(repo: Path, commit: str, tip: str) -> str:
    """The oldest first-parent commit up to ``tip`` that holds ``commit`` ("" when none)."""
    code, out = git(repo, ["rev-list", "--first-parent", "--ancestry-path", "--reverse",
                           f"{commit}..{tip}"], ok_codes=(0, 128))  # fmt: skip
    found = out.decode().split(None, 1) if code == 0 else []
    return found[0] if found else ""


def read_window(
    source: str | Path,
    *,
    ref: str = "HEAD",
    since: str | None = None,
    until: str | None = None,
    max_prs: int = 100,
    lookback_days: float = 30.0,
    order: str = "committer",
    workers: int = 2,
    closed: bool = False,
) -> ReplayHistory:
    """The first ``max_prs`` pull requests merged in ``[since, until]`` and the mainline around.

    The replay starts at the earliest change of those pull requests (by ``order``), but no
    earlier than ``lookback_days`` before the first of their merges; its start commit is the
    last mainline commit at or before that moment. Every mainline commit after it, up to the
    last replayed merge, is a step: replayed merges, and everything else pushed as it was.
    ``closed``: the pull requests closed without merging join (module docstring).
    """
    repo = Path(source)
    rows = _first_parent(repo, ref)
    lo, hi = _epoch(since), _epoch(until)
    chosen = [
        (int(m.group(1)), sha, parents, ct)
        for sha, parents, ct, subject in rows
        if len(parents) == 2
        and (m := _PR.match(subject))
        and (lo is None or ct >= lo)
        and (hi is None or ct <= hi)
    ][:max_prs]
    if not chosen:
        raise ValueError("no pull request merged with a merge commit in that window")
    with ThreadPoolExecutor(max_workers=workers) as pool:
        found: Sequence[PullRequestHistory] = list(
            pool.map(lambda c: _pull_request(repo, c[0], c[1], c[2], c[3]), chosen)
        )
    first_merge = min(c[3] for c in chosen)
    earliest = min(
        [c.at(order) for pr in found for c in pr.commits] or [first_merge], default=first_merge
    )
    clock_start = max(earliest, first_merge - int(lookback_days * 86_400))
    index = {sha: k for k, (sha, _, _, _) in enumerate(rows)}
    first_index = index[chosen[0][1]]
    start_index = first_index - 1
    while start_index > 0 and rows[start_index][2] > clock_start:
        start_index -= 1
    last_index = index[chosen[-1][1]]
    if closed:
        found = [*found, *_closed_pull_requests(repo, rows, last_index, clock_start)]
    prs = [replace(pr, fork_point=_fork_point(repo, pr, rows, index, start_index)) for pr in found]
    by_merge = {c[1]: c[0] for c in chosen}
    steps = tuple(
        MainlineStep(sha, parents[0], ct, by_merge.get(sha))
        for sha, parents, ct, _ in rows[start_index + 1 : last_index + 1]
    )
    head = git_text(repo, ["rev-parse", ref]).strip()
    return ReplayHistory(
        source=str(repo.resolve()),
        ref=ref,
        head=head,
        start=rows[start_index][0],
        clock_start=clock_start,
        mainline=steps,
        prs=tuple(prs),
    )
