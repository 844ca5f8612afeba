"""Django project package; importing it loads the Celery app so shared tasks bind to it."""

from __future__ import annotations

from celery_app.app import app as celery_app

__all__ = ["celery_app"]
