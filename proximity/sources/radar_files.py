"""Radar's own files never enter the airspace: one list, used by the agent side and the server.

``radar hooks install`` writes a harness settings file into a worktree (and, when one was there,
a ``*.radar-backup-*`` copy). Read as an agent's work, that file made every pair of agents with
hooks installed "collide" before anyone edited code (issue 27). Every reader of working sets (the
local hook, the watcher, ``radar report``, scans, the server's report intake) drops these paths
through :func:`is_radar_file`, and a repository may add its own globs (``[radar] ignore`` in its
``.radar.toml``). Standard library only: the light agent install imports it.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

__all__ = [
    "BACKUP_PATTERNS",
    "MAX_PARKED_HOURS",
    "RADAR_FILES",
    "ignore_globs",
    "is_radar_file",
    "parked_hours",
    "parked_hours_ok",
    "read_parked_hours",
    "read_radar_toml",
    "repository_ignore_globs",
    "without_radar_files",
]

#: Every file any ``radar hooks install`` may write into a worktree (each harness, each scope
#: that lands in the worktree), and the repository's radar configuration. A test checks each
#: harness spec's paths against this list, so a new harness file cannot be forgotten here.
RADAR_FILES: tuple[str, ...] = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".radar.toml",
)
#: Basename patterns, at any depth: the installer's backups and its half-written temporaries.
BACKUP_PATTERNS: tuple[str, ...] = ("*.radar-backup-*", ".*.radar-*.tmp")

_MAX_GLOBS = 64
_MAX_GLOB_CHARS = 200

Entry = TypeVar("Entry")


def _matches(path: str, glob: str) -> bool:
    """git-exclude-like: a glob without ``/`` matches the basename at any depth, one with ``/``
    the whole path from the repository's top (``*`` may cross folders there)."""
    glob = glob.removeprefix("/")
    if "/" not in glob:
        return fnmatch.fnmatchcase(PurePosixPath(path).name, glob)
    return fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path, glob.rstrip("/") + "/*")


def is_radar_file(path: str, extra: Sequence[str] = ()) -> bool:
    """Whether ``path`` (relative to the worktree's top, ``/``-separated) is radar's own or
    matches one of the repository's ``extra`` globs."""
    path = path.removeprefix("./")
    if path in RADAR_FILES:
        return True
    name = PurePosixPath(path).name
    if any(fnmatch.fnmatchcase(name, p) for p in BACKUP_PATTERNS):
        return True
    return any(_matches(path, glob) for glob in extra)


def without_radar_files(
    entries: Iterable[Entry], extra: Sequence[str] = (), *, key: Any = None
) -> list[Entry]:
    """``entries`` without radar's files; ``key(entry)`` gives the path (default: the entry's
    ``path`` attribute, or its ``"path"`` key for a mapping)."""

    def path_of(entry: Any) -> str:
        if key is not None:
            return str(key(entry))
        return str(entry.get("path", "") if isinstance(entry, Mapping) else entry.path)

    return [e for e in entries if not is_radar_file(path_of(e), extra)]


def ignore_globs(radar_table: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``ignore`` list of a ``.radar.toml``'s ``[radar]`` table; ``ValueError`` names it.

    Bounded (64 globs of 200 characters): the file is the repository's, not ours.
    """
    value = radar_table.get("ignore", [])
    if not isinstance(value, list) or not all(isinstance(g, str) and g.strip() for g in value):
        raise ValueError("radar.ignore: must be a list of non-empty glob strings")
    if len(value) > _MAX_GLOBS or any(len(g) > _MAX_GLOB_CHARS for g in value):
        raise ValueError(
            f"radar.ignore: at most {_MAX_GLOBS} globs of {_MAX_GLOB_CHARS} characters"
        )
    return tuple(g.strip() for g in value)


#: The longest parked time a repository may set: a year (a number, not a second way to say never).
MAX_PARKED_HOURS = 8760.0


def parked_hours_ok(value: object) -> bool:
    """A parked time a repository may set: a number of hours from 0 to a year (not a bool)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and 0 <= value <= MAX_PARKED_HOURS  # NaN compares false
    )


def parked_hours(radar_table: Mapping[str, Any]) -> float | None:
    """``parked_hours`` of a ``.radar.toml``'s ``[radar]`` table (``None``: unset, the
    profile's); ``ValueError`` names it. Read here because both the agents' hooks and the
    server's registration of the clone read it, and must agree."""
    if "parked_hours" not in radar_table:
        return None
    value = radar_table["parked_hours"]
    if not parked_hours_ok(value):
        raise ValueError(
            f"radar.parked_hours: must be a number of hours from 0 (never parked) to "
            f"{MAX_PARKED_HOURS:g} (got {str(value)[:60]!r})"
        )
    return float(value)


def read_radar_toml(path: str | Path) -> dict[str, Any]:
    """The TOML file at ``path`` (``{}`` when there is none), read bounded: it is the
    repository's (or the user's) file, not ours. ``ValueError`` names the file and the problem.
    The one reader of ``.radar.toml`` for the agents' hooks and the server's registration."""
    from proximity.sources.limits import MAX_READ_BYTES, read_bounded

    try:
        data = read_bounded(path, MAX_READ_BYTES, follow=True)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    if data is None:
        raise ValueError(f"{path}: not a readable file of at most {MAX_READ_BYTES} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def read_parked_hours(root: str) -> float | None:
    """``[radar] parked_hours`` of the ``.radar.toml`` at ``root`` (``None``: unset or no
    file), the clone the operator registers; ``ValueError`` names the file and the setting."""
    path = Path(root) / ".radar.toml"
    table = read_radar_toml(path).get("radar", {})
    try:
        if not isinstance(table, dict):
            raise ValueError("[radar] must be a table")
        return parked_hours(table)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def repository_ignore_globs(repo: str, *, base: str) -> tuple[str, ...]:
    """The ignore globs of ``.radar.toml`` as committed on ``base`` (``()`` when none or
    unreadable).

    Read from the base branch, not a worktree, so an agent cannot hide its own work from the
    watcher by editing the file in its worktree; a malformed file ignores nothing extra.
    """
    from proximity.sources.git._run import GitError, git

    try:
        code, out = git(repo, ["show", f"{base}:.radar.toml"], ok_codes=(0, 128))
    except GitError:
        return ()
    if code != 0 or len(out) > 65_536:
        return ()
    try:
        table = tomllib.loads(out.decode("utf-8")).get("radar", {})
        return ignore_globs(table) if isinstance(table, dict) else ()
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError):
        return ()
