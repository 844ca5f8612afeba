"""Where the agent side reads its settings: the repository's ``.radar.toml``, flags, environment.

The policy lives in the repository (``.radar.toml`` at the worktree root, committed), so every
agent working on it follows the same rules; the server address and the token are per machine
(flags written by ``radar hooks install``, or ``RADAR_*`` variables). A token is read from a
file or a variable, never required on a command line where ``ps`` would show it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["ConfigError", "Policy", "RadarConfig", "as_caller", "load_config"]

CONFIG_FILE = ".radar.toml"
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


@dataclass(frozen=True, slots=True)
class RadarConfig:
    server: str | None = None
    token: str | None = field(default=None, repr=False)
    repository: str | None = None
    base: str = "main"
    profile: str = "radar-v1"
    policy: Policy = field(default_factory=Policy)
    source: str | None = None

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


def read_token(
    token_file: str | None, *, environ: Mapping[str, str] | None = None, cwd: str | None = None
) -> str | None:
    """The token from ``token_file``, else ``RADAR_TOKEN``, else ``RADAR_TOKEN_FILE``.

    ``environ`` and ``cwd`` are the caller's (the daemon answers for another process); a
    relative file is read from ``cwd``.
    """
    env = os.environ if environ is None else environ
    path = token_file or None
    if path is None and env.get("RADAR_TOKEN"):
        return env["RADAR_TOKEN"].strip()
    path = path or env.get("RADAR_TOKEN_FILE")
    if not path:
        return None
    try:
        where = Path(cwd or ".", Path(path).expanduser())
        return where.read_text(encoding="utf-8").strip() or None
    except OSError as exc:
        raise ConfigError(f"token file {path}: {exc.strerror or exc}") from None


def _file(root: Path) -> dict[str, Any]:
    import tomllib  # only when a repository has a config file

    path = root / CONFIG_FILE
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_config(
    root: str | Path | None,
    *,
    server: str | None = None,
    token_file: str | None = None,
    repository: str | None = None,
) -> RadarConfig:
    """Settings for the worktree at ``root`` (``None``: flags and environment only), with the
    environment and folder of the caller (:func:`as_caller`; by default this process's)."""
    env, cwd = _CALLER.get() or (os.environ, None)
    data = _file(Path(root)) if root is not None else {}
    radar = data.get("radar", {})
    policy_table = data.get("policy", {})
    if not isinstance(radar, dict) or not isinstance(policy_table, dict):
        raise ConfigError(f"{CONFIG_FILE}: [radar] and [policy] must be tables")
    config = RadarConfig(
        server=(server or env.get("RADAR_SERVER") or radar.get("server") or None),
        repository=(repository or env.get("RADAR_REPOSITORY") or radar.get("repository")),
        base=str(radar.get("base", "main")),
        profile=str(radar.get("profile", "radar-v1")),
        policy=_policy(policy_table),
        source=str(Path(root) / CONFIG_FILE) if data and root is not None else None,
    )
    token = read_token(token_file or radar.get("token_file"), environ=env, cwd=cwd)
    return replace(config, token=token)
