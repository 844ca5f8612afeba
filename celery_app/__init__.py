"""Celery application for Overlap Radar (``celery -A celery_app worker``)."""

from __future__ import annotations

from celery_app.app import app

__all__ = ["app"]
