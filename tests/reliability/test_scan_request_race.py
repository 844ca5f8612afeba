"""A report racing the end of a scan must still leave a scan scheduled.

Found by bench/load.py: under 40 reports/s the debounce chain stalled. The report's "was it
empty?" update ran before the scan cleared the request, its "refresh the time" update after;
the request was then set again with nobody scheduled to scan it (until the periodic sweep).
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from proximity.models import ProximityScan, Repository
from proximity.services.scan_requests import scan_request
from tests.factories import make_repository

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("in_process_tasks")
def test_a_request_refreshed_while_a_scan_clears_it_is_scheduled() -> None:
    t0 = timezone.now() - timedelta(seconds=5)
    repo = make_repository("web", scope="team-a", scan_requested_at=t0)
    locked, release = threading.Event(), threading.Event()

    def finishing_scan() -> None:
        # What scans._store/_finish_request do: lock the row, clear the request, commit.
        try:
            with transaction.atomic():
                Repository.objects.select_for_update(no_key=True).get(pk=repo.pk)
                locked.set()
                release.wait(10)
                Repository.objects.filter(pk=repo.pk, scan_requested_at=t0).update(
                    scan_requested_at=None
                )
        finally:
            connection.close()

    scan = threading.Thread(target=finishing_scan)
    scan.start()
    assert locked.wait(10)
    outcome: list[bool] = []

    def report() -> None:
        try:
            with transaction.atomic():
                outcome.append(scan_request(repository_id=repo.pk, now=timezone.now()))
        finally:
            connection.close()

    reporter = threading.Thread(target=report)
    reporter.start()
    time.sleep(0.5)  # the report is now waiting on the scan's row lock
    release.set()
    scan.join(10)
    reporter.join(10)
    assert outcome == [True], "a pending request with no scan scheduled: the chain stalled"
    # The scheduled scan ran (tasks in-process) and cleared the request.
    repo.refresh_from_db()
    assert repo.scan_requested_at is None
    assert ProximityScan.objects.filter(repository=repo, status="done").exists()
