"""Codex CLI's two trusts, read and (for hooks) recorded the way its ``/hooks`` review does.

Codex 0.169 runs a project hook only when (1) the project is trusted (``[projects."<folder>"]
trust_level = "trusted"`` in ``$CODEX_HOME/config.toml``, which ``codex exec --trust`` or the
first-run dialog writes; for a linked worktree the main checkout or the worktree will do) and
(2) every hook, project or user, is trusted by hash: ``[hooks.state."<hooks.json path>:<event>:
<group>:<handler>"] trusted_hash = "sha256:..."``, which ``/hooks`` writes when the person
approves it. Without (2) the hook is skipped silently unless ``--dangerously-bypass-hook-trust``.

The hash is Codex's own: SHA-256 of the compact, key-sorted JSON of the hook's normalized
identity (``event_name``, the group's ``matcher`` when it has one, and the one handler with
``type``, ``command``, ``timeout`` (default 600) and ``async``). tests/harness/ checks it
against the real program: a hook trusted here runs there without any bypass.

Only the person's own ``config.toml`` is written, only ``[hooks.state]`` tables of our own
hooks are added or changed, the result must parse before it replaces the file, and a file whose
shape we do not recognise is left alone with one line saying what to do instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proximity.agent.harness_places import codex_home
from proximity.agent.harness_settings import SPECS, InstallError

__all__ = ["HookTrust", "hook_trust", "project_trusted", "record_trust"]

_LABELS = {
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "PermissionRequest": "permission_request",
}


@dataclass(frozen=True, slots=True)
class HookTrust:
    """One of our hooks in a Codex hooks file: its trust key, hash and status."""

    key: str
    event: str
    current_hash: str
    status: str  # trusted | untrusted | modified | disabled


def config_path() -> Path:
    return codex_home() / "config.toml"


def _config() -> dict[str, Any]:
    try:
        with config_path().open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def identity_hash(event: str, matcher: str | None, handler: Mapping[str, Any]) -> str:
    """Codex's trust hash of one command handler of one matcher group."""
    normalized = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, int(handler.get("timeout") or handler.get("timeoutSec") or 600)),
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _LABELS.get(event, event), "hooks": [normalized]}
    if matcher is not None and event not in {"UserPromptSubmit", "Stop"}:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _ours(hooks_file: Path, data: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(key, event, current hash)`` of each of our handlers in a Codex hooks file."""
    spec = SPECS["codex"]
    out = []
    hooks = data.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            for h, handler in enumerate(spec.handlers(group)):
                if spec.owns(handler):
                    key = f"{hooks_file}:{_LABELS.get(event, event)}:{g}:{h}"
                    matcher = group.get("matcher") if isinstance(group, dict) else None
                    out.append((key, event, identity_hash(event, matcher, handler)))
    return out


def hook_trust(hooks_file: Path, data: Mapping[str, Any]) -> list[HookTrust]:
    """Our hooks in ``hooks_file`` and whether Codex will run them (by its own rule)."""
    hooks = _config().get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    states = states if isinstance(states, dict) else {}
    out = []
    for key, event, current in _ours(hooks_file, data):
        found = states.get(key)
        state: dict[str, Any] = found if isinstance(found, dict) else {}
        trusted = state.get("trusted_hash")
        if state.get("enabled") is False:
            status = "disabled"
        elif trusted == current:
            status = "trusted"
        else:
            status = "modified" if trusted else "untrusted"
        out.append(HookTrust(key, event, current, status))
    return out


def project_trusted(*folders: Path) -> bool | None:
    """Whether Codex trusts a project at one of ``folders``: ``None`` when nothing is recorded."""
    projects = _config().get("projects")
    projects = projects if isinstance(projects, dict) else {}
    levels = []
    for folder in folders:
        for name in {str(folder), str(folder.resolve())}:
            entry = projects.get(name)
            if isinstance(entry, dict) and isinstance(entry.get("trust_level"), str):
                levels.append(entry["trust_level"])
    if "untrusted" in levels:
        return False  # an explicit refusal wins, as in Codex
    return True if "trusted" in levels else None


def _header(key: str) -> str:
    return f"[hooks.state.{json.dumps(key, ensure_ascii=False)}]"


def _keeping(line: str) -> Callable[[re.Match[str]], str]:
    """A substitution that keeps a table's other keys and replaces its ``trusted_hash``."""
    return lambda match: match.group(1) + line


def record_trust(hooks_file: Path, data: Mapping[str, Any]) -> list[str]:
    """Record our hooks in ``hooks_file`` as trusted; returns the keys newly trusted.

    Raises :class:`InstallError` (nothing written) when ``config.toml`` does not parse or a
    state of ours is written in a shape other than the one this function writes.
    """
    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise InstallError(f"{path}: cannot read it ({exc})") from None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path}: not valid TOML ({exc}); no hook trust recorded") from None
    changed = []
    for item in hook_trust(hooks_file, data):
        if item.status in {"trusted", "disabled"}:
            continue  # a hook the person disabled stays disabled
        line = f"trusted_hash = {json.dumps(item.current_hash)}"
        header = _header(item.key)
        if header in text.splitlines():
            pattern = re.compile(
                rf"^({re.escape(header)}\n(?:(?!\[).*\n)*?)trusted_hash = .*$", re.MULTILINE
            )
            text, n = pattern.subn(_keeping(line), text, count=1)
            if not n:
                text = text.replace(header, f"{header}\n{line}", 1)
        else:
            text = text + ("" if not text or text.endswith("\n") else "\n")
            text += f"\n{header}\n{line}\n"
        changed.append(item.key)
    if not changed:
        return []
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        parsed = {}
    states = (parsed.get("hooks") or {}).get("state") or {}
    if any(states.get(key, {}).get("trusted_hash") is None for key in changed):
        raise InstallError(
            f"{path}: its [hooks.state] is written in a form radar does not edit; "
            "trust the hooks in Codex's /hooks instead"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.radar-{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        if path.exists():
            tmp.chmod(path.stat().st_mode & 0o777)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return changed
