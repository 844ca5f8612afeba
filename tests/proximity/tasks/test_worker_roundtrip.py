"""A task sent through the real Redis broker runs on a real worker and writes a row."""

from __future__ import annotations

import time

import pytest

from proximity.models import WorkerHeartbeat
from proximity.tasks import record_heartbeat

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _wait_for(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_task_sent_through_broker_is_executed_by_worker_and_writes_row(celery_worker) -> None:
    from django.conf import settings

    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    record_heartbeat.delay(hostname="roundtrip-host")
    assert _wait_for(lambda: WorkerHeartbeat.objects.filter(hostname="roundtrip-host").exists())


def test_redelivered_heartbeat_updates_the_same_row(celery_worker) -> None:
    record_heartbeat.delay(hostname="twice")
    record_heartbeat.delay(hostname="twice")
    assert _wait_for(lambda: WorkerHeartbeat.objects.filter(hostname="twice", beats=2).exists())
    assert WorkerHeartbeat.objects.filter(hostname="twice").count() == 1
