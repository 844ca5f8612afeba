"""One way to run git: argument lists, no shell, no optional locks, C locale, bounded time."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

__all__ = ["DIFF_ARGS", "GitError", "git", "git_text"]

# The diff every reader parses (proximity.engine.diff): raw records plus -U0 hunks on both sides.
DIFF_ARGS = [
    "diff", "--raw", "-p", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
    "--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=all",
]  # fmt: skip

_TIMEOUT_S = 30.0


class GitError(RuntimeError):
    """A git command failed; the message names the place and git's own words."""

    def __init__(self, where: str | Path, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = str(where)
        self.problem = problem


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    # GIT_OPTIONAL_LOCKS=0 stops `git status`/`git diff` from opportunistically rewriting the
    # index's stat cache: a read must leave every index byte as it was.
    env.update({"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        env.pop(name, None)  # an inherited value would redirect every call below
    env.pop("GIT_ALTERNATE_OBJECT_DIRECTORIES", None)
    if extra:
        env.update(extra)
    return env


def git(
    cwd: str | Path,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    ok_codes: tuple[int, ...] = (0,),
    preexec: Callable[[], None] | None = None,
) -> tuple[int, bytes]:
    """Run ``git -C cwd args``; return (exit code, stdout) or raise :class:`GitError`.

    ``preexec`` runs in the child before exec (resource limits: ``proximity.sources.limits``).
    """
    try:
        proc = subprocess.run(
            ["git", "-C", str(cwd), *args],
            input=stdin,
            capture_output=True,
            env=_env(env),
            timeout=_TIMEOUT_S,
            check=False,
            preexec_fn=preexec,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(cwd, f"git {args[0]} did not run: {exc}") from exc
    if proc.returncode not in ok_codes:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
        raise GitError(cwd, f"git {args[0]} failed: {message}")
    return proc.returncode, proc.stdout


def git_text(cwd: str | Path, args: Sequence[str], **kwargs: object) -> str:
    """Like :func:`git` but decoded (UTF-8, undecodable bytes kept as surrogate escapes)."""
    _, out = git(cwd, args, **kwargs)  # type: ignore[arg-type]
    return out.decode("utf-8", "surrogateescape")
