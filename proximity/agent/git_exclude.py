"""Keep the hook settings ``radar hooks install`` writes out of ``git status``.

The file written into a worktree (and any backup of it) is listed in the repository's exclude
file, found with ``git rev-parse --git-path info/exclude`` so a linked worktree (``git worktree
add``) writes the one its repository reads. The airspace drops these files anyway
(:mod:`proximity.sources.radar_files`); this keeps them from being committed by accident and
from showing in every agent's ``git status``. Standard library only (plus our git runner).
"""

from __future__ import annotations

from pathlib import Path

from proximity.sources.radar_files import BACKUP_PATTERNS

__all__ = ["exclude_written"]

HEADER = "# Overlap Radar: hook settings written by `radar hooks install` (and their backups)"


def _exclude_file(root: Path) -> Path | None:
    from proximity.sources.git._run import GitError, git_text

    try:
        found = git_text(root, ["rev-parse", "--git-path", "info/exclude"]).strip()
    except GitError:
        return None
    path = Path(found)
    return path if path.is_absolute() else root / path


def exclude_written(root: Path, written: Path) -> Path | None:
    """List ``written`` (a file under the worktree ``root``) and the backup patterns in the git
    exclude file; returns that file when a line was added, ``None`` when nothing was needed
    or possible (not in a git worktree, the file outside ``root``, an unwritable file)."""
    try:
        rel = written.absolute().relative_to(root.absolute()).as_posix()
    except ValueError:
        return None
    target = _exclude_file(root)
    if target is None:
        return None
    try:
        text = target.read_text(encoding="utf-8") if target.exists() else ""
        present = {line.strip() for line in text.splitlines()}
        missing = [p for p in (f"/{rel}", *BACKUP_PATTERNS) if p not in present]
        if not missing:
            return None
        lead = "" if not text or text.endswith("\n") else "\n"
        header = [] if HEADER in present else [HEADER]
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as handle:
            handle.write(lead + "\n".join([*header, *missing]) + "\n")
    except OSError:
        return None  # the airspace drops the files anyway; git status just shows them
    return target
