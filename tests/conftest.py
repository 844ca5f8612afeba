"""Shared fixtures: real services for the integration tier, role fixtures for access control."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def services_missing() -> list[str]:
    missing = []
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing.append("PostgreSQL (DATABASE_URL)")
    if not settings.REDIS_URL:
        missing.append("Redis (REDIS_URL)")
    return missing


@pytest.fixture(autouse=True)
def _require_real_services(request: pytest.FixtureRequest) -> None:
    # Integration tests never skip silently in CI: missing services are a failure there.
    if request.node.get_closest_marker("integration") is None:
        return
    missing = services_missing()
    if not missing:
        return
    message = f"integration test needs {', '.join(missing)}; run it through `make test`"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def celery_worker(transactional_db: None) -> Iterator[Any]:
    """A real Celery worker thread consuming from the real Redis broker."""
    from celery.contrib.testing.worker import start_worker

    from celery_app.app import app

    with start_worker(
        app,
        pool="solo",
        perform_ping_check=False,
        loglevel="WARNING",
        queues=["default", "scans", "overlap"],
        shutdown_timeout=30,
    ) as worker:
        yield worker
