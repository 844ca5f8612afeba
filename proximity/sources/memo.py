"""A bounded least-recently-used mapping, the memo every reader of this side keeps.

Loaded by the agent side's hook path, so it imports nothing but the standard library."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Hashable, Iterator, MutableMapping
from threading import Lock
from typing import TypeVar

__all__ = ["BoundedCache", "file_state"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(MutableMapping[K, V]):
    """A thread-safe least-recently-used mapping holding at most ``size`` entries: the
    extractions by blob, and the agent side's memos of immutable or keyed answers
    (:mod:`.local`)."""

    def __init__(self, size: int = 100_000) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()

    def __getitem__(self, key: K) -> V:
        with self._lock:
            value = self._data[key]
            self._data.move_to_end(key)
            return value

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        with self._lock:
            del self._data[key]

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


def file_state(path: str | os.PathLike[str]) -> str:
    """What git's index keeps to tell a file changed without reading it (racy edits within one
    timestamp tick aside), or the error: the memos' key for a file on disk."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"error {exc.errno}"
    return f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_size}:{st.st_ino}:{st.st_mode}"
