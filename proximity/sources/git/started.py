"""When an agent started, as git records it: the first input of right of way.

Every face of the radar (the local hook, ``radar check``, MCP, the server's check, the scan and
the board) ranks a Resolution pair by the agents' starts, so all of them must read a start the
same way and none may take it from what an agent claims (docs/DECISIONS.md, "One right of way
everywhere"). The start of a branch is the earliest of

- the committer time of the oldest commit on the branch since its merge base with the base
  branch, and
- the branch's creation, the first entry of its reflog (``git worktree add -b``, ``git branch``
  and ``git checkout -b`` write it; a commit, a rebase or an amend never moves it);

without either (a detached HEAD with nothing committed, reflogs switched off) a linked
worktree's creation stands in for the branch's, and only then the oldest change time of its
files. Whole seconds throughout: git's own times have no finer grain, and a finer file time
would rank two readers of the same worktree differently after a round trip through ISO text.
The base branch's own reflog dates the repository, not a task, so it is never read.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from proximity.sources.git._run import GitError, git, git_text

__all__ = [
    "agent_start",
    "branch_created",
    "branch_start",
    "created_at",
    "worktree_admin_dir",
    "worktree_created",
]

_REFLOG_LINE = 4096


def _second(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(microsecond=0)


def branch_created(common_dir: Path, branch: str) -> datetime | None:
    """The time of the first entry of ``branch``'s reflog (None: no reflog to read).

    Read as a file (one open, no git process: a hook reads every worktree on every edit); a
    repository on the reftable backend has no such file and falls back to the next source.
    """
    if not branch or ".." in branch.split("/") or branch.startswith("/"):
        return None  # not a branch name git would make: never a path out of the logs folder
    try:
        with (common_dir / "logs" / "refs" / "heads" / branch).open("rb") as log:
            first = log.readline(_REFLOG_LINE)
    except (OSError, ValueError):
        return None
    # "<old> <new> <name> <<email>> <seconds> <zone>\t<message>"
    fields = first.split(b"\t", 1)[0].rsplit(b" ", 2)
    try:
        return datetime.fromtimestamp(int(fields[-2]), tz=UTC)
    except (ValueError, IndexError, OverflowError, OSError):
        return None


def worktree_created(worktree: Path) -> datetime | None:
    """A linked worktree's creation: its administrative folder's ``commondir`` file, which
    ``git worktree add`` writes once. None for the main worktree (its ``.git`` is a folder)."""
    admin = worktree_admin_dir(worktree)
    if admin is None:
        return None
    try:
        return datetime.fromtimestamp((admin / "commondir").stat().st_mtime, tz=UTC)
    except (OSError, ValueError, OverflowError):
        return None


def worktree_admin_dir(worktree: Path) -> Path | None:
    """A linked worktree's administrative folder (``<common>/worktrees/<name>``), from the
    ``gitdir:`` line of its ``.git`` file; None for the main worktree or an unreadable one."""
    try:
        pointer = (worktree / ".git").read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    if not pointer.startswith("gitdir:"):
        return None
    admin = Path(pointer.removeprefix("gitdir:").strip())
    return admin if admin.is_absolute() else worktree / admin


def _common_dir(worktree: Path) -> Path | None:
    if (worktree / ".git").is_dir():
        return worktree / ".git"
    admin = worktree_admin_dir(worktree)
    try:
        pointer = (admin / "commondir").read_text(encoding="utf-8").strip() if admin else ""
    except (OSError, ValueError):
        return None
    if not pointer:
        return None
    common = Path(pointer)
    return common if common.is_absolute() else admin / common if admin else None


def created_at(worktree: Path, branch: str | None, base: str) -> datetime | None:
    """The creation that dates an agent: its branch's (reflog), else its linked worktree's."""
    common = _common_dir(worktree) if branch and branch != base else None
    made = branch_created(common, branch) if common is not None and branch else None
    return made or worktree_created(worktree)


def agent_start(
    commit_times: Iterable[int],
    created: datetime | None,
    touched: Iterable[datetime | None] = (),
) -> datetime | None:
    """The earliest commit time or creation; else the oldest change time; None without any."""
    known = [datetime.fromtimestamp(t, tz=UTC) for t in commit_times]
    if created is not None:
        known.append(created)
    if not known:
        known = [t for t in touched if t is not None]
    return _second(min(known)) if known else None


def branch_start(repo: str | Path, branch: str, base: str) -> datetime | None:
    """The start of ``branch`` read from a repository the server can open; None when the
    repository does not hold the branch (the caller then cannot vouch for any start)."""
    ref = f"refs/heads/{branch}"
    try:
        code, _ = git(repo, ["rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], ok_codes=(0, 1))
        if code != 0:
            return None
        common = git_text(repo, ["rev-parse", "--path-format=absolute", "--git-common-dir"])
        code, out = git(repo, ["merge-base", base, ref], ok_codes=(0, 1))
        fork = out.decode().strip() if code == 0 else ""
        stamps = git_text(repo, ["log", "--format=%ct", f"{fork}..{ref}"]) if fork else ""
    except GitError:
        return None
    created = None if branch == base else branch_created(Path(common.strip()), branch)
    return agent_start((int(s) for s in stamps.split()), created)
