"""``radar hooks install|uninstall``: our entries in each harness's own settings file.

Install merges into the file the harness reads and never replaces it: other hooks and settings
stay as they were, a second install changes nothing, a file about to change is backed up first
and replaced atomically, and a file that does not parse is left alone. Our entries are those
whose command runs ``radar hook HARNESS``, so uninstall removes exactly them. Where each file is
and how it reads is :mod:`proximity.agent.harness_settings`; ``doctor`` is
:mod:`proximity.agent.doctor`. Standard library only (plus :mod:`proximity.agent`).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proximity.agent.doctor import doctor, harness_checks
from proximity.agent.harness_places import Place, place
from proximity.agent.harness_settings import (
    SPECS,
    HarnessSpec,
    InstallError,
    is_ours,
    radar_executable,
    read_settings,
)
from proximity.agent.harness_trust import after_install

__all__ = [
    "SPECS",  # re-exported: the specs and the error are part of this module's interface
    "Change",
    "HarnessSpec",
    "InstallError",
    "hooks_command",
    "install",
    "is_ours",
    "uninstall",
]


def hook_command(harness: str, flags: Mapping[str, str | None]) -> str:
    """``<radar> hook HARNESS`` plus the server flags given (a token file, never a token)."""
    words = [radar_executable(), "hook", harness]
    for key in ("server", "token_file", "repository"):
        if flags.get(key):
            words += ["--" + key.replace("_", "-"), str(flags[key])]
    return shlex.join(words)


def _without_ours(spec: HarnessSpec, entry: Any) -> Any:
    """``entry`` with our handlers taken out; ``None`` when nothing of it is left."""
    handlers = spec.handlers(entry)
    kept = [h for h in handlers if not spec.owns(h)]
    if len(kept) == len(handlers):
        return entry
    return None if spec.flat or not kept else {**entry, "hooks": kept}


def _placed(spec: HarnessSpec, entries: list[Any], wanted: dict[str, object]) -> list[Any]:
    """``entries`` with ours replaced in place by ``wanted`` (appended when absent).

    In place rather than removed and appended, so a second install is a no-op even when the
    person has added hooks of their own after ours.
    """
    out: list[Any] = []
    for entry in entries:
        kept = _without_ours(spec, entry)
        if kept is not None or wanted not in out:
            out.append(wanted if kept is None else kept)
    return out if wanted in out else [*out, wanted]


def _strip_event(spec: HarnessSpec, hooks: dict[str, Any], event: str) -> int:
    """Take our handlers out of ``hooks[event]``; returns how many there were.

    An event that only our entries filled goes with them; one already empty stays.
    """
    entries = hooks.get(event)
    if not isinstance(entries, list):
        return 0  # absent, or e.g. Gemini CLI's "hooks.disabled" names, not an event
    ours = sum(spec.owns(h) for e in entries for h in spec.handlers(e))
    kept = [k for k in (_without_ours(spec, e) for e in entries) if k is not None]
    if ours and kept:
        hooks[event] = kept
    elif ours:
        del hooks[event]
    return ours


def _table(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f'{path}: "hooks" is not a JSON object; nothing was written')
    return hooks


def merged(spec: HarnessSpec, data: dict[str, Any], command: str, path: Path) -> dict[str, Any]:
    """``data`` with our entry in each event of ``spec`` and none left in a retired event."""
    out = {**{k: v for k, v in spec.top.items() if k not in data}, **copy.deepcopy(data)}
    hooks = _table(out, path)
    for event in spec.retired:
        _strip_event(spec, hooks, event)
    for event, matcher in spec.events:
        entries = hooks.get(event, [])
        if not isinstance(entries, list):
            raise InstallError(f'{path}: "hooks.{event}" is not a list; nothing was written')
        hooks[event] = _placed(spec, entries, spec.entry(command, matcher))
    out["hooks"] = hooks
    return out


def stripped(spec: HarnessSpec, data: dict[str, Any], path: Path) -> tuple[dict[str, Any], int]:
    """``data`` without our handlers in any event (retired ones too), and how many there were."""
    out = copy.deepcopy(data)
    hooks = _table(out, path)
    removed = sum(_strip_event(spec, hooks, event) for event in list(hooks))
    if removed and not hooks:
        out.pop("hooks", None)
    return out, removed


def _backup(path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target, n = path.with_name(f"{path.name}.radar-backup-{stamp}"), 1
    while target.exists():
        target, n = path.with_name(f"{path.name}.radar-backup-{stamp}-{n}"), n + 1
    shutil.copy2(path, target)
    return target


def _write(path: Path, data: dict[str, Any] | None) -> Path | None:
    """Back ``path`` up if it exists, then replace it atomically (``None``: delete it).

    The text goes to a temporary file beside it that is renamed over it, so a harness reading
    its settings meanwhile sees the old file or the new one, never a mix; of two installs
    racing, the last rename wins and both results are valid. A symlinked file (dotfiles) is
    written through the link, which stays.
    """
    path = path.resolve() if path.is_symlink() else path
    backup = _backup(path) if path.exists() else None
    if data is None:
        path.unlink(missing_ok=True)
        return backup
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.radar-{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if backup is not None:
            shutil.copymode(backup, tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return backup


@dataclass(frozen=True, slots=True)
class Change:
    """What an install or uninstall did to one settings file (``backup``: the copy kept)."""

    path: Path
    changed: bool
    backup: Path | None = None
    removed: int = 0


def install(spec: HarnessSpec, path: Path, command: str) -> Change:
    """Our entries merged into the settings file at ``path`` (see :mod:`harness_places`)."""
    before = read_settings(path)
    after = merged(spec, before or {}, command, path)
    return Change(path, True, _write(path, after)) if after != before else Change(path, False)


def uninstall(spec: HarnessSpec, path: Path) -> Change:
    before = read_settings(path)
    after, removed = stripped(spec, before, path) if before is not None else ({}, 0)
    if not removed:
        return Change(path, False)
    only_ours = not after or after == dict(spec.top)  # the file held nothing but our entries
    gone = only_ours and not path.is_symlink()  # a linked file (dotfiles) stays, emptied
    return Change(path, True, _write(path, None if gone else after), removed)


def _flags(args: argparse.Namespace) -> dict[str, str | None]:
    token = str(Path(args.token_file).expanduser().absolute()) if args.token_file else None
    if token and not (Path(token).is_file() and os.access(token, os.R_OK)):
        raise InstallError(f"--token-file {token}: not a readable file; nothing was written")
    return {"server": args.server, "token_file": token, "repository": args.repository}


def _install(spec: HarnessSpec, args: argparse.Namespace) -> int:
    http = getattr(args, "http", False)
    if http:
        from proximity.agent import http_hook

        http_hook.check_http(spec, args.scope)
    command = hook_command(spec.harness, _flags(args))
    where = _place(spec, args)
    change = install(spec, where.path, command)
    events = ", ".join(event for event, _ in spec.events)
    if change.changed:
        saved = f"; backup {change.backup}" if change.backup else ""
        print(f"installed: {change.path} ({events}){saved}")
    else:
        print(f"already installed: {change.path} ({events}); nothing changed")
    print(f"command: {command}")
    if http:
        port = getattr(args, "http_port", None) or http_hook.DEFAULT_PORT
        print(http_hook.install_http(spec, where, _flags(args), port, write=_write))
    if where.scope != "user":
        _exclude_from_git(change.path)
    for kind, text in after_install(spec, where, args.path) + harness_checks(
        spec, [where], args.path
    ):
        print(f"{kind}: {text}")
    return 0


def _exclude_from_git(written: Path) -> None:
    """List the written file (and radar's backups) in its repository's git exclude file."""
    from proximity.agent.git_exclude import exclude_written
    from proximity.sources.git._run import GitError, git_text

    try:
        root = Path(git_text(written.parent, ["rev-parse", "--show-toplevel"]).strip())
    except (GitError, OSError):
        return  # not in a git worktree (user scope, a dotfiles folder): nothing to exclude
    if (excluded := exclude_written(root, written)) is not None:
        print(f"git ignores it (and radar's backups): {excluded}")


def _place(spec: HarnessSpec, args: argparse.Namespace) -> Place:
    try:
        return place(spec, args.scope, args.path)
    except RuntimeError as exc:  # GitError: --path is not inside a git worktree
        raise InstallError(f"--path {args.path}: not inside a git worktree ({exc})") from None


def _uninstall(spec: HarnessSpec, args: argparse.Namespace) -> int:
    from proximity.agent.http_hook import uninstall_http

    path = _place(spec, args).path
    if uninstall_http(spec, path, write=_write):
        print(f"removed the HTTP hook from {path}")
    change = uninstall(spec, path)
    if not change.changed:
        print(f"nothing to remove: {change.path} holds no Overlap Radar hooks")
        return 0
    gone = "; nothing else was in it, so it is gone" if not change.path.exists() else ""
    print(
        f"removed {change.removed} Overlap Radar hook(s) from {change.path}{gone}; "
        f"backup {change.backup}"
    )
    return 0


def _scope_error(spec: HarnessSpec, scope: str) -> str | None:
    """Why ``scope`` is refused for this harness (argparse allows every harness's scopes)."""
    if scope in spec.scopes:
        return None
    able = ", ".join(f"--harness {h}" for h, other in SPECS.items() if scope in other.scopes)
    return f"--scope {scope} is only for {able}; use --scope project or --scope user"


def hooks_command(args: argparse.Namespace) -> int:
    """``radar hooks ACTION --harness H``: 0 done (doctor: healthy), 1 a problem, 2 a bad scope.

    Every problem is one line on stderr.
    """
    spec = SPECS[args.harness]
    refused = _scope_error(spec, args.scope)
    if refused:
        print(f"radar: {refused}", file=sys.stderr)
        return 2
    try:
        if args.action == "doctor":
            return doctor(spec, args)
        return _install(spec, args) if args.action == "install" else _uninstall(spec, args)
    except InstallError as exc:
        print(f"radar: {exc}", file=sys.stderr)
        return 1
