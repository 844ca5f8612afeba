"""Reports through the API, scans on a real worker over Redis, advisories and messages stored."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from django.test import override_settings
from django.utils import timezone

from proximity.engine.airspace import DEFAULT_PROFILE, SCORER_VERSION
from proximity.models import ProximityAdvisory, ProximityScan, Repository, TriggerMessage
from proximity.selectors.airspace import airspace_inputs
from proximity.services.scans import scan_run
from proximity.tasks import scan_repository
from tests.factories import file_entry, make_repository, working_set

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def wait_for(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def repo():
    return make_repository("web", scope="team-a")


def _report_pair(post_json, caller) -> None:
    for agent, lines in (("a1", [[1, 40]]), ("a2", [[10, 20]])):
        body = working_set("web", agent, [file_entry("src/app.py", lines)])
        assert post_json("/api/working-sets", body, caller).status_code == 201


@override_settings(OVERLAP_SCAN_DEBOUNCE_SECONDS=0.2)
def test_two_reports_become_a_stored_advisory_and_delivered_messages(
    repo, partial, client, post_json, celery_worker
) -> None:
    _report_pair(post_json, partial)
    assert wait_for(lambda: ProximityAdvisory.objects.filter(band="resolution").exists())
    advisory = ProximityAdvisory.objects.get()
    assert advisory.scorer_version
    assert advisory.profile == DEFAULT_PROFILE
    inbox = {
        agent: client.get(
            f"/api/repositories/web/agents/{agent}/messages", **partial.headers
        ).json()
        for agent in ("a1", "a2")
    }
    kinds = {agent: [m["kind"] for m in msgs] for agent, msgs in inbox.items()}
    assert sorted(kinds["a1"] + kinds["a2"]) == ["proximity_hold", "proximity_steer"]
    again = client.get("/api/repositories/web/agents/a1/messages", **partial.headers).json()
    assert again == []  # delivered once


@override_settings(OVERLAP_SCAN_DEBOUNCE_SECONDS=1.5)
def test_a_burst_of_reports_gives_one_scan(repo, partial, post_json, celery_worker) -> None:
    for n in range(10):
        body = working_set("web", f"a{n % 3}", [file_entry("src/app.py", [[1, 10 + n]])])
        assert post_json("/api/working-sets", body, partial).status_code == 201
    assert wait_for(lambda: Repository.objects.get(pk=repo.pk).scan_requested_at is None)
    assert ProximityScan.objects.filter(status="done").count() == 1
    assert ProximityScan.objects.get().agent_count == 3


@override_settings(OVERLAP_SCAN_DEBOUNCE_SECONDS=0.1)
def test_redelivered_scan_task_duplicates_nothing(repo, partial, post_json, celery_worker) -> None:
    _report_pair(post_json, partial)
    assert wait_for(lambda: ProximityScan.objects.filter(status="done").exists())
    before = (
        ProximityScan.objects.count(),
        ProximityAdvisory.objects.count(),
        TriggerMessage.objects.count(),
    )
    Repository.objects.filter(pk=repo.pk).update(scan_requested_at=timezone.now())
    scan_repository.delay(repo.pk)
    scan_repository.delay(repo.pk)
    assert wait_for(lambda: Repository.objects.get(pk=repo.pk).scan_requested_at is None)
    after = (
        ProximityScan.objects.count(),
        ProximityAdvisory.objects.count(),
        TriggerMessage.objects.count(),
    )
    assert after == before


def test_a_scan_left_running_by_a_dead_worker_is_reclaimed_and_completes_once(
    repo, partial, post_json
) -> None:
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        _report_pair(post_json, partial)  # enqueued to a broker no worker reads in this test
    now = timezone.now()
    inputs = airspace_inputs(repo, now=now)
    stale = now - timezone.timedelta(hours=1)
    ProximityScan.objects.create(
        repository=repo,
        input_hash=inputs.input_hash,
        profile=repo.profile,
        scorer_version=SCORER_VERSION,
        status="running",
        started_at=stale,
        requested_at=stale,
    )
    first = scan_run(repository_id=repo.pk, now=now)
    second = scan_run(repository_id=repo.pk, now=now)
    assert first is not None
    assert first.status == "done"
    assert second is None or second.pk == first.pk
    assert ProximityScan.objects.count() == 1
    assert ProximityAdvisory.objects.count() == 1
