"""Where the agent side reads its settings: flags, environment, the user's config, the repository.

The policy lives in the repository (``.radar.toml`` at the worktree root, committed), so every
agent working on it follows the same rules. Where the token goes is the person's choice, never
the repository's: the server and the token file come from flags (written by ``radar hooks
install``), ``RADAR_*`` variables or the user's own config (``$XDG_CONFIG_HOME/radar/config.toml``).
A repository may name a server only when that config allows its host (``allowed_servers``);
a ``token_file`` in a repository is ignored, and each ignored setting is one note (hook log,
doctor). A token is read from a file or a variable, never required on a command line where
``ps`` would show it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = [
    "ConfigError",
    "Policy",
    "RadarConfig",
    "UserSettings",
    "as_caller",
    "load_config",
    "server_allowed",
    "user_config_path",
]

CONFIG_FILE = ".radar.toml"
USER_CONFIG = "radar/config.toml"
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/@+-]{0,199}")
_RESOLUTION = ("deny", "ask", "warn", "off")
_DRIFT = ("deny", "ask", "warn", "off")
_TRAFFIC = ("context", "off")
_ON_ERROR = ("open", "closed")


# The environment and working folder of the process a hook answers for, when that is not this
# process (the daemon answers many callers at once, on threads: nothing process-wide changes).
_CALLER: ContextVar[tuple[Mapping[str, str], str] | None] = ContextVar("radar_caller", default=None)


@contextlib.contextmanager
def as_caller(environ: Mapping[str, str], cwd: str) -> Iterator[None]:
    """Read ``RADAR_*`` settings from ``environ`` and relative files from ``cwd`` meanwhile."""
    token = _CALLER.set((environ, cwd))
    try:
        yield
    finally:
        _CALLER.reset(token)


class ConfigError(ValueError):
    """A setting is malformed; the message names it."""


@dataclass(frozen=True, slots=True)
class Policy:
    """What a hook does with an advisory (docs/AGENTS.md, "Decision policy")."""

    resolution: str = "deny"
    traffic: str = "context"
    on_error: str = "open"
    declare_tasks: bool = False
    timeout_seconds: float = 3.0
    ack_ttl_minutes: float = 240.0
    drift: str = "deny"
    """Planned lines the mainline changed since the branch's base (docs/AGENTS.md)."""


# The engine's DEFAULT_PROFILE, spelled out: loading a configuration imports no engine code
# (tests/agent/test_symbols_everywhere.py holds the two equal).
DEFAULT_PROFILE = "radar-v1-symbols"


@dataclass(frozen=True, slots=True)
class RadarConfig:
    server: str | None = None
    token: str | None = field(default=None, repr=False)
    repository: str | None = None
    base: str = "main"
    profile: str = DEFAULT_PROFILE
    policy: Policy = field(default_factory=Policy)
    source: str | None = None
    ignore: tuple[str, ...] = ()
    """``[radar] ignore``: globs of paths that are nobody's work (radar's own files always are)."""
    notes: tuple[str, ...] = ()
    """Settings the repository tried to choose and was not allowed to (one line each)."""
    parked_hours: float | None = None
    """``[radar] parked_hours``: the profile's parked time replaced (0: never parked); a
    repository whose finished worktrees are removed may keep idle branches holding longer."""

    @property
    def remote(self) -> bool:
        return bool(self.server and self.token and self.repository)


def _choice(table: Mapping[str, Any], key: str, options: tuple[str, ...], default: str) -> str:
    value = table.get(key, default)
    if value not in options:
        raise ConfigError(f"policy.{key}: must be one of {', '.join(options)} (got {value!r})")
    return str(value)


def _number(table: Mapping[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"policy.{key}: must be a positive number (got {value!r})")
    return float(value)


def _policy(table: Mapping[str, Any]) -> Policy:
    if not isinstance(table.get("declare_tasks", False), bool):
        raise ConfigError("policy.declare_tasks: must be true or false")
    return Policy(
        resolution=_choice(table, "resolution", _RESOLUTION, "deny"),
        traffic=_choice(table, "traffic", _TRAFFIC, "context"),
        on_error=_choice(table, "on_error", _ON_ERROR, "open"),
        declare_tasks=bool(table.get("declare_tasks", False)),
        timeout_seconds=_number(table, "timeout_seconds", 3.0),
        ack_ttl_minutes=_number(table, "ack_ttl_minutes", 240.0),
        drift=_choice(table, "drift", _DRIFT, "deny"),
    )


def _parked_hours(radar: Mapping[str, Any]) -> float | None:
    from proximity.sources.radar_files import parked_hours

    try:
        return parked_hours(radar)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _ignore(radar: Mapping[str, Any]) -> tuple[str, ...]:
    from proximity.sources.radar_files import ignore_globs

    try:
        return ignore_globs(radar)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def read_token(
    token_file: str | None,
    fallback: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> str | None:
    """The token from ``token_file``, else ``RADAR_TOKEN``, else ``RADAR_TOKEN_FILE``, else the
    user's config's ``fallback`` file (never a file a repository named).

    ``environ`` and ``cwd`` are the caller's (the daemon answers for another process); a
    relative file is read from ``cwd``.
    """
    env = os.environ if environ is None else environ
    path = token_file or None
    if path is None and env.get("RADAR_TOKEN"):
        return env["RADAR_TOKEN"].strip()
    path = path or env.get("RADAR_TOKEN_FILE") or fallback
    if not path:
        return None
    try:
        where = Path(cwd or ".", Path(path).expanduser())
        return where.read_text(encoding="utf-8").strip() or None
    except OSError as exc:
        raise ConfigError(f"token file {path}: {exc.strerror or exc}") from None


def _toml(path: Path) -> dict[str, Any]:
    from proximity.sources.radar_files import read_radar_toml

    try:
        return read_radar_toml(path)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/radar/config.toml`` (default ``~/.config/radar/config.toml``)."""
    env = (_CALLER.get() or (os.environ, None))[0]
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / USER_CONFIG


@dataclass(frozen=True, slots=True)
class UserSettings:
    """The ``[radar]`` table of the user's own config: the settings a repository may not choose."""

    server: str | None = None
    token_file: str | None = None
    repository: str | None = None
    allowed_servers: frozenset[str] = frozenset()
    path: Path | None = None


def _user_settings() -> UserSettings:
    path = user_config_path()
    data = _toml(path)
    if not data:
        return UserSettings(path=path)
    table = data.get("radar", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [radar] must be a table")
    for key in ("server", "token_file", "repository"):
        if not isinstance(table.get(key, ""), str):
            raise ConfigError(f"{path}: radar.{key}: must be a string")
    allowed = table.get("allowed_servers", [])
    if not isinstance(allowed, list) or not all(isinstance(h, str) and h for h in allowed):
        raise ConfigError(f"{path}: radar.allowed_servers: must be a list of host[:port] strings")
    return UserSettings(
        server=table.get("server") or None,
        token_file=table.get("token_file") or None,
        repository=table.get("repository") or None,
        allowed_servers=frozenset(h.strip().lower() for h in allowed),
        path=path,
    )


def server_allowed(url: str, allowed: frozenset[str]) -> bool:
    """Is the host ``url`` connects to listed (``host``: any port; ``host:port``: that one)?"""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return False
    if parts.scheme not in {"http", "https"} or not host:
        return False
    port = port or (443 if parts.scheme == "https" else 80)
    return host in allowed or f"{host}:{port}" in allowed


def _base(value: object) -> str:
    # Handed to git as a revision: an option ("--output=...") or a range is refused.
    text = str(value)
    if not _REF.fullmatch(text) or text.startswith("-") or ".." in text:
        raise ConfigError(f"radar.base: not a branch name (got {text[:200]!r})")
    return text


def _repository_server(
    radar: Mapping[str, Any], user: UserSettings, notes: list[str]
) -> str | None:
    """The server the repository names, when the user's config allows its host."""
    named = radar.get("server")
    if radar.get("token_file"):
        notes.append(
            f"{CONFIG_FILE}: token_file ignored (a repository never chooses the token: "
            f"--token-file, RADAR_TOKEN_FILE or {user.path})"
        )
    if not named:
        return None
    if isinstance(named, str) and server_allowed(named, user.allowed_servers):
        return named
    notes.append(
        f"{CONFIG_FILE}: server {str(named)[:120]!r} ignored: its host is not in "
        f"allowed_servers of {user.path}"
    )
    return None


def load_config(
    root: str | Path | None,
    *,
    server: str | None = None,
    token_file: str | None = None,
    repository: str | None = None,
) -> RadarConfig:
    """Settings for the worktree at ``root`` (``None``: flags, environment and user config), with
    the environment and folder of the caller (:func:`as_caller`; by default this process's)."""
    env, cwd = _CALLER.get() or (os.environ, None)
    data = _toml(Path(root) / CONFIG_FILE) if root is not None else {}
    radar = data.get("radar", {})
    policy_table = data.get("policy", {})
    if not isinstance(radar, dict) or not isinstance(policy_table, dict):
        raise ConfigError(f"{CONFIG_FILE}: [radar] and [policy] must be tables")
    user = _user_settings()
    notes: list[str] = []
    chosen = _repository_server(radar, user, notes)
    from proximity.sources.git.mainline import default_mainline  # git only when base is unset

    config = RadarConfig(
        server=(server or env.get("RADAR_SERVER") or chosen or user.server or None),
        repository=(
            repository or env.get("RADAR_REPOSITORY") or radar.get("repository") or user.repository
        ),
        # unset: the repository's own mainline, not a "main" it may lack (every read failing)
        base=_base(radar["base"]) if "base" in radar else default_mainline(root),
        profile=str(radar.get("profile", DEFAULT_PROFILE)),
        parked_hours=_parked_hours(radar),
        policy=_policy(policy_table),
        ignore=_ignore(radar),
        source=str(Path(root) / CONFIG_FILE) if data and root is not None else None,
        notes=tuple(notes),
    )
    token = read_token(token_file, fallback=user.token_file, environ=env, cwd=cwd)
    return replace(config, token=token)
