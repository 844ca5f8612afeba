"""A Celery worker is SIGKILLed in the middle of a scan: the task is redelivered to a new
worker after the broker's visibility timeout and completes once, with no duplicate advisory."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from proximity.models import (
    Agent,
    ProximityAdvisory,
    ProximityScan,
    TriggerMessage,
    WorkingSetSnapshot,
)
from tests.factories import make_repository
from tests.reliability.processes import (
    RedisServer,
    celery_worker_process,
    process_env,
    run_sweep,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True), pytest.mark.slow]

AGENTS = 300


def _big_airspace() -> int:
    """Hundreds of agents crowding a few modules: thousands of advisories to store."""
    repo = make_repository("big", scope="team-a")
    agents = Agent.objects.bulk_create(
        Agent(repository=repo, agent_id=f"a{i:03d}", label=f"a{i:03d}") for i in range(AGENTS)
    )
    now = timezone.now()
    WorkingSetSnapshot.objects.bulk_create(
        WorkingSetSnapshot(
            agent=agent,
            version=1,
            files=[
                {"path": f"pkg{i % 7}/m{(i // 2) % 40}.py", "lines": [[1 + i % 9, 30 + i % 11]]},
                {"path": f"pkg{i % 5}/x{i % 13}.py", "lines": [[5, 9]]},
            ],
            content_hash=f"{i:064d}",
            reported_at=now,
            expires_at=now + timedelta(hours=1),
        )
        for i, agent in enumerate(agents)
    )
    repo.scan_requested_at = now - timedelta(seconds=1)
    repo.save(update_fields=["scan_requested_at"])
    return repo.pk


@pytest.mark.timeout(240)
def test_scan_killed_mid_task_is_redelivered_and_completes_once(tmp_path) -> None:
    repo_id = _big_airspace()
    broker = RedisServer()
    broker.start()
    env = process_env(
        redis_url=broker.url,
        OVERLAP_VISIBILITY_TIMEOUT="10",
        OVERLAP_UNACKED_RESTORE_SECONDS="1",
        OVERLAP_SCAN_DEBOUNCE_SECONDS="0",
    )
    log = tmp_path / "worker.log"
    try:
        # Enqueued before any worker runs: on a quiet machine the scan (under a second) used to
        # finish before the sweep's own process had exited, and "running" was never seen.
        assert run_sweep(env) == 1
        with celery_worker_process(env, log) as first:
            running = ProximityScan.objects.filter(repository_id=repo_id, status="running")
            assert wait_for(running.exists, timeout=90, step=0.05), log.read_text()[-3000:]
            first.kill()  # SIGKILL: no ack, no cleanup, the transaction in flight rolls back
            first.wait(timeout=10)
        row = ProximityScan.objects.get(repository_id=repo_id)
        assert row.status == "running"
        assert not ProximityAdvisory.objects.exists()  # the store never committed
        with celery_worker_process(env, log):
            done = ProximityScan.objects.filter(repository_id=repo_id, status="done")
            assert wait_for(done.exists, timeout=150, step=0.5), log.read_text()[-3000:]
    finally:
        broker.stop()
    assert ProximityScan.objects.filter(repository_id=repo_id).count() == 1
    row = ProximityScan.objects.get(repository_id=repo_id)
    pairs = Counter(ProximityAdvisory.objects.values_list("agent_a_id", "agent_b_id"))
    assert sum(pairs.values()) == row.advisory_count > 100
    assert max(pairs.values()) == 1
    messages = Counter(
        TriggerMessage.objects.values_list("to_agent_id", "from_agent_id", "kind", "advisory_id")
    )
    assert not messages or max(messages.values()) == 1
