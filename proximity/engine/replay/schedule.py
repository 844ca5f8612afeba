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
    "CLOSINGS",
    "ORDERS",
    "BranchPull",
    "Change",
    "CommitInfo",
    "Event",
    "FileChange",
    "MainlineStep",
    "PullRequestHistory",
    "build_schedule",
]

ORDERS = ("committer", "author")
CLOSINGS = ("window-end", "last-commit")
"""When a pull request closed without merging closes (git keeps no closing time): at the
window's end, the longest it could have stayed open, or right after its own last commit or
pull, the shortest. The truth lies between; a replay run at both brackets it."""
# At one second, mainline moves first (in its own order), then agents start, then they edit,
# then closed pull requests close (a close never comes before its own agent's last edit).
_PRIORITY = {"push": 0, "merge": 0, "start": 1, "change": 2, "pull": 2, "close": 3}


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
class BranchPull:
    """A merge of the mainline into the branch: history's agent bringing the mainline in.

    ``after`` is how many of the branch's own commits came before it; ``mainline`` the commit
    history merged (a record: the replay brings in its own mainline's tip at that moment);
    ``sha`` the merge commit, whose files are history's resolution of a conflicted path.
    """

    after: int
    mainline: str
    author_at: int
    committer_at: int
    sha: str = ""

    def at(self, order: str) -> int:
        return self.author_at if order == "author" else self.committer_at


@dataclass(frozen=True, slots=True)
class PullRequestHistory:
    """A pull request merged with a merge commit: its own first-parent commits, oldest first.

    ``pulls`` are the merge commits on the branch whose second parent is mainline history (the
    mainline merged into it): their diffs are the mainline's work,
    not the branch's, so they are not changes; the replay brings its own mainline in at their
    moment instead, as the branch did. Other merges on the branch (its own side work) are
    commits.
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
    fork_point: str = ""
    pulls: tuple[BranchPull, ...] = ()
    closed: bool = False
    """Closed without merging: an agent that never merges; ``merge`` is empty and ``merged_at``
    the window's end, when it closes (git keeps no closing time)."""

    @property
    def skipped_merges(self) -> int:
        """Merges of the mainline into the branch: not changes of its own."""
        return len(self.pulls)

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
    kind: str  # "push" | "merge" | "close" | "start" | "change" | "pull"
    pr: int | None = None
    step: MainlineStep | None = None
    change: Change | None = None
    index: int = 0  # position on the mainline (pushes and merges)
    pull: BranchPull | None = None
    after: int = 0  # a pull: how many of the PR's changes come before it

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        # a PR's changes and pulls keep their chain order at one second
        seq = 2 * self.change.seq + 1 if self.change is not None else 2 * self.after
        pr = self.pr if self.pr is not None else -1
        return (self.at, _PRIORITY[self.kind], self.index, pr, seq)


def _monotone(times: Iterable[int]) -> list[int]:
    out: list[int] = []
    for t in times:
        out.append(max(t, out[-1]) if out else t)
    return out


def _timeline(
    pr: PullRequestHistory, *, order: str, clock_start: int, pulls: bool
) -> tuple[list[Change], list[Event]]:
    """The PR's file changes in chain order, and its pulls placed between them, dated
    monotonically along the chain within [clock_start, merge]."""
    chain: list[CommitInfo | BranchPull] = list(pr.commits)
    if pulls:
        for pull in sorted(pr.pulls, key=lambda p: p.after, reverse=True):
            chain.insert(min(pull.after, len(pr.commits)), pull)
    times = _monotone(c.at(order) for c in chain)
    changes: list[Change] = []
    events: list[Event] = []
    for item, t in zip(chain, times, strict=True):
        at = min(max(t, clock_start), pr.merged_at)
        if isinstance(item, BranchPull):
            events.append(Event(at, "pull", pr.number, pull=item, after=len(changes)))
            continue
        for f in sorted(item.files, key=lambda f: f.path):
            changes.append(Change(pr.number, len(changes), item.sha, item.parent, f, at))
    return changes, events


def build_schedule(
    prs: Sequence[PullRequestHistory],
    mainline: Sequence[MainlineStep],
    *,
    order: str = "committer",
    clock_start: int,
    pulls: bool = True,
    closing: str = "window-end",
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
    pulls : bool
        Whether the branches' own merges of the mainline are events (``"pull"``); without
        them a branch never brings the mainline in unless a policy makes it.
    closing : {"window-end", "last-commit"}
        When a closed pull request closes (:data:`CLOSINGS`).

    Notes
    -----
    Mainline times are made monotone along the first-parent line (a pushed commit can carry an
    older committer time than its parent). An agent starts at its first change or pull, or at
    its merge when its branch has neither. Ties: the mainline's steps in their order, then
    starts, then changes and pulls in their chain order. A closed pull request closes
    (``"close"``) at the last mainline step, or with ``closing="last-commit"`` right after its
    own last event (the same second: a close comes after the second's edits).
    """
    if order not in ORDERS:
        raise ValueError(f"order: must be one of {', '.join(ORDERS)} (got {order!r})")
    if closing not in CLOSINGS:
        raise ValueError(f"closing: must be one of {', '.join(CLOSINGS)} (got {closing!r})")
    events: list[Event] = []
    times = _monotone(s.at for s in mainline)
    for index, (step, at) in enumerate(zip(mainline, times, strict=True)):
        kind = "merge" if step.pr is not None else "push"
        events.append(Event(max(at, clock_start), kind, step.pr, step=step, index=index))
    merged_at = {e.pr: e.at for e in events if e.kind == "merge"}
    end = max([clock_start, *(e.at for e in events)])
    for pr in prs:
        if pr.closed:
            merged_at[pr.number] = end
        elif pr.number not in merged_at:
            raise ValueError(f"pull request #{pr.number} has no merge step on the mainline")
        fixed = replace(pr, merged_at=merged_at[pr.number])
        changes, pulled = _timeline(fixed, order=order, clock_start=clock_start, pulls=pulls)
        own = [c.at for c in changes] + [e.at for e in pulled]
        start = min(own, default=fixed.merged_at)
        if pr.closed:
            last = max(own, default=start) if closing == "last-commit" else end
            events.append(Event(last, "close", pr.number))
        events.append(Event(start, "start", pr.number))
        events += [Event(c.at, "change", pr.number, change=c) for c in changes]
        events += pulled
    events.sort(key=lambda e: e.key)
    return events
