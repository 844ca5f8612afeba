"""Resource limits: the subprocesses of speculative checks, and how much of a file is read.

:func:`read_bounded` is how the agent side reads a file a repository or a payload names before
deciding (the text around a planned edit, ``.radar.toml``): a regular file of at most
:data:`MAX_READ_BYTES`, or nothing. A device, a FIFO or a huge file is never opened for a read
that could block or not end; the caller treats the edit as whole-file.


Applied with :func:`resource.setrlimit` in the child between fork and exec (``preexec_fn``),
so they bind the child and what it starts, never this worker. Python warns that
``preexec_fn`` is unsafe when the parent has threads (a lock held at fork time stays held in
the child): callers run these subprocesses from one thread. ``RLIMIT_NPROC`` counts every
process of the user, so it is a ceiling on fork bombs, not a per-check budget, and root is
exempt from it.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["MAX_READ_BYTES", "Limits", "read_bounded", "wall_clock_deadline"]

MAX_READ_BYTES = 2 * 1024 * 1024
"""The most of one file the hook reads before a decision (an edited file, a config file); a
larger one counts as changed whole."""


def read_bounded(
    path: str | os.PathLike[str], limit: int = MAX_READ_BYTES, *, follow: bool = False
) -> bytes | None:
    """The bytes of the regular file at ``path``, or ``None`` when it holds more than ``limit``
    or is no regular file (a FIFO, a device, a socket: opened without blocking and never read).

    Never reads more than ``limit`` + 1 bytes, whatever the file does meanwhile. Raises
    :class:`OSError` when it cannot be opened (missing, no permission, a symbolic link unless
    ``follow``).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return None if size > limit else b"".join(chunks)


@contextmanager
def wall_clock_deadline(
    seconds: float | None, error: Callable[[], BaseException]
) -> Iterator[None]:
    """Raise ``error()`` in this process after ``seconds`` of wall time (no deadline when 0 or
    None). SIGALRM: main thread only, one at a time; the previous handler is restored."""
    if not seconds:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise error()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _lower(which: int, value: int | None) -> None:
    if value is None:
        return
    _, hard = resource.getrlimit(which)
    cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (cap, hard))


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-child ceilings; ``None`` leaves one as inherited."""

    memory_bytes: int | None = 2 * 1024**3
    cpu_seconds: int | None = 60
    processes: int | None = 256

    def apply(self) -> None:
        """Lower the current process's soft limits (only ever lower: never above the hard)."""
        _lower(resource.RLIMIT_AS, self.memory_bytes)
        _lower(resource.RLIMIT_CPU, self.cpu_seconds)
        _lower(resource.RLIMIT_NPROC, self.processes)

    def preexec(self) -> Callable[[], None]:
        """The ``preexec_fn`` that applies these limits in a child."""
        return self.apply
