"""A report racing the end of a scan must still leave a scan scheduled.

Found by bench/load.py: under 40 reports/s the debounce chain stalled. The report's "was it
empty?" update ran before the scan cleared the request, its "refresh the time" update after;
the request was then set again with nobody scheduled to scan it (until the periodic sweep).

Both sides are the production code: ``scan_run`` (its ``_store`` locks the repository row and
``_finish_request`` clears the request) and ``scan_request``. The scan is held inside its
transaction, after the row lock, by pausing the first call it makes once it holds the lock.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from proximity.models import ProximityScan
from proximity.services import scans
from proximity.services.scan_requests import scan_request
from proximity.services.scans import scan_run
from tests.factories import make_repository
from tests.reliability.locks import a_session_waits_on_a_lock, in_thread

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("in_process_tasks")
def test_a_request_refreshed_while_a_scan_clears_it_is_scheduled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t0 = timezone.now() - timedelta(seconds=5)
    repo = make_repository("web", scope="team-a", scan_requested_at=t0)
    locked, release = threading.Event(), threading.Event()
    apply_scan = scans.advisories_apply_scan

    def held_after_the_row_lock(**kwargs: Any) -> Any:
        # _store calls this right after select_for_update: the row lock is held until commit.
        if not locked.is_set():
            locked.set()
            release.wait(10)
        return apply_scan(**kwargs)

    monkeypatch.setattr(scans, "advisories_apply_scan", held_after_the_row_lock)
    finished: list[ProximityScan | None] = []

    scan = in_thread(lambda: finished.append(scan_run(repository_id=repo.pk)))
    assert locked.wait(10), "the scan never reached its row lock"
    outcome: list[bool] = []

    def report() -> None:
        with transaction.atomic():
            outcome.append(scan_request(repository_id=repo.pk, now=timezone.now()))

    reporter = in_thread(report)
    try:
        # the report's "refresh the time" UPDATE now waits on the scan's row lock
        assert a_session_waits_on_a_lock(), "the report never waited on the scan's row lock"
    finally:
        release.set()
        scan.join(10)
        reporter.join(10)
    assert [row.status for row in finished if row] == [ProximityScan.Status.DONE]
    assert outcome == [True], "a pending request with no scan scheduled: the chain stalled"
    # The report's request (newer than t0) was scanned by the scan it scheduled (tasks run
    # in-process), which found the stored result and cleared the request.
    repo.refresh_from_db()
    assert repo.scan_requested_at is None
    assert ProximityScan.objects.filter(repository=repo, status="done").count() == 1
