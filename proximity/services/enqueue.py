"""The one place services hand work to Celery: by registered task name.

Services enqueue and tasks call services; naming the task instead of importing it keeps that
a one-way dependency (tasks -> services). The signature resolves to the registered task, so
the embedded default (eager tasks) and a real broker behave as with ``task.apply_async``.
"""

from __future__ import annotations

from typing import Any

from celery import current_app

__all__ = ["MERGE_CHECK", "OVERLAP_RUN", "SCAN", "WEBHOOK", "enqueue"]

SCAN = "proximity.scan_repository"
OVERLAP_RUN = "proximity.run_overlap_for_version"
WEBHOOK = "proximity.deliver_webhook"
MERGE_CHECK = "proximity.merge_check"


def enqueue(task: str, *args: Any, countdown: float | None = None) -> None:
    """Send ``task(*args)``; raises the broker's error when it cannot be reached."""
    if task not in current_app.tasks:
        # A web process has not imported the task modules; a signature of an unregistered
        # name would bypass eager mode (send_task), so load them the way a worker does.
        current_app.loader.import_default_modules()
    current_app.signature(task, args=args).apply_async(countdown=countdown)
