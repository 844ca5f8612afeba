"""Ordering two database sessions by their row locks, for the race tests on PostgreSQL.

A race test lets the first session take a lock and hold it, starts the second, and proceeds only
once PostgreSQL reports the second waiting on a lock: the order is then certain, not a sleep.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

from tests.reliability.processes import wait_for

__all__ = ["a_session_waits_on_a_lock", "in_thread"]


def in_thread(work: Callable[[], object], *, name: str | None = None) -> threading.Thread:
    """Run ``work`` on a started thread with its own database connection (closed at the end)."""

    def run() -> None:
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run, name=name)
    thread.start()
    return thread


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return bool(cursor.fetchone()[0])


def a_session_waits_on_a_lock(seconds: float = 10) -> bool:
    """True once another session of this database waits on a lock (within ``seconds``)."""
    return wait_for(_waiting_on_a_lock, seconds, step=0.02)
