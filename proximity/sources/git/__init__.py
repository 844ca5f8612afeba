"""Git adapters: worktree discovery, working sets and dry-run merges. Read-only by design.

The submodules load on first use (PEP 562): a pre-edit hook imports this package on every
edit and usually needs only the runner (``_run``), never the merger or the working-set reader.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from proximity.sources.git._run import GitError

if TYPE_CHECKING:
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

_HOME = {
    "Conflict": "dryrun",
    "DryRun": "dryrun",
    "dry_run_conflicts": "dryrun",
    "WorkingFile": "workingset",
    "WorkingSet": "workingset",
    "read_working_set": "workingset",
    "read_working_sets": "workingset",
    "Worktree": "worktrees",
    "discover_worktrees": "worktrees",
    "explicit_worktrees": "worktrees",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(f"proximity.sources.git.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
