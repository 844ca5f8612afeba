"""One ``git status`` read shared by the working-set reader and the file lister."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from proximity.sources.git._run import git_text

__all__ = ["Status", "parse_status", "read_status"]


@dataclass(frozen=True, slots=True)
class Status:
    """Paths by state. ``changed``: differs from HEAD in the index or the working tree;
    ``unstaged``: the working-tree file differs from the index (deletions excluded)."""

    changed: frozenset[str]
    unstaged: frozenset[str]
    deleted: frozenset[str]
    untracked: tuple[str, ...]


def read_status(root: str | Path) -> Status:
    """Parse ``git status --porcelain=v2 -z`` (no rename pairing, every untracked file)."""
    out = git_text(
        root,
        ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames",
         "--ignore-submodules=all"],
    )  # fmt: skip
    return parse_status(out)


def parse_status(out: str) -> Status:
    """The paths of ``git status --porcelain=v2 -z`` output (``--branch`` headers are skipped)."""
    changed: set[str] = set()
    unstaged: set[str] = set()
    deleted: set[str] = set()
    untracked: list[str] = []
    for item in out.split("\0"):
        if item.startswith("? "):
            untracked.append(item[2:])
        elif item.startswith("1 "):
            fields = item.split(" ", 8)
            changed.add(fields[8])
            target = deleted if fields[1][1] == "D" else unstaged
            if fields[1][1] != ".":
                target.add(fields[8])
        elif item.startswith("u "):
            changed.add(item.split(" ", 10)[10])
            unstaged.add(item.split(" ", 10)[10])
    return Status(frozenset(changed), frozenset(unstaged), frozenset(deleted), tuple(untracked))
