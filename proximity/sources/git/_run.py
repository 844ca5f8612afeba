"""One way to run git: argument lists, no shell, no optional locks, C locale, bounded time.

Every call is bounded twice: by its own ceiling (:data:`_TIMEOUT_S`) and by the deadline of
the caller that started it (:func:`git_deadline`, e.g. a hook's), whichever comes first. A call
past its bound is killed with its whole process group (git's own children too: each git runs
in a session of its own), so no reader is ever waited for past the deadline.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = [
    "DIFF_ARGS",
    "GitError",
    "carry_deadline",
    "git",
    "git_deadline",
    "git_text",
    "kill_running",
    "move_deadline",
    "seconds_left",
    "use_read_cache",
]

T = TypeVar("T")

# The diff every reader parses (proximity.engine.diff): raw records plus -U0 hunks on both sides.
DIFF_ARGS = [
    "diff", "--raw", "-p", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
    "--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=all",
]  # fmt: skip

_TIMEOUT_S = 30.0
# A monotonic instant no git call of this context may outlive. A context variable, so the
# concurrent calls of one daemon each keep their own; threads take it with carry_deadline.
_DEADLINE: ContextVar[float | None] = ContextVar("git_deadline", default=None)
# Process groups of the git calls under way, for a process that leaves before its readers
# noticed their deadline (kill_running).
_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()


class ReadCache(Protocol):
    """What :func:`git` asks of a read cache (:class:`proximity.sources.git.readcache.GitReadCache`,
    which builds on this module, so the runner names only the shape it calls)."""

    verbs: frozenset[str]

    def answer(
        self,
        cwd: str,
        args: Sequence[str],
        run: Callable[[Sequence[str]], tuple[int, bytes, bytes]],
    ) -> tuple[int, bytes, bytes]: ...


_READ_CACHE: ReadCache | None = None


class GitError(RuntimeError):
    """A git command failed; the message names the place and git's own words."""

    def __init__(self, where: str | Path, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = str(where)
        self.problem = problem


@contextlib.contextmanager
def git_deadline(at: float | None) -> Iterator[None]:
    """Bound every git call of this context by the monotonic instant ``at`` (an outer, earlier
    deadline still wins)."""
    outer = _DEADLINE.get()
    token = _DEADLINE.set(at if outer is None or (at is not None and at < outer) else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def move_deadline(at: float) -> None:
    """Set this context's deadline to ``at`` (inside :func:`git_deadline`, which restores)."""
    _DEADLINE.set(at)


def carry_deadline(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` bound by the caller's current deadline wherever it runs (a pool thread starts
    with an empty context, so without this its git calls would have only their ceiling)."""
    at = _DEADLINE.get()

    def run(*args: Any, **kwargs: Any) -> T:
        with git_deadline(at):
            return fn(*args, **kwargs)

    return run


def seconds_left() -> float | None:
    """Seconds until this context's deadline (``None``: it has none)."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()


def _time_left(cwd: str | Path, verb: str) -> float:
    left = seconds_left()
    if left is None:
        return _TIMEOUT_S
    if left <= 0:
        raise GitError(cwd, f"git {verb} not started: past the deadline")
    return min(_TIMEOUT_S, left)


def kill_running() -> None:
    """Kill every git call of this process still under way (before leaving it: a thread still
    waiting on one would never get to kill it)."""
    with _RUNNING_LOCK:
        groups = list(_RUNNING)
    for group in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the git and everything it started; never wait on a pipe a stray child may hold."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1.0)


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


def use_read_cache(cache: ReadCache | None) -> None:
    """Answer read-only calls from ``cache`` from now on (a long-lived process's; see
    :mod:`proximity.sources.git.readcache`)."""
    global _READ_CACHE
    _READ_CACHE = cache


def _execute(
    cwd: str | Path,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    stdin: bytes | None,
    preexec: Callable[[], None] | None,
) -> tuple[int, bytes, bytes]:
    timeout = _time_left(cwd, args[0])
    try:
        proc = subprocess.Popen(
            ["git", "-C", str(cwd), *args],
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(env),
            preexec_fn=preexec,
            start_new_session=True,  # its own process group, so a kill reaches its children
        )
    except OSError as exc:
        raise GitError(cwd, f"git {args[0]} did not run: {exc}") from exc
    with _RUNNING_LOCK:
        _RUNNING.add(proc.pid)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except BaseException as exc:  # the deadline, or a hook's alarm interrupting the wait
        _kill(proc)
        if isinstance(exc, subprocess.TimeoutExpired):
            raise GitError(cwd, f"git {args[0]} killed after {timeout:.1f} s") from None
        raise
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc.pid)
    return proc.returncode, out, err


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
    cache = _READ_CACHE
    if cache is not None and env is None and stdin is None and preexec is None:
        if args and args[0] in cache.verbs:
            where = str(Path(cwd).absolute())
            code, out, err = cache.answer(
                where, list(args), lambda a: _execute(where, a, None, None, None)
            )
        else:
            code, out, err = _execute(cwd, args, env, stdin, preexec)
    else:
        code, out, err = _execute(cwd, args, env, stdin, preexec)
    if code not in ok_codes:
        message = err.decode("utf-8", "replace").strip() or f"exit {code}"
        raise GitError(cwd, f"git {args[0]} failed: {message}")
    return code, out


def git_text(cwd: str | Path, args: Sequence[str], **kwargs: object) -> str:
    """Like :func:`git` but decoded (UTF-8, undecodable bytes kept as surrogate escapes)."""
    _, out = git(cwd, args, **kwargs)  # type: ignore[arg-type]
    return out.decode("utf-8", "surrogateescape")
