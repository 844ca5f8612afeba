"""Celery tasks: thin, named, idempotent wrappers over services."""

from __future__ import annotations

import socket
from typing import Any

from celery import shared_task

from proximity.services.heartbeat import heartbeat_record

__all__ = ["record_heartbeat"]


@shared_task(bind=True, name="proximity.record_heartbeat", max_retries=3)
def record_heartbeat(self: Any, hostname: str | None = None) -> None:
    # Idempotent: the row is keyed by hostname and only moves forward in time.
    heartbeat_record(hostname=hostname or self.request.hostname or socket.gethostname())
