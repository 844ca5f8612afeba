"""The asking agent's worktree: found from the paths in the hook payload, never from env.

A harness starts its hook processes in the session's start directory, which need not be the
worktree being edited; the file path (or the payload's ``cwd``) says where the edit lands.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from proximity.engine.diff import parse_raw_patch
from proximity.engine.planned import planned_base_hunks
from proximity.sources.git._run import DIFF_ARGS, GitError, git_text

__all__ = ["AskingWorktree", "engine_entries", "find_worktree", "merge_base"]


@dataclass(frozen=True, slots=True)
class AskingWorktree:
    top: Path
    common_dir: Path
    agent_id: str
    head: str | None

    def relative(self, path: str | Path) -> str | None:
        """The repository path of ``path``, or ``None`` when it lies outside this worktree."""
        target = Path(path)
        target = target if target.is_absolute() else self.top / target
        resolved = _resolve(target)
        return (
            resolved.relative_to(self.top).as_posix() if resolved.is_relative_to(self.top) else None
        )


def _resolve(path: Path) -> Path:
    """Resolve symlinks of the longest existing prefix (the file itself may not exist yet)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    return existing.resolve() / path.relative_to(existing)


def find_worktree(path: str | Path) -> AskingWorktree:
    """The worktree holding ``path`` (a file or folder, existing or about to be created)."""
    folder = _resolve(Path(path).absolute())
    while not folder.is_dir():
        folder = folder.parent
    out = git_text(
        folder,
        [
            "rev-parse",
            "--show-toplevel",
            "--git-common-dir",
            "HEAD",
            "--symbolic-full-name",
            "HEAD",
        ],
    ).splitlines()
    if len(out) < 3 or not out[0]:
        raise GitError(folder, "not inside a worktree")
    top = Path(out[0]).resolve()
    common = Path(out[1]) if Path(out[1]).is_absolute() else (folder / out[1])
    branch = out[3] if len(out) > 3 else "HEAD"
    agent = branch.removeprefix("refs/heads/") if branch.startswith("refs/heads/") else None
    return AskingWorktree(top, common.resolve(), agent or f"detached:{top.name}", out[2])


def merge_base(top: Path, base: str) -> str | None:
    try:
        return git_text(top, ["merge-base", base, "HEAD"]).strip() or None
    except GitError:
        return None


def engine_entries(
    worktree: AskingWorktree,
    planned: list[tuple[str, tuple[tuple[int, int], ...] | None, str]],
    *,
    base: str,
) -> list[dict[str, object]]:
    """Engine file entries for planned ``(repository path, current lines, kind)`` edits.

    Current-file lines are mapped through this worktree's own diff against the merge base to
    base-side hunks, the coordinates every other branch shares. A whole-file edit, a deletion,
    a new file or a worktree whose merge base is unknown stays whole-file.
    """
    base_commit = merge_base(worktree.top, base)
    hunks = {}
    wanted = sorted({p for p, lines, _ in planned if lines})
    if base_commit and wanted:
        text = git_text(worktree.top, [*DIFF_ARGS, base_commit, "--", *wanted])
        hunks = {d.path: d.hunks for d in parse_raw_patch(text)}
    out: list[dict[str, object]] = []
    for path, lines, kind in planned:
        entry: dict[str, object] = {"path": path}
        if kind == "delete":
            entry["status"] = "D"
        elif lines and base_commit:
            # an insertion point (k + 1, k) is shown as the line it follows
            entry["lines"] = [[max(b, 1)] * 2 if b < a else [a, b] for a, b in lines]
            entry["baseHunks"] = [list(h) for h in planned_base_hunks(hunks.get(path, ()), lines)]
        out.append(entry)
    return out
