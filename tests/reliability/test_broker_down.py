"""The broker goes down while agents report: every report is accepted and stored with its scan
request in the database outbox, and every one is scanned once the broker is back."""

from __future__ import annotations

import pytest
import requests

from proximity.models import ProximityScan, Repository, WorkingSetSnapshot
from tests.factories import make_repository, working_set
from tests.reliability.processes import (
    RedisServer,
    celery_worker_process,
    gunicorn_process,
    process_env,
    run_sweep,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _report(url: str, token: str, repo: str, agent: str, start: int) -> requests.Response:
    body = working_set(repo, agent, [{"path": "src/core.py", "lines": [[start, start + 20]]}])
    return requests.post(
        f"{url}/api/working-sets",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def _covered(snapshot: WorkingSetSnapshot) -> bool:
    return ProximityScan.objects.filter(
        repository=snapshot.agent.repository, status="done", snapshot_ids__contains=[snapshot.pk]
    ).exists()


@pytest.mark.timeout(180)
def test_reports_during_a_broker_outage_are_stored_and_all_scanned_after(lead, tmp_path) -> None:
    for name in ("web", "api"):
        make_repository(name, scope="team-a")
    broker = RedisServer()
    broker.start()
    env = process_env(redis_url=broker.url, OVERLAP_SCAN_DEBOUNCE_SECONDS="0")
    try:
        with gunicorn_process(env, tmp_path / "web.log") as url:
            assert _report(url, lead.token, "web", "warmup", 200).status_code == 201
            broker.stop()
            codes = [
                _report(url, lead.token, repo, f"{repo}-{n}", 1 + n * 5).status_code
                for repo in ("web", "api")
                for n in range(3)
            ]
            assert codes == [201] * 6
            stored = WorkingSetSnapshot.objects.exclude(agent__agent_id="warmup")
            assert stored.count() == 6
            assert Repository.objects.filter(scan_requested_at__isnull=False).count() == 2
            broker.start()
            with celery_worker_process(env, tmp_path / "worker.log"):
                # What beat runs every 30 s, run now: enqueue every request still outstanding.
                assert run_sweep(env) >= 2
                assert wait_for(
                    lambda: not Repository.objects.filter(scan_requested_at__isnull=False).exists(),
                    timeout=60,
                    step=0.5,
                ), (tmp_path / "worker.log").read_text()[-3000:]
        assert all(_covered(s) for s in stored.select_related("agent__repository"))
    finally:
        broker.stop()
