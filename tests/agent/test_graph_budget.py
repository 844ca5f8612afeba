"""The import edges read ahead are waited for only until the check's deadline less a reserve."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from proximity.agent.session import GRAPH_RESERVE_S, _graph_within
from proximity.sources.git._run import git_deadline

_RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def _release() -> Iterator[None]:
    """Let every slow reader go at the end, so no thread outlives its test."""
    _RELEASE.clear()
    yield
    _RELEASE.set()


def _slow(seconds: float, value: object) -> Future[object]:
    release = _RELEASE
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(lambda: release.wait(seconds) or value)
    pool.shutdown(wait=False)
    return future


def test_a_read_not_in_before_the_deadline_less_the_reserve_is_dropped() -> None:
    near = _slow(5.0, {"adjacency": {}})
    began = time.monotonic()
    with git_deadline(began + GRAPH_RESERVE_S + 0.2):
        assert _graph_within(near) is None
    waited = time.monotonic() - began
    assert 0.15 <= waited < 0.2 + GRAPH_RESERVE_S  # it kept the reserve for the scoring


def test_a_read_in_time_is_used_and_without_a_deadline_it_is_awaited() -> None:
    with git_deadline(time.monotonic() + 5.0):
        assert _graph_within(_slow(0.05, {"a": 1})) == {"a": 1}
    assert _graph_within(_slow(0.3, {"b": 2})) == {"b": 2}


def test_past_the_deadline_nothing_is_awaited() -> None:
    near = _slow(5.0, None)
    began = time.monotonic()
    with git_deadline(began - 1.0):
        assert _graph_within(near) is None
    assert time.monotonic() - began < 0.1
