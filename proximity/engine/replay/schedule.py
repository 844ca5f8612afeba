"""The replay's timeline: pull requests as agents, their file changes, merges and mainline pushes.

Pure data: :mod:`proximity.lab.replay_history` reads these values from a repository; this
module orders them. Replay time is historical time (epoch seconds). Which historical stamp dates a
commit is a choice (``order``): the committer time (the default) is when the commit's content
was made against its parent, so a change never carries information from after its moment; it is
reset by rebases and amends, so a branch's age is a lower bound (BACKTEST-NOTES). The author time
survives rebases but then dates content that was written against a later base.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

__all__ = [
    "ORDERS",
    "Change",
    "CommitInfo",
    "Event",
    "FileChange",
    "MainlineStep",
    "PullRequestHistory",
    "build_schedule",
]

ORDERS = ("committer", "author")
# At one second, mainline moves first (in its own order), then agents start, then they edit.
_PRIORITY = {"push": 0, "merge": 0, "start": 1, "change": 2}


@dataclass(frozen=True, slots=True)
class FileChange:
    """One path a commit changed against its parent (git's raw record, renames split)."""

    path: str
    status: str  # "A" | "M" | "D" | "T"
    old_blob: str
    new_blob: str
    old_mode: str
    new_mode: str
    hunks: int  # git's -U0 hunk count (1 for additions, deletions and binary files)
    binary: bool = False

    @property
    def regular(self) -> bool:
        """A plain file on both sides (symlinks and submodules are not replayed)."""
        return all(m in {"000000", "100644", "100755"} for m in (self.old_mode, self.new_mode))


@dataclass(frozen=True, slots=True)
class CommitInfo:
    sha: str
    parent: str
    author_at: int
    committer_at: int
    files: tuple[FileChange, ...] = ()

    def at(self, order: str) -> int:
        return self.author_at if order == "author" else self.committer_at


@dataclass(frozen=True, slots=True)
class PullRequestHistory:
    """A pull request merged with a merge commit: its own first-parent commits, oldest first.

    ``skipped_merges`` counts merge commits on the branch whose second parent is mainline history
    (the mainline merged into it); their diffs are the mainline's work, not the branch's, so they
    are not replayed as changes. Other merges on the branch (its own side work) are commits.
    ``fork_point`` is the mainline commit the branch forked from (the replay's start commit when
    that lies before the replay): the agent's worktree starts from the replayed mainline as it
    stood after that commit's step.
    """

    number: int
    merge: str
    merged_at: int
    mainline_parent: str
    tip: str
    commits: tuple[CommitInfo, ...]
    skipped_merges: int = 0
    fork_point: str = ""

    @property
    def agent(self) -> str:
        return f"pr-{self.number}"


@dataclass(frozen=True, slots=True)
class MainlineStep:
    """One first-parent commit of the mainline; ``pr`` is set when it merges a replayed PR."""

    sha: str
    parent: str
    at: int
    pr: int | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """The unit an agent applies: one file of one commit, at the commit's replay time."""

    pr: int
    seq: int
    commit: str
    parent: str
    file: FileChange
    at: int

    @property
    def path(self) -> str:
        return self.file.path


@dataclass(frozen=True, slots=True)
class Event:
    at: int
    kind: str  # "push" | "merge" | "start" | "change"
    pr: int | None = None
    step: MainlineStep | None = None
    change: Change | None = None
    index: int = 0  # position on the mainline (pushes and merges)

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        seq = self.change.seq if self.change is not None else 0
        pr = self.pr if self.pr is not None else -1
        return (self.at, _PRIORITY[self.kind], self.index, pr, seq)


def _monotone(times: Iterable[int]) -> list[int]:
    out: list[int] = []
    for t in times:
        out.append(max(t, out[-1]) if out else t)
    return out


def _changes(pr: PullRequestHistory, *, order: str, clock_start: int) -> list[Change]:
    """The PR's file changes in chain order, dated monotonically within [clock_start, merge]."""
    times = _monotone(c.at(order) for c in pr.commits)
    out: list[Change] = []
    for commit, t in zip(pr.commits, times, strict=True):
        at = min(max(t, clock_start), pr.merged_at)
        for f in sorted(commit.files, key=lambda f: f.path):
            out.append(Change(pr.number, len(out), commit.sha, commit.parent, f, at))
    return out


def build_schedule(
    prs: Sequence[PullRequestHistory],
    mainline: Sequence[MainlineStep],
    *,
    order: str = "committer",
    clock_start: int,
) -> list[Event]:
    """Every event of the replay in time order.

    Parameters
    ----------
    prs : sequence of PullRequestHistory
        The replayed pull requests; each becomes an agent.
    mainline : sequence of MainlineStep
        First-parent commits after the replay's start, oldest first; steps with ``pr`` set are
        those PRs' merges, the others are pushed to the replay's mainline as they were.
    order : {"committer", "author"}
        Which historical stamp dates a commit (module docstring).
    clock_start : int
        Epoch seconds of the replay's start; earlier changes are applied at this moment.

    Notes
    -----
    Mainline times are made monotone along the first-parent line (a pushed commit can carry an
    older committer time than its parent). An agent starts at its first change, or at its merge
    when its branch has no change of its own. Ties: the mainline's steps in their order, then
    starts, then changes.
    """
    if order not in ORDERS:
        raise ValueError(f"order: must be one of {', '.join(ORDERS)} (got {order!r})")
    events: list[Event] = []
    times = _monotone(s.at for s in mainline)
    for index, (step, at) in enumerate(zip(mainline, times, strict=True)):
        kind = "merge" if step.pr is not None else "push"
        events.append(Event(max(at, clock_start), kind, step.pr, step=step, index=index))
    merged_at = {e.pr: e.at for e in events if e.kind == "merge"}
    for pr in prs:
        if pr.number not in merged_at:
            raise ValueError(f"pull request #{pr.number} has no merge step on the mainline")
        fixed = replace(pr, merged_at=merged_at[pr.number])
        changes = _changes(fixed, order=order, clock_start=clock_start)
        start = changes[0].at if changes else fixed.merged_at
        events.append(Event(start, "start", pr.number))
        events += [Event(c.at, "change", pr.number, change=c) for c in changes]
    events.sort(key=lambda e: e.key)
    return events
