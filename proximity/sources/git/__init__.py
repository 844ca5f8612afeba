"""Git adapters: worktree discovery, working sets and dry-run merges. Read-only by design."""

from __future__ import annotations

from proximity.sources.git._run import GitError
from proximity.sources.git.dryrun import Conflict, DryRun, dry_run_conflicts
from proximity.sources.git.workingset import (
    WorkingFile,
    WorkingSet,
    read_working_set,
    read_working_sets,
)
from proximity.sources.git.worktrees import Worktree, discover_worktrees, explicit_worktrees

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
