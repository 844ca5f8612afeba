"""Storing a scan costs a number of queries that does not grow with the number of advisories."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from proximity.engine.airspace import SCORER_VERSION, scan
from proximity.models import (
    Agent,
    ProximityAdvisory,
    ProximityScan,
    Repository,
    TriggerCooldown,
    TriggerMessage,
)
from proximity.models import WorkingSetSnapshot as Snapshot
from proximity.selectors.airspace import airspace_inputs
from proximity.services.advisories import LIVE, advisories_apply_scan
from tests.factories import file_entry, make_repository

pytestmark = pytest.mark.django_db

SIZES = (5, 10, 20)
# Live advisories, bulk insert, (bulk update), cooldowns, message insert, cooldown upsert,
# webhook repository, resolve, expire: the same at every size (before issue 16: 192 / 857 / 3612).
FIRST_SCAN_QUERIES = 8
SECOND_SCAN_QUERIES = 9


def _report(agent: Agent, lines: list[list[int]], now: datetime, path: str = "src/app.py") -> None:
    latest = agent.snapshots.order_by("-version").first()
    Snapshot.objects.create(
        agent=agent,
        version=(latest.version + 1) if latest else 1,
        files=[file_entry(path, lines, excerpt=f"+ {agent.agent_id}")],
        intent=[],
        content_hash=f"{agent.agent_id}-{path}-{lines}",
        reported_at=now,
        expires_at=now + timedelta(hours=1),
    )


def _crowd(size: int, now: datetime) -> tuple[Repository, list[Agent]]:
    """``size`` agents all editing the same lines of one file: every pair is an advisory."""
    repo = make_repository("web", scope="team-a", webhook_url="https://hooks.example/radar")
    agents = [Agent.objects.create(repository=repo, agent_id=f"a{n:02d}") for n in range(size)]
    for n, agent in enumerate(agents):
        agent.started_at = now - timedelta(minutes=n)
        agent.save(update_fields=["started_at"])
        _report(agent, [[1, 60]], now)
    return repo, agents


def _store(repo: Repository, now: datetime) -> tuple[int, int]:
    """(queries, advisories) of one store of a fresh scan of ``repo`` at ``now``."""
    inputs = airspace_inputs(repo, now=now)
    result = scan(inputs.airspace, profile=repo.profile)
    row = ProximityScan.objects.create(
        repository=repo,
        input_hash=inputs.input_hash,
        profile=repo.profile,
        scorer_version=SCORER_VERSION,
        requested_at=now,
    )
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        stored = advisories_apply_scan(scan=row, result=result, snapshots=inputs.snapshots, now=now)
    return len(queries), len(stored)


def _second_scan_changes(repo: Repository, agents: list[Agent], now: datetime) -> None:
    """Half the pairs were Traffic (and cooled as Traffic, some acknowledged) so they escalate;
    one agent leaves the file (its pairs resolve) and a new one joins (new pairs)."""
    first = list(ProximityAdvisory.objects.order_by("pk").values_list("pk", "agent_a", "agent_b"))
    traffic = first[::2]
    ProximityAdvisory.objects.filter(pk__in=[pk for pk, _, _ in traffic]).update(
        band="traffic", state="acknowledged"
    )
    TriggerCooldown.objects.filter(to_agent__in=[a for _, a, _ in traffic]).update(band="traffic")
    _report(agents[-1], [[1, 5]], now, path="docs/other.md")
    newcomer = Agent.objects.create(repository=repo, agent_id="zz", started_at=now)
    _report(newcomer, [[1, 60]], now)


@pytest.mark.parametrize("size", SIZES)
def test_first_scan_store_queries_do_not_grow_with_advisories(size, record_property) -> None:
    now = timezone.now()
    repo, _ = _crowd(size, now)
    count, advisories = _store(repo, now)
    assert advisories == size * (size - 1) // 2
    record_property("queries", count)
    assert count == FIRST_SCAN_QUERIES, count


@override_settings(OVERLAP_TRIGGER_COOLDOWN_SECONDS=300)
@pytest.mark.parametrize("size", SIZES)
def test_second_scan_store_queries_do_not_grow_with_advisories(size, record_property) -> None:
    now = timezone.now()
    repo, agents = _crowd(size, now)
    _store(repo, now)
    later = now + timedelta(seconds=30)
    _second_scan_changes(repo, agents, later)
    sent_before = TriggerMessage.objects.count()
    count, _ = _store(repo, later)
    assert ProximityAdvisory.objects.filter(state="resolved").count() == size - 1
    assert not ProximityAdvisory.objects.filter(band="traffic", state__in=LIVE).exists()
    assert TriggerMessage.objects.count() > sent_before + 2 * size  # escalations and newcomer
    record_property("queries", count)
    assert count == SECOND_SCAN_QUERIES, count
