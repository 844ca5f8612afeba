"""Read each harness's hook JSON into one shape: which event, where, and what is about to change.

The payload formats are the harnesses' documented ones (fixtures in tests/agent/payloads/):
Claude Code and Codex send ``hook_event_name``, ``cwd``, ``tool_name`` and ``tool_input``;
Gemini CLI the same keys with its own event and tool names; Cursor ``hook_event_name`` in
camelCase with ``workspace_roots``. Paths are resolved against the payload's ``cwd`` (never an
environment variable that stays at the session's start directory).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proximity.agent import HARNESSES
from proximity.agent.edits import (
    PlannedEdit,
    parse_apply_patch,
    patch_edit,
    planned_replacement,
    shell_writes,
)

__all__ = ["HARNESSES", "HookEvent", "PayloadError", "parse_payload"]


PRE, POST, SESSION, PROMPT, OTHER = "pre_edit", "post_edit", "session_start", "prompt", "other"
_EVENTS = {
    "PreToolUse": PRE,
    "BeforeTool": PRE,
    "preToolUse": PRE,
    "beforeShellExecution": PRE,
    "PostToolUse": POST,
    "PostToolBatch": POST,
    "AfterTool": POST,
    "postToolUse": POST,
    "afterFileEdit": POST,
    "afterShellExecution": POST,
    "SessionStart": SESSION,
    "sessionStart": SESSION,
    "UserPromptSubmit": PROMPT,
    "BeforeAgent": PROMPT,
    "beforeSubmitPrompt": PROMPT,
}
_SHELL_TOOLS = frozenset(
    {
        "Bash",
        "bash",
        "shell",
        "exec_command",
        "shell_command",
        "local_shell",
        "run_shell_command",
        "Shell",
        "run_terminal_cmd",
    }
)


class PayloadError(ValueError):
    """The stdin is not a hook payload this adapter understands."""


@dataclass(frozen=True, slots=True)
class HookEvent:
    harness: str
    event: str  # pre_edit | post_edit | session_start | prompt | other
    event_name: str
    cwd: str
    tool: str = ""
    edits: tuple[PlannedEdit, ...] = ()
    unread: tuple[str, ...] = ()
    prompt: str = ""
    session_id: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    roots: tuple[str, ...] = ()
    """The session's own folders besides ``cwd`` (Cursor's workspace roots)."""

    @property
    def anchor(self) -> str:
        """A path inside the worktree this event is about: the first edit's, else ``cwd``."""
        return self.edits[0].path if self.edits else self.cwd

    @property
    def home(self) -> str:
        """The session's own folder, whose worktree is the asking agent: the workspace root
        holding the first edit (Cursor), else ``cwd``; never the edited file's own worktree."""
        if self.edits:
            target = Path(self.edits[0].path)
            for root in self.roots:
                if target.is_relative_to(root):
                    return root
        return self.cwd


def _abs(cwd: str, path: object) -> str:
    if not isinstance(path, str) or not path:
        raise PayloadError("tool_input: no file path")
    return str(Path(cwd, path)) if not Path(path).is_absolute() else path


def _command_text(value: object) -> str:
    if isinstance(value, list):
        words = [str(w) for w in value]
        if (
            len(words) >= 3
            and Path(words[0]).name in {"bash", "sh", "zsh"}
            and words[1] in {"-c", "-lc"}
        ):
            return words[2]
        return " ".join(words)
    return value if isinstance(value, str) else ""


def _text(value: object) -> str | None:
    """A replacement's new text; ``None`` (not narrowed) when the payload has none."""
    return value if isinstance(value, str) else None


def _edits(tool: str, data: Mapping[str, Any], cwd: str) -> tuple[list[PlannedEdit], list[str]]:
    """Planned edits of one tool call (empty for a tool that writes nothing)."""
    name = tool.removeprefix("functions.")
    if name in {"Edit", "replace", "edit_file", "search_replace", "StrReplace"}:
        path = _abs(cwd, data.get("file_path") or data.get("path") or data.get("target_file"))
        old = data.get("old_string", data.get("old_str", ""))
        new = data.get("new_string", data.get("new_str"))
        replace_all = (
            bool(data.get("replace_all")) or int(data.get("expected_replacements") or 1) > 1
        )
        return [planned_replacement(path, [(str(old or ""), replace_all, _text(new))])], []
    if name == "MultiEdit":
        path = _abs(cwd, data.get("file_path"))
        pairs = [
            (str(e.get("old_string") or ""), bool(e.get("replace_all")), _text(e.get("new_string")))
            for e in data.get("edits") or ()
            if isinstance(e, Mapping)
        ]
        return [planned_replacement(path, pairs)], []
    if name in {"Write", "write_file", "create_file"}:
        path = _abs(cwd, data.get("file_path") or data.get("path") or data.get("target_file"))
        kind = "edit" if Path(path).exists() else "create"
        return [PlannedEdit(path, None, kind, content=_text(data.get("content")))], []
    if name == "NotebookEdit":
        return [PlannedEdit(_abs(cwd, data.get("notebook_path")), None, "edit")], []
    if name in {"Delete", "delete_file"}:
        return [
            PlannedEdit(_abs(cwd, data.get("file_path") or data.get("path")), None, "delete")
        ], []
    if name == "apply_patch":
        patch = _command_text(data.get("command") or data.get("input") or data.get("patch"))
        files = parse_apply_patch(patch)
        if not files:
            raise PayloadError("apply_patch: no *** Update/Add/Delete File header")
        return [e for f in files for e in patch_edit(cwd, f)], []
    if name in _SHELL_TOOLS:
        command = _command_text(data.get("command"))
        folder = data.get("directory") or data.get("workdir") or data.get("cwd")
        return shell_writes(command, _abs(cwd, folder) if folder else cwd)
    return [], []


# Cursor (https://cursor.com/docs/hooks.md): preToolUse names the tool *type* (file edits arrive as
# "Write", which is also what Claude-compatible mode maps Claude's Edit to; Delete; Shell with
# tool_input.working_directory); beforeShellExecution and afterFileEdit carry their fields at the
# top level. Names of the edit tool's own arguments are not documented, so both spellings seen in
# the field are read.
_CURSOR_FILE_TOOLS = frozenset(
    {"Write", "StrReplace", "Edit", "MultiEdit", "Delete", "edit_file", "search_replace"}
)


def _cursor_cwd(payload: Mapping[str, Any]) -> str:
    """The payload's ``cwd``, else its first workspace root.

    ``sessionStart`` and ``afterFileEdit`` send no ``cwd``, and ``beforeShellExecution`` may send
    an empty one; a multi-root workspace lists several roots, so the paths of an edit (which are
    absolute) still decide the worktree (:attr:`HookEvent.anchor`).
    """
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and Path(cwd).is_absolute():
        return cwd
    roots = [r for r in payload.get("workspace_roots") or () if isinstance(r, str)]
    return next((r for r in roots if Path(r).is_absolute()), "")


def _roots(payload: Mapping[str, Any]) -> tuple[str, ...]:
    roots = payload.get("workspace_roots") or ()
    return tuple(r for r in roots if isinstance(r, str) and Path(r).is_absolute())


def _cursor_object(value: object) -> Mapping[str, Any]:
    """``tool_input`` as an object (MCP tools send it as a JSON string)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, Mapping) else {}


def _cursor_edit(tool: str, data: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """One of our tool shapes for a Cursor file tool: a replacement, several, or a whole file."""
    path = data.get("file_path") or data.get("path") or data.get("target_file")
    if tool == "Delete":
        return "Delete", {"file_path": path}
    if isinstance(data.get("edits"), list):
        return "MultiEdit", {"file_path": path, "edits": data["edits"]}
    old = data.get("old_string", data.get("old_str"))
    if old is None:
        return "Write", {"file_path": path}
    return "Edit", {"file_path": path, "old_string": old, "replace_all": data.get("replace_all")}


def _cursor(payload: Mapping[str, Any]) -> tuple[str, str, Mapping[str, Any]]:
    """``(cwd, tool, tool input)`` of a Cursor payload, in the shapes :func:`_edits` reads."""
    name = payload.get("hook_event_name")
    tool = str(payload.get("tool_name") or "")
    data = _cursor_object(payload.get("tool_input"))
    if name in {"beforeShellExecution", "afterShellExecution"}:
        tool, data = "Shell", {"command": payload.get("command") or "", "cwd": payload.get("cwd")}
    elif name == "afterFileEdit":
        tool, data = "Write", {"file_path": payload.get("file_path")}
    elif tool == "Shell":
        data = {"command": data.get("command") or "", "cwd": data.get("working_directory")}
    elif tool in _CURSOR_FILE_TOOLS:
        tool, data = _cursor_edit(tool, data)
    return _cursor_cwd(payload), tool, data


def parse_payload(harness: str, payload: object) -> HookEvent:
    """One :class:`HookEvent`; raises :class:`PayloadError` on anything malformed."""
    if harness not in HARNESSES:
        raise PayloadError(f"unknown harness {harness!r}")
    if not isinstance(payload, Mapping):
        raise PayloadError("stdin is not a JSON object")
    name = str(payload.get("hook_event_name") or "")
    event = _EVENTS.get(name, OTHER)
    if harness == "cursor":
        cwd, tool, data = _cursor(payload)
    else:
        cwd, tool = str(payload.get("cwd") or ""), str(payload.get("tool_name") or "")
        data = payload.get("tool_input") or {}
    if not cwd or not Path(cwd).is_absolute():
        raise PayloadError("cwd: missing or not absolute")
    if not isinstance(data, Mapping):
        raise PayloadError("tool_input: not an object")
    edits, unread = _edits(tool, data, cwd) if event in {PRE, POST} else ([], [])
    if name == "PostToolBatch":
        for call in payload.get("tool_calls") or payload.get("tools") or ():
            if isinstance(call, Mapping) and isinstance(call.get("tool_input"), Mapping):
                more, _ = _edits(str(call.get("tool_name") or ""), call["tool_input"], cwd)
                edits += more
    return HookEvent(
        harness=harness,
        event=event,
        event_name=name,
        cwd=cwd,
        tool=tool,
        edits=tuple(edits),
        unread=tuple(unread),
        prompt=str(payload.get("prompt") or ""),
        session_id=str(payload.get("session_id") or payload.get("conversation_id") or ""),
        raw=payload,
        roots=_roots(payload) if harness == "cursor" else (),
    )
