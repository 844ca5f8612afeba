"""Find the worktrees of a repository and give each a stable agent id."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from proximity.sources.git._run import GitError, git, git_text

__all__ = [
    "Worktree",
    "branch_descriptions",
    "discover_worktrees",
    "explicit_worktrees",
    "parse_worktree_porcelain",
    "repository_root",
]


@dataclass(frozen=True, slots=True)
class Worktree:
    """One checked-out working tree.

    ``agent_id`` is the short branch name, or ``detached:<folder name>`` for a detached HEAD
    (``:`` cannot occur in a ref name, so the two forms never collide). ``problem`` is set when
    git already knows the worktree cannot be read (its directory was deleted).
    """

    path: str
    agent_id: str
    head: str | None
    branch: str | None
    base: str | None = None
    problem: str | None = None

    @property
    def detached(self) -> bool:
        return self.branch is None


def repository_root(repo: str | Path) -> Path:
    """The top of the working tree holding ``repo``; a clear error if it is not a repository."""
    path = Path(repo)
    if not path.is_dir():
        raise GitError(path, "not a directory")
    try:
        top = git_text(path, ["rev-parse", "--show-toplevel"]).strip()
    except GitError as exc:
        raise GitError(path, f"not a git repository ({exc.problem})") from exc
    if not top:
        raise GitError(path, "a bare repository has no working tree to read")
    return Path(top)


def branch_descriptions(repo: str | Path) -> dict[str, str]:
    """First line of each ``git branch --edit-description`` text, by branch: a task label."""
    code, out = git(repo, ["config", "-z", "--get-regexp", r"^branch\..*\.description$"],
                    ok_codes=(0, 1))  # fmt: skip
    labels = {}
    for item in out.decode("utf-8", "replace").split("\0") if code == 0 else ():
        key, _, value = item.partition("\n")
        name = key.removeprefix("branch.").removesuffix(".description")
        if item and value.strip():
            labels[name] = value.strip().splitlines()[0]
    return labels


def _short(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def _record(fields: dict[str, str]) -> tuple[str, str | None, str | None, str | None]:
    branch = _short(fields["branch"]) if "branch" in fields else None
    problem = None
    if "prunable" in fields:
        problem = f"worktree directory is missing ({fields['prunable'] or 'prunable'})"
    return fields["worktree"], fields.get("HEAD"), branch, problem


def parse_worktree_porcelain(text: str) -> list[tuple[str, str | None, str | None, str | None]]:
    """Parse ``git worktree list --porcelain -z`` into (path, head, branch, problem) tuples.

    Bare entries are dropped: they have no working tree and so no working set.
    """
    out, fields = [], {}
    for item in text.split("\0"):
        if item:
            key, _, value = item.partition(" ")
            fields[key] = value
            continue
        if "worktree" in fields and "bare" not in fields:
            out.append(_record(fields))
        fields = {}
    return out


def _assign_ids(
    rows: Iterable[tuple[str, str | None, str | None, str | None]], base: str | None
) -> list[Worktree]:
    out: list[Worktree] = []
    seen: set[str] = set()
    for path, head, branch, problem in sorted(rows, key=lambda r: r[0]):
        agent_id = branch or f"detached:{Path(path).name}"
        candidate, n = agent_id, 2
        while candidate in seen:  # two detached folders with one name: suffix by path order
            candidate, n = f"{agent_id}:{n}", n + 1
        seen.add(candidate)
        out.append(Worktree(path, candidate, head, branch, base, problem))
    return out


def discover_worktrees(repo: str | Path, *, base: str | None = None) -> list[Worktree]:
    """Every worktree of the repository holding ``repo``, sorted by path."""
    root = repository_root(repo)
    text = git_text(root, ["worktree", "list", "--porcelain", "-z"])
    return _assign_ids(parse_worktree_porcelain(text), base)


def _head_of(path: Path) -> tuple[str | None, str | None, str | None]:
    if not path.is_dir():
        return None, None, "worktree directory is missing"
    try:
        out = git_text(path, ["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"]).split()
    except GitError as exc:
        return None, None, exc.problem
    branch = _short(out[1]) if len(out) > 1 and out[1].startswith("refs/heads/") else None
    return out[0], branch, None


def explicit_worktrees(pairs: Sequence[tuple[str | Path, str]]) -> list[Worktree]:
    """Worktrees given as (path, base branch) pairs instead of discovered."""
    rows = []
    bases = {}
    for raw_path, pair_base in pairs:
        path = Path(raw_path).absolute()
        head, branch, problem = _head_of(path)
        rows.append((str(path), head, branch, problem))
        bases[str(path)] = pair_base
    return [
        Worktree(w.path, w.agent_id, w.head, w.branch, bases[w.path], w.problem)
        for w in _assign_ids(rows, None)
    ]
