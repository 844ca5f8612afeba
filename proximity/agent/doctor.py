"""``radar hooks doctor``: is this harness going to run our hooks, and will they answer?

Reads every scope's settings file (never writes one), the server settings the hook will use,
and what the harness needs beyond its hooks file (a trust review, a feature switch, a second
copy of our hooks it would also run), then runs a session start and a harmless pre-edit
through the hook in this process. Each problem is one line; install prints the same harness
checks (:func:`harness_checks`) after it writes. Standard library only (plus
:mod:`proximity.agent`, imported when a check needs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from proximity.agent.harness_places import Place, codex_home, place
from proximity.agent.harness_settings import (
    SPECS,
    HarnessSpec,
    InstallError,
    installed,
    radar_executable,
    read_settings,
)
from proximity.agent.harness_trust import trust_checks

__all__ = ["doctor", "harness_checks"]

Lines = list[tuple[str, str]]  # (kind, text): kind is info, note, warning or problem
Places = list[Place]  # the file each scope's hooks are read from (harness_places)


def _unrunnable(scope: str, path: Path, found: Mapping[str, str]) -> Lines:
    """A command whose radar is gone (a deleted virtualenv) fails on every tool call."""
    exes = sorted({shlex.split(command)[0] for command in found.values()})
    return [
        ("problem", f"{scope}: {path}: {exe} is not an executable; reinstall")
        for exe in exes
        if not (os.access(exe, os.X_OK) or shutil.which(exe))
    ]


def _scope(spec: HarnessSpec, where: Place, out: Lines) -> list[str]:
    """Report one scope's file; returns the commands of ours it holds."""
    scope, path = where.scope, where.path
    try:
        found = installed(spec, read_settings(path))
    except InstallError as exc:
        out.append(("problem", str(exc).removesuffix("; nothing was written")))
        return []
    out.append(("info", f"{scope}: {path}: {', '.join(found) or 'no Overlap Radar hooks'}"))
    fix = f"run `radar hooks install --harness {spec.harness} --scope {scope}`"
    missing = [event for event, _ in spec.events if found and event not in found]
    if missing:
        out.append(("problem", f"{scope}: {path}: {', '.join(missing)} missing; {fix}"))
    # A retired event's hook still runs and may consume messages whose answer goes nowhere.
    for event in (event for event in spec.retired if event in found):
        out.append(
            (
                "problem",
                f"{scope}: {path}: {event} is hooked by an earlier install, "
                f"but its answer never reaches the agent; {fix}",
            )
        )
    out += _unrunnable(scope, path, found)
    return list(found.values())


def _overrides(args: argparse.Namespace, commands: list[str]) -> dict[str, str | None]:
    """The server flags given to doctor, else those the installed hook runs with."""
    given = {"server": args.server, "token_file": args.token_file, "repository": args.repository}
    if any(given.values()) or not commands:
        return given
    words = shlex.split(commands[0])
    flags = {words[k]: words[k + 1] for k in range(len(words) - 1) if words[k].startswith("--")}
    return {key: flags.get("--" + key.replace("_", "-")) for key in given}


def _server(top: Path | None, overrides: Mapping[str, str | None], out: Lines) -> None:
    """The server settings the hook will use; the token is only said to be readable or not."""
    from urllib.parse import urlsplit

    from proximity.agent.config import ConfigError, load_config

    try:
        config = load_config(top, **overrides)
    except ConfigError as exc:
        out.append(("problem", f"server settings: {exc}"))
        return
    out += [("problem", note) for note in config.notes]
    if not config.server:
        out.append(("info", "server: none; checks are answered from this machine's worktrees"))
        return
    parts = urlsplit(config.server)
    shown = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()  # no user:password
    token = "readable" if config.token else "missing (--token-file, RADAR_TOKEN, RADAR_TOKEN_FILE)"
    repository = config.repository or "missing"
    out.append(("info", f"server: {shown}; repository: {repository}; token: {token}"))
    if not config.remote:
        out.append(("problem", "server: needs its URL, a token and a repository name together"))


def _probes(harness: str, top: Path) -> list[tuple[str, dict[str, object]]]:
    """A session start and a pre-edit creating a file nobody has (hooks only look, never write)."""
    probe = str(top / ".radar-doctor-probe")
    patch = "*** Begin Patch\n*** Add File: .radar-doctor-probe\n+x\n*** End Patch\n"
    start, pre, tool, tool_input = {
        "claude": ("SessionStart", "PreToolUse", "Edit", {"file_path": probe, "old_string": ""}),
        "codex": ("SessionStart", "PreToolUse", "apply_patch", {"command": patch}),
        "gemini": ("SessionStart", "BeforeTool", "write_file", {"file_path": probe}),
        "cursor": ("sessionStart", "preToolUse", "Write", {"file_path": probe}),
    }[harness]
    base: dict[str, object] = {"session_id": "radar-doctor", "conversation_id": "radar-doctor"}
    base |= {"cwd": str(top), "workspace_roots": [str(top)], "source": "startup"}
    edit = {"hook_event_name": pre, "tool_name": tool, "tool_input": tool_input}
    return [(start, {**base, "hook_event_name": start}), (f"{pre} {tool}", {**base, **edit})]


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _round_trip(harness: str, top: Path, overrides: Mapping[str, Any], out: Lines) -> None:
    from proximity.agent.hook import run_hook
    from proximity.agent.state import state_root

    for label, payload in _probes(harness, top):
        started = time.monotonic()
        outcome = run_hook(harness, json.dumps(payload), **overrides)
        took = (time.monotonic() - started) * 1000
        shape = "valid JSON" if _parses(outcome.stdout) else "not JSON"
        shape = shape if outcome.stdout else "no output"
        out.append(("info", f"round trip {label}: {took:.0f} ms, {outcome.note}, {shape}"))
        if outcome.note == "error":
            log = state_root() / "hooks.log"
            out.append(("problem", f"round trip {label}: the hook failed open; see {log}"))
        elif shape == "not JSON":
            out.append(("problem", f"round trip {label}: the answer is not JSON"))


_NOTES = {
    "codex": "Codex runs a hook only once it is trusted by hash (install records it as /hooks "
    "does; a changed hook needs it again), project hooks only in a trusted project, and before "
    "0.124 no hooks without [features] hooks = true (codex_hooks = true on older versions) in "
    "$CODEX_HOME/config.toml, which radar leaves alone",
    "gemini": "Gemini CLI runs hooks unless hooksConfig.enabled is false (/hooks disable-all), "
    "and project settings only in a trusted folder",
    "cursor": "Cursor runs project hooks only in a trusted workspace",
}


def _toml(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _quiet(path: Path) -> dict[str, Any]:
    try:
        return read_settings(path) or {}
    except InstallError:
        return {}


def _git_ignored(path: Path) -> bool:
    from proximity.sources.git._run import GitError, git

    try:
        code, _ = git(path.parent, ["check-ignore", "-q", str(path)], ok_codes=(0, 1))
    except GitError:
        return True  # no git to ask: then there is no repository to commit the file to either
    return code == 0


def _claude_checks(where: Place, worktree: str) -> Lines:
    """The local file is per-machine only if git ignores it; Claude Code ignores only its own."""
    path = where.path
    if where.scope != "local" or not installed(SPECS["claude"], _quiet(path)) or _git_ignored(path):
        return []
    return [
        (
            "warning",
            f"{path} is not git-ignored, yet it holds this machine's radar path; "
            "add .claude/settings.local.json to .gitignore",
        )
    ]


def _codex_checks(where: Place, worktree: str) -> Lines:
    """``[features] hooks = false`` in the user's config.toml, or the project's beside its file."""
    config = (
        codex_home() / "config.toml" if where.scope == "user" else where.path.parent / "config.toml"
    )
    features = _toml(config).get("features")
    features = features if isinstance(features, dict) else {}
    off = [key for key in ("hooks", "codex_hooks") if features.get(key) is False]
    return [("problem", f"{config}: [features] {key} = false turns hooks off") for key in off]


def _cursor_checks(where: Place, worktree: str) -> Lines:
    """Cursor also runs Claude Code's hooks, from its project, local and user files alike."""
    claude = SPECS["claude"]
    scopes = ("user",) if where.scope == "user" else ("project", "local")
    paths = [place(claude, s, worktree).path for s in scopes]
    return [
        (
            "warning",
            f"{path} holds Overlap Radar's Claude Code hooks, which Cursor runs too "
            "(Settings, Agents, Third-Party Imports, on by default): each edit would be checked "
            "twice; uninstall one or turn the import off",
        )
        for path in paths
        if installed(claude, _quiet(path))
    ]


_PLACE_CHECKS: dict[str, Callable[[Place, str], Lines]] = {
    "claude": _claude_checks,
    "codex": _codex_checks,
    "cursor": _cursor_checks,
}


def harness_checks(spec: HarnessSpec, places: Places, worktree: str = ".") -> Lines:
    """What the harness needs beyond its hooks file: a note, and the problems found."""
    out: Lines = [("note", _NOTES[spec.harness])] if spec.harness in _NOTES else []
    check = _PLACE_CHECKS.get(spec.harness)
    return out + [line for where in places for line in (check(where, worktree) if check else [])]


def _places(spec: HarnessSpec, path: str, top: Path | None) -> Places:
    """Every scope the harness reads: the worktree's (when inside one), then the user's."""
    worktree = [place(spec, scope, path) for scope in spec.scopes if scope != "user"] if top else []
    return [*worktree, place(spec, "user", path)]


def _project_top(path: str) -> Path | None:
    from proximity.agent.harness_places import worktree_tops

    try:
        return worktree_tops(path)[0]
    except RuntimeError:  # GitError is a RuntimeError: --path is not inside a worktree
        return None


def _mainline(top: Path, overrides: Mapping[str, str | None], out: Lines) -> None:
    """Whether the base branch the drift check reads resolves in this clone."""
    from proximity.agent.config import ConfigError, load_config
    from proximity.sources.git._run import GitError, git_text

    try:
        config = load_config(top, **overrides)
    except ConfigError:
        return  # already reported with the server settings
    out.append(("info", _parked_line(config.parked_hours, config.profile)))
    if config.policy.drift == "off":
        out.append(("info", "mainline drift: off (policy.drift)"))
        return
    base = config.base
    try:
        commit = git_text(top, ["rev-parse", "--verify", "-q", f"{base}^{{commit}}"]).strip()
    except GitError:
        commit = ""
    if not commit:
        fix = 'set [radar] base in .radar.toml (e.g. "origin/main") or policy.drift = "off"'
        out.append(("problem", f"mainline drift: {base!r} does not resolve in this clone; {fix}"))
        return
    out.append(("info", f"mainline drift: planned lines checked against {base} ({commit[:12]})"))


def _parked_line(hours: float | None, profile: str) -> str:
    """How long an idle branch keeps right of way here, and where that comes from."""
    if hours == 0:
        return "right of way: an idle branch never yields ([radar] parked_hours = 0)"
    # docs/DECISIONS.md, "Published work waits on review"
    published = "; pushed work with nothing uncommitted never does"
    if hours is not None:
        return (
            f"right of way: an idle branch yields after {hours:g} h ([radar] parked_hours)"
            + published
        )
    from proximity.engine.airspace.profiles import PROFILES

    after = PROFILES[profile].parked_after_s if profile in PROFILES else None
    if not after:
        return f"right of way: an idle branch never yields (profile {profile})"
    return (
        f"right of way: an idle branch yields after {after / 3600:g} h (profile {profile})"
        + published
    )


def _report(out: Lines) -> int:
    """Print ``out``: problems on stderr, one line each, the rest on stdout; 1 if any."""
    for kind, text in out:
        if kind != "problem":
            print(text if kind == "info" else f"{kind}: {text}")
    problems = [text for kind, text in out if kind == "problem"]
    for text in problems:
        print(f"radar: {text}", file=sys.stderr)
    print(f"{len(problems)} problem(s)" if problems else "healthy")
    return 1 if problems else 0


def doctor(spec: HarnessSpec, args: argparse.Namespace) -> int:
    """Report every scope, the server settings and a round trip; 1 when anything is wrong."""
    out: Lines = [("info", f"radar: {radar_executable()}")]
    top = _project_top(args.path)
    places = _places(spec, args.path, top)
    commands = [c for where in places for c in _scope(spec, where, out)]
    if not commands:
        fix = f"radar hooks install --harness {spec.harness}"
        out.append(("problem", f"no Overlap Radar hooks for {spec.harness}; run `{fix}`"))
    overrides = _overrides(args, commands)
    _server(top, overrides, out)
    out += harness_checks(spec, places, args.path) + trust_checks(spec, places, args.path)
    if top is None:
        out.append(("problem", f"round trip: {args.path} is not inside a git worktree"))
    else:
        _mainline(top, overrides, out)
        _round_trip(spec.harness, top, overrides, out)
    out.append(("info", _daemon_line()))
    return _report(out)


def _daemon_line() -> str:
    from proximity.agent.daemon import daemon_status
    from proximity.agent.warm import enabled

    if not enabled():
        return "daemon: off (RADAR_DAEMON=0): every hook answers in its own process"
    status = daemon_status()
    if status is None:
        return "daemon: not running; the next hook starts it (faster answers after that)"
    return f"daemon: running, pid {status.get('pid')}, {status.get('served')} hook call(s) answered"
