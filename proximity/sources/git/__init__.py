"""Git adapters: worktree discovery, working sets and dry-run merges. Read-only by design."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proximity.sources.git._run import GitError
from proximity.sources.git.workingset import (
    WorkingFile,
    WorkingSet,
    read_working_set,
    read_working_sets,
)
from proximity.sources.git.worktrees import Worktree, discover_worktrees, explicit_worktrees

if TYPE_CHECKING:
    from proximity.sources.git.dryrun import Conflict, DryRun, dry_run_conflicts

__all__ = [
    "Conflict",
    "DryRun",
    "GitError",
    "WorkingFile",
    "WorkingSet",
    "Worktree",
    "discover_worktrees",
    "dry_run_conflicts",
    "explicit_worktrees",
    "read_working_set",
    "read_working_sets",
]


def __getattr__(name: str) -> Any:
    # The dry-run merger (tempfile, shutil, thread pools) loads on first use: a pre-edit hook
    # imports this package on every edit and never merges.
    if name in {"Conflict", "DryRun", "dry_run_conflicts"}:
        from proximity.sources.git import dryrun

        return getattr(dryrun, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
