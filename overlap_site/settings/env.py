"""Read configuration from the environment, failing loudly on malformed values.

Every setting that comes from the environment goes through these helpers so that a typo
(a non-integer port, an unknown database scheme) stops start-up with one line naming the
variable instead of surfacing later as a confusing runtime error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = [
    "EnvironmentConfigError",
    "env_bool",
    "env_float",
    "env_int",
    "env_list",
    "env_str",
    "parse_database_url",
    "parse_redis_url",
]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class EnvironmentConfigError(Exception):
    """A malformed environment variable; the message is one line naming the variable."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name}: {problem}")
        self.name = name


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = env_str(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise EnvironmentConfigError(name, f"expected an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise EnvironmentConfigError(name, f"must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = env_str(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise EnvironmentConfigError(name, f"expected a number, got {raw!r}") from None
    if value != value or (minimum is not None and value < minimum):
        raise EnvironmentConfigError(name, f"out of range: {raw!r}")
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise EnvironmentConfigError(name, f"expected true/false, got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = env_str(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def _port(name: str, netloc_port: str | None) -> int | None:
    if not netloc_port:
        return None
    try:
        port = int(netloc_port)
    except ValueError:
        raise EnvironmentConfigError(name, f"port is not an integer: {netloc_port!r}") from None
    if not 0 < port < 65536:
        raise EnvironmentConfigError(name, f"port out of range: {port}")
    return port


def _split_port(name: str, url: str) -> tuple[Any, int | None]:
    parts = urlsplit(url)
    hostport = parts.netloc.rsplit("@", 1)[-1]
    port_text = hostport.rsplit(":", 1)[1] if ":" in hostport and "]" not in hostport[-1:] else None
    return parts, _port(name, port_text)


def parse_database_url(url: str, *, base_dir: Path, name: str = "DATABASE_URL") -> dict[str, Any]:
    """Django DATABASES entry for ``postgres://`` or ``sqlite:///`` URLs."""
    parts, port = _split_port(name, url)
    scheme = parts.scheme.lower()
    if scheme in {"postgres", "postgresql", "pgsql"}:
        dbname = unquote(parts.path.lstrip("/"))
        if not dbname:
            raise EnvironmentConfigError(name, "missing database name after the host")
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": dbname,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(port or ""),
            "OPTIONS": options,
        }
    if scheme == "sqlite":
        path = unquote(parts.path)
        if path in {"", "/"}:
            raise EnvironmentConfigError(name, "sqlite URL needs a file path: sqlite:///path/db")
        # sqlite:////abs/path.db is absolute; sqlite:///rel/path.db is relative to the project.
        target = Path(path[1:]) if path.startswith("//") else base_dir / path[1:]
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(target)}
    raise EnvironmentConfigError(
        name, f"unknown scheme {parts.scheme!r} (use postgres://… or sqlite:///…)"
    )


def parse_redis_url(url: str, *, name: str = "REDIS_URL") -> str:
    """Validate a Redis URL and return it unchanged."""
    parts, _ = _split_port(name, url)
    if parts.scheme not in {"redis", "rediss", "unix"}:
        raise EnvironmentConfigError(name, f"unknown scheme {parts.scheme!r} (use redis://…)")
    return url
