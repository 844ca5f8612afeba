"""Claude Code's pre-edit hook as an HTTP call to the daemon: no process per edit.

Claude Code can post a hook's JSON to a URL (a hook of ``"type": "http"``) and reads the
response body as it reads a command hook's stdout; an error status or a refused connection is
a non-blocking error, so the edit goes ahead (our fail-open). ``radar hooks install --harness
claude --http`` points the ``PreToolUse`` hook at ``http://127.0.0.1:PORT/hook/claude`` (the
other events keep the command form: the first of them starts the daemon).

Authentication: any local process can reach 127.0.0.1, so every call must carry
``Authorization: Bearer TOKEN``, the random token in ``$RADAR_STATE_DIR/http-token`` (mode
0600, made at install). The installer writes the token literally into the settings file, so
only a per-user file may hold it: ``--scope local`` (``.claude/settings.local.json``,
git-ignored) or ``--scope user``, made mode 0600; a committed project file is refused
(docs/DECISIONS.md, "The HTTP hook's token").
"""

from __future__ import annotations

import copy
import hmac
import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from proximity.agent.harness_places import Place
from proximity.agent.harness_settings import HarnessSpec, InstallError, read_settings
from proximity.agent.state import state_root

#: Writes a settings file atomically, keeping a backup (``install._write``); ``None`` deletes it.
Writer = Callable[[Path, dict[str, Any] | None], Path | None]

__all__ = [
    "DEFAULT_PORT",
    "authorized",
    "check_http",
    "http_config",
    "install_http",
    "uninstall_http",
]

DEFAULT_PORT = 47_291
_EVENT = "PreToolUse"
_TIMEOUT_S = 10


def _token_path() -> Path:
    return state_root() / "http-token"


def _config_path() -> Path:
    return state_root() / "http.json"


def _ensure_token() -> str:
    path = _token_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path) or _replace_token(path)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_urlsafe(32))
    return _read_token(path) or ""


def _replace_token(path: Path) -> str:
    path.unlink()
    return _ensure_token()


def _read_token(path: Path) -> str | None:
    """The token, only from a file this user owns that nobody else may read."""
    try:
        info = path.stat()
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def http_config() -> tuple[int, str] | None:
    """``(port, token)`` when the HTTP hook was installed for this state folder."""
    try:
        port = json.loads(_config_path().read_text(encoding="utf-8"))["port"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    token = _read_token(_token_path())
    if not isinstance(port, int) or not 0 < port < 65536 or token is None:
        return None
    return port, token


def authorized(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries the token (compared in constant time)."""
    given = (header or "").encode()
    return hmac.compare_digest(given, f"Bearer {token}".encode())


def _ours(handler: object) -> bool:
    url = handler.get("url") if isinstance(handler, dict) else None
    return isinstance(url, str) and url.startswith("http://127.0.0.1:") and "/hook/claude" in url


def _without(spec: HarnessSpec, entries: list[Any], *, commands: bool) -> list[Any]:
    """``entries`` without our HTTP handlers (and our command ones when ``commands``)."""
    out = []
    for entry in entries:
        handlers = spec.handlers(entry)
        kept = [h for h in handlers if not (_ours(h) or (commands and spec.owns(h)))]
        if handlers and not kept:
            continue
        if isinstance(entry, dict) and kept != handlers:
            entry = {**entry, "hooks": kept}
        out.append(entry)
    return out


def check_http(spec: HarnessSpec, scope: str) -> None:
    """Refuse ``--http`` where it cannot go (before anything is written)."""
    if spec.harness != "claude":
        raise InstallError("--http is for --harness claude (the others run commands only)")
    if scope == "project":
        raise InstallError(
            "--http writes this user's token into the settings: use --scope local or "
            "--scope user, not the committed project file; nothing was written"
        )


def install_http(
    spec: HarnessSpec,
    place: Place,
    flags: dict[str, str | None],
    port: int,
    *,
    write: Writer,
) -> str:
    """Replace our ``PreToolUse`` command hook with the HTTP one in the settings file at
    ``place``; what was done, in a line. ``write``: the installer's atomic writer with backup
    (handed in, so this module does not import the installer back)."""
    check_http(spec, place.scope)
    token = _ensure_token()
    query = urlencode({k.replace("_", "-"): v for k, v in flags.items() if v})
    url = f"http://127.0.0.1:{port}/hook/claude" + (f"?{query}" if query else "")
    matcher = dict(spec.events).get(_EVENT)
    handler = {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"},
               "timeout": _TIMEOUT_S}  # fmt: skip
    path = place.path
    data = copy.deepcopy(read_settings(path) or {})
    hooks = data.setdefault("hooks", {})
    entries = hooks.get(_EVENT, [])
    if not isinstance(hooks, dict) or not isinstance(entries, list):
        raise InstallError(f'{path}: "hooks.{_EVENT}" is not a list; nothing was written')
    only = {"matcher": matcher} if matcher else {}
    hooks[_EVENT] = [*_without(spec, entries, commands=True), {**only, "hooks": [handler]}]
    write(path, data)
    path.chmod(0o600)
    _config_path().write_text(json.dumps({"port": port}), encoding="utf-8")
    return f"http: {_EVENT} posts to {url} ({path} made mode 0600: it holds the token)"


def uninstall_http(spec: HarnessSpec, path: Path, *, write: Writer) -> int:
    """Take our HTTP hooks out of the settings file at ``path``; how many there were."""
    data = read_settings(path)
    hooks = data.get("hooks") if isinstance(data, dict) else None
    entries = hooks.get(_EVENT) if isinstance(hooks, dict) else None
    if not isinstance(entries, list) or data is None or not isinstance(hooks, dict):
        return 0
    kept = _without(spec, entries, commands=False)
    removed = sum(len(spec.handlers(e)) for e in entries) - sum(len(spec.handlers(e)) for e in kept)
    if removed:
        if kept:
            hooks[_EVENT] = kept
        else:
            hooks.pop(_EVENT)
        write(path, data)
    return removed
