"""Overlap Radar's stored state. Models hold fields and constraints; logic lives in services."""

from __future__ import annotations

from django.db import models

__all__ = ["WorkerHeartbeat"]


class WorkerHeartbeat(models.Model):
    """Last time each Celery worker host executed the periodic heartbeat task."""

    hostname = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()
    beats = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["-seen_at"]

    def __str__(self) -> str:
        return f"{self.hostname} @ {self.seen_at:%Y-%m-%d %H:%M:%S}"
