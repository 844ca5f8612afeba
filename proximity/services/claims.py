"""Claiming a unit of work by conditional update, the idempotency rule of every Celery task."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Model

__all__ = ["claim_row"]


def claim_row(model: type[Model], pk: int, now: datetime) -> bool:
    """Move a row from ``pending`` to ``running``; True only for the one caller that did.

    A ``running`` row older than the broker's visibility timeout belongs to a dead worker (its
    task is being redelivered), so it may be claimed again.
    """
    stale = now - timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    rows = model._default_manager.filter(pk=pk)
    if rows.filter(status="pending").update(status="running", started_at=now):
        return True
    return bool(rows.filter(status="running", started_at__lt=stale).update(started_at=now))
