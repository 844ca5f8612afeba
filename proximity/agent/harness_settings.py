"""Each harness's hook settings file: where it is, how it reads, and which entries are ours.

Shared by :mod:`proximity.agent.install` (which writes the files) and
:mod:`proximity.agent.doctor` (which only reads them), so that neither imports the other for it.
Standard library only (plus :mod:`proximity.agent.worktree`, imported when a worktree is needed).
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SPECS",
    "HarnessSpec",
    "InstallError",
    "installed",
    "is_ours",
    "radar_executable",
    "read_settings",
    "scope_root",
]

# A harness kills a hook after this long. It sits above the hook's own deadline (the policy's
# timeout_seconds, 3 s by default), so the hook normally gives up, fails open and logs it first.
_TIMEOUT_S = 10
_CLAUDE_TOOLS = "Edit|Write|MultiEdit|NotebookEdit|Bash"
_CODEX_TOOLS = "^(apply_patch|Bash)$"  # Codex's hook input names every shell call "Bash"
_GEMINI_TOOLS = "replace|write_file|run_shell_command"
_CURSOR_TOOLS = "Write|StrReplace|Edit|Delete"  # tool types; shell has beforeShellExecution


class InstallError(ValueError):
    """A settings file cannot be read or merged; the message names it."""


@dataclass(frozen=True, slots=True)
class HarnessSpec:
    """Where a harness reads its hooks, which of its events we hook, and its entry shape."""

    harness: str
    folder: str
    filename: str
    events: tuple[tuple[str, str | None], ...]
    handler: Mapping[str, object] = field(default_factory=dict)
    flat: bool = False  # Cursor: handlers sit directly in the event's list, no matcher groups
    top: Mapping[str, object] = field(default_factory=dict)
    # Events an earlier release hooked and this one does not: install takes ours out of them.
    retired: tuple[str, ...] = ()
    # Claude Code's per-machine project file, git-ignored, for a command holding a local path.
    local: str = ""

    @property
    def scopes(self) -> tuple[str, ...]:
        return ("project", "local", "user") if self.local else ("project", "user")

    def path(self, root: Path, scope: str = "project") -> Path:
        """The settings file of ``scope`` under ``root`` (the worktree's top, or ``$HOME``)."""
        return root / self.folder / (self.local if scope == "local" else self.filename)

    def entry(self, command: str, matcher: str | None) -> dict[str, object]:
        only = {"matcher": matcher} if matcher else {}
        if self.flat:
            return {"command": command, **only, **self.handler}
        return {**only, "hooks": [{"type": "command", "command": command, **self.handler}]}

    def handlers(self, entry: object) -> list[Any]:
        """The handlers of one entry of an event's list (a flat entry is its own handler)."""
        if self.flat:
            return [entry]
        handlers = entry.get("hooks") if isinstance(entry, dict) else None
        return handlers if isinstance(handlers, list) else []

    def owns(self, handler: object) -> bool:
        return isinstance(handler, dict) and is_ours(handler.get("command"), self.harness)


def _tool_events(pre: str, post: str, tools: str, *rest: str) -> tuple[tuple[str, str | None], ...]:
    return ((pre, tools), (post, tools), *((event, None) for event in rest))


SPECS = {
    "claude": HarnessSpec(
        "claude",
        ".claude",
        "settings.json",
        _tool_events(
            "PreToolUse", "PostToolUse", _CLAUDE_TOOLS, "SessionStart", "UserPromptSubmit"
        ),
        {"timeout": _TIMEOUT_S},
        local="settings.local.json",
    ),
    "codex": HarnessSpec(
        "codex",
        ".codex",
        "hooks.json",
        _tool_events("PreToolUse", "PostToolUse", _CODEX_TOOLS, "SessionStart", "UserPromptSubmit"),
        {"timeout": _TIMEOUT_S},
    ),
    "gemini": HarnessSpec(
        "gemini",
        ".gemini",
        "settings.json",
        _tool_events("BeforeTool", "AfterTool", _GEMINI_TOOLS, "SessionStart", "BeforeAgent"),
        {"name": "overlap-radar", "timeout": _TIMEOUT_S * 1000},  # Gemini CLI counts milliseconds
    ),
    # postToolUse, not afterFileEdit: only postToolUse's answer (additional_context) reaches the
    # model, and the post-edit hook consumes the messages it delivers.
    "cursor": HarnessSpec(
        "cursor",
        ".cursor",
        "hooks.json",
        (
            ("preToolUse", _CURSOR_TOOLS),
            ("beforeShellExecution", None),
            ("postToolUse", _CURSOR_TOOLS),
            ("sessionStart", None),
            ("beforeSubmitPrompt", None),
        ),
        {"timeout": _TIMEOUT_S},
        flat=True,
        top={"version": 1},
        retired=("afterFileEdit",),
    ),
}


def radar_executable() -> str:
    """The absolute path of the ``radar`` command.

    Always absolute: a harness runs hooks with its own ``PATH`` (an editor started from the
    desktop has none of the shell's virtualenv), so the command must not depend on it.
    """
    argv0 = Path(sys.argv[0])
    if argv0.name == "radar" and argv0.is_file():
        return str(argv0.absolute())
    beside = Path(sys.executable).with_name("radar")
    if beside.is_file():
        return str(beside)
    found = shutil.which("radar")
    return str(Path(found).absolute()) if found else "radar"


def is_ours(command: object, harness: str) -> bool:
    """Whether a hook command runs ``radar hook HARNESS`` (from any install of radar)."""
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        return False
    return len(words) >= 3 and Path(words[0]).name == "radar" and words[1:3] == ["hook", harness]


def installed(spec: HarnessSpec, data: dict[str, Any] | None) -> dict[str, str]:
    """Our command per event of ``data`` (the first one when there are several)."""
    hooks = (data or {}).get("hooks")
    found: dict[str, str] = {}
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        for entry in entries if isinstance(entries, list) else ():
            for handler in spec.handlers(entry):
                if spec.owns(handler):
                    found.setdefault(event, handler["command"])
    return found


def read_settings(path: Path) -> dict[str, Any] | None:
    """The settings object, ``None`` when there is no file; :class:`InstallError` if malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path}: cannot read it ({exc})") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path}: not valid JSON ({exc}); nothing was written") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: not a JSON object; nothing was written")
    return data


def scope_root(scope: str, path: str) -> Path:
    """The folder the harness's settings folder sits in: the worktree's top, or ``$HOME``."""
    if scope == "user":
        return Path.home()
    from proximity.agent.worktree import find_worktree

    return find_worktree(Path(path).absolute()).top
