"""Which settings file each harness reads for a folder, by the harness's own rules.

A harness does not always read the file a person would guess, so install, uninstall and doctor
all ask here (facts checked against the real programs by tests/harness/):

- **Claude Code** reads the worktree's own ``.claude/settings.json`` and
  ``.claude/settings.local.json``, and ``$CLAUDE_CONFIG_DIR/settings.json`` (default
  ``~/.claude``) for the user; hooks of all of them run.
- **Codex CLI** (0.169) in a linked git worktree reads project hooks from the *main checkout's*
  ``.codex/hooks.json``, and only when the worktree itself has a ``.codex/`` folder; the user's
  file is ``$CODEX_HOME/hooks.json`` (default ``~/.codex``).
- **Gemini CLI** reads the folder's ``.gemini/settings.json`` and
  ``$GEMINI_CLI_HOME/.gemini/settings.json`` (default ``~/.gemini``).
- **Cursor** reads ``.cursor/hooks.json`` and ``~/.cursor/hooks.json``.

Standard library only (plus :mod:`proximity.sources.git`, imported when a worktree is needed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from proximity.agent.harness_settings import HarnessSpec

__all__ = ["Place", "codex_home", "gemini_home", "place", "worktree_tops"]


@dataclass(frozen=True, slots=True)
class Place:
    """The file a harness reads for one scope, and what else it needs to read it.

    ``needs_folder``: a folder that must exist for the harness to look at ``path`` at all
    (Codex in a linked worktree: the worktree's own ``.codex/``).
    """

    scope: str
    path: Path
    needs_folder: Path | None = None


def codex_home() -> Path:
    home = os.environ.get("CODEX_HOME")
    return Path(home).expanduser() if home else Path.home() / ".codex"


def gemini_home() -> Path:
    """The folder holding Gemini CLI's ``.gemini`` user folder (``GEMINI_CLI_HOME``)."""
    home = os.environ.get("GEMINI_CLI_HOME")
    return Path(home).expanduser() if home else Path.home()


def _claude_home() -> Path:
    home = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(home).expanduser() if home else Path.home() / ".claude"


def worktree_tops(path: str | Path) -> tuple[Path, Path]:
    """``(this worktree's top, the main checkout's top)``; the same folder outside a linked one.

    Raises :class:`proximity.sources.git.GitError` (a ``RuntimeError``) outside a worktree.
    """
    from proximity.agent.worktree import find_worktree
    from proximity.sources.git._run import git_text

    top = find_worktree(Path(path).absolute()).top
    common = Path(
        git_text(top, ["rev-parse", "--path-format=absolute", "--git-common-dir"]).strip()
    )
    main = common.parent if common.name == ".git" else top  # a bare repository has no checkout
    return top, main


def _user_file(spec: HarnessSpec) -> Path:
    if spec.harness == "claude":
        return _claude_home() / spec.filename
    if spec.harness == "codex":
        return codex_home() / spec.filename
    if spec.harness == "gemini":
        return gemini_home() / spec.folder / spec.filename
    return Path.home() / spec.folder / spec.filename


def place(spec: HarnessSpec, scope: str, path: str | Path) -> Place:
    """Where ``spec``'s harness reads ``scope``'s hooks when it runs in ``path``'s worktree."""
    if scope == "user":
        return Place(scope, _user_file(spec))
    top, main = worktree_tops(path)
    if spec.harness == "codex" and main != top:
        return Place(scope, spec.path(main, scope), needs_folder=top / spec.folder)
    return Place(scope, spec.path(top, scope))
