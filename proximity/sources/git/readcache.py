"""Answers of read-only git calls, kept while nothing they read has changed (a daemon's).

A hook asks git the same questions on every call (where is this worktree, what did each other
worktree change, where is the merge base, what did the mainline change in these paths); between
two edits the answers do not change. In a long-lived process, :func:`install` makes
:func:`proximity.sources.git._run.git` remember them, keyed by folder and arguments, and a
file-system observer (``watchdog``: inotify on Linux) forgets them as soon as anything changes in
the scope they were read from: the worktree holding the folder and the repository's common git
directory (objects, refs, every worktree's HEAD and index, config, info/exclude).

Freshness rule: an answer is used only when no event of its scope arrived since its read
*began* (event sequence numbers), and only while the observer has no event waiting to be
dispatched. So what remains is the kernel's notification delay (microseconds to milliseconds;
watchdog holds back only the first half of a rename, up to 0.5 s): an edit made
:data:`FRESHNESS_S` before a call is always seen (tests/agent/test_fast_path.py). Outside the
scope, and so not watched: the user's global git configuration and excludes file.

Where notifications are unavailable (no ``watchdog``, no inotify, the watch limit reached),
nothing is remembered for that scope and every call asks git: exact, as slow as before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CACHED_VERBS", "FRESHNESS_S", "GitReadCache", "current", "install"]

#: An edit this old is always seen by a cached answer (the bound the tests hold it to).
FRESHNESS_S = 1.0
#: git verbs that only read (every call runs with GIT_OPTIONAL_LOCKS=0, so none writes).
CACHED_VERBS = frozenset(
    {
        "status",
        "diff",
        "rev-parse",
        "merge-base",
        "worktree",
        "config",
        "ls-files",
        "log",
        "for-each-ref",
    }
)
_MAX_ENTRIES = 4096
_MAX_ENTRY_BYTES = 4 * 1024 * 1024
_MAX_TOTAL_BYTES = 256 * 1024 * 1024

Answer = tuple[int, bytes, bytes]


@dataclass(slots=True)
class _Root:
    watched_at: int  # event sequence number when its watch began
    changed_at: int  # sequence number of its latest event


@dataclass(frozen=True, slots=True)
class _Entry:
    read_at: int
    roots: tuple[str, ...]
    answer: Answer


class GitReadCache:
    """The remembered answers and the observer that invalidates them; thread-safe."""

    verbs = CACHED_VERBS

    def __init__(self, observer: Any) -> None:
        self._observer = observer
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._seq = 0  # orders events and the start of reads
        self._events = 0
        self._roots: dict[str, _Root] = {}
        self._failed: set[str] = set()
        self._scopes: dict[str, tuple[str, ...] | None] = {}
        self._entries: OrderedDict[tuple[str, tuple[str, ...]], _Entry] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    # --- notifications -------------------------------------------------------------------
    def _event(self, root: str) -> None:
        with self._lock:
            self._seq += 1
            self._events += 1
            self._roots[root].changed_at = self._seq
            self._changed.notify_all()

    def _watch(self, root: str) -> bool:
        """Watch ``root`` (recursively) from now on; False when it cannot be watched."""
        with self._lock:
            if root in self._roots:
                return True
            if root in self._failed:
                return False
            self._seq += 1
            self._roots[root] = _Root(self._seq, self._seq)
        try:
            self._observer.schedule(_handler(self, root), root, recursive=True,
                                    event_filter=_EVENT_TYPES)  # fmt: skip
        except (OSError, RuntimeError):  # the inotify watch limit, a vanished folder
            with self._lock:
                del self._roots[root]
                self._failed.add(root)
            return False
        return True

    def unchanged_since(self, mark: int) -> bool:
        """No event at all since :attr:`sequence` was ``mark``, and none waiting: anything read
        from watched folders since then is still exact."""
        with self._lock:
            return self._events == mark and bool(self._observer.event_queue.empty())

    def covers(self, folders: Sequence[str]) -> bool:
        """Whether git calls in each of ``folders`` have watched scopes (so any change there
        is an event)."""
        with self._lock:
            return all(self._scopes.get(f) is not None for f in folders)

    def coverage(self) -> tuple[int, int]:
        """How many folders are watched, and how many could not be (each watched folder takes
        one inotify instance: ``fs.inotify.max_user_instances``, 128 by default)."""
        with self._lock:
            return len(self._roots), len(self._failed)

    def wait_for_change(self, after: int, timeout: float) -> int:
        """The count of events once it passed ``after`` (or after ``timeout``)."""
        with self._changed:
            self._changed.wait_for(lambda: self._events > after, timeout)
            return self._events

    @property
    def sequence(self) -> int:
        """How many events arrived so far."""
        return self._events

    # --- answers --------------------------------------------------------------------------
    def _fresh(self, read_at: int, roots: Sequence[str]) -> bool:
        for root in roots:
            state = self._roots.get(root)
            if state is None or state.watched_at > read_at or state.changed_at > read_at:
                return False
        return bool(self._observer.event_queue.empty())

    def _scope(self, cwd: str, ask: Callable[[], Answer]) -> tuple[str, ...] | None:
        """The watched roots a call in ``cwd`` reads: its worktree and the common git dir."""
        with self._lock:
            if cwd in self._scopes:
                return self._scopes[cwd]
        code, out, _ = ask()
        lines = out.decode("utf-8", "surrogateescape").splitlines()
        roots: tuple[str, ...] | None = None
        if code == 0 and len(lines) == 2:
            top, common = Path(lines[0]).resolve(), Path(cwd, lines[1]).resolve()
            roots = tuple(sorted({str(top), str(common)}))
            if not all(self._watch(root) for root in roots):
                roots = None
        with self._lock:
            self._scopes[cwd] = roots
        return roots

    def answer(
        self,
        cwd: str,
        args: Sequence[str],
        run: Callable[[Sequence[str]], Answer],
    ) -> Answer:
        """``run(args)``'s answer in ``cwd``, remembered while its scope has not changed."""
        key = (cwd, tuple(args))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and self._fresh(entry.read_at, entry.roots):
                self._entries.move_to_end(key)
                self.hits += 1
                return entry.answer
        roots = self._scope(cwd, lambda: run(["rev-parse", "--show-toplevel", "--git-common-dir"]))
        with self._lock:
            read_at = self._seq + 1  # any event from here on makes the answer stale
            self._seq = read_at
        answer = run(args)
        size = len(answer[1]) + len(answer[2])
        with self._lock:
            self.misses += 1
            if roots is None or size > _MAX_ENTRY_BYTES:
                return answer
            old = self._entries.pop(key, None)
            self._bytes -= 0 if old is None else len(old.answer[1]) + len(old.answer[2])
            self._entries[key] = _Entry(read_at, roots, answer)
            self._bytes += size
            while len(self._entries) > _MAX_ENTRIES or self._bytes > _MAX_TOTAL_BYTES:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped.answer[1]) + len(dropped.answer[2])
        return answer

    def close(self) -> None:
        self._observer.stop()


def _event_types() -> list[Any]:
    from watchdog import events as e

    # Reads (opened, closed without writing) are left out: git's own reads would otherwise
    # invalidate what they just answered.
    return [
        e.FileModifiedEvent, e.FileCreatedEvent, e.FileDeletedEvent, e.FileMovedEvent,
        e.FileClosedEvent, e.FileAttribEvent, e.DirCreatedEvent, e.DirDeletedEvent,
        e.DirMovedEvent,
    ]  # fmt: skip


_EVENT_TYPES: list[Any] = []


def _handler(cache: GitReadCache, root: str) -> Any:
    from watchdog.events import FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            cache._event(root)

    return Handler()


def current() -> GitReadCache | None:
    """The cache :func:`install` put under this process's git calls, if any."""
    from proximity.sources.git import _run

    cache = _run._READ_CACHE
    return cache if isinstance(cache, GitReadCache) else None


def install() -> GitReadCache | None:
    """Start remembering git's answers in this process; ``None`` (nothing changes) when file
    notifications are not available here."""
    try:
        from watchdog.observers import Observer
    except ImportError:
        return None
    from proximity.sources.git import _run

    _EVENT_TYPES[:] = _event_types()
    observer = Observer()
    observer.daemon = True
    try:
        observer.start()
    except (OSError, RuntimeError):
        return None
    cache = GitReadCache(observer)
    _run.use_read_cache(cache)
    return cache
