"""Retention prunes old snapshots, scans and messages in batches, never advisories or
adjudications, and a report written during a large prune is not held up by it."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from proximity.models import (
    Adjudication,
    Agent,
    ProximityAdvisory,
    ProximityScan,
    TriggerMessage,
    WorkingSetSnapshot,
)
from proximity.services.retention import retention_prune
from proximity.services.scans import scan_run
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository
from tests.proximity.admin.factories import make_adjudicator, make_pair, make_version

pytestmark = pytest.mark.django_db(transaction=True)

LONG_AGO = timedelta(days=60)


def _report(owner, agent: str, lines: list[list[int]], now) -> WorkingSetSnapshot:
    report = WorkingSetReport("web", agent, [file_entry("src/core.py", lines)], [])
    return working_set_report(principal=owner, report=report, now=now)


@pytest.fixture
def history(lead):
    """Two months ago: three rounds of reports and scans with an advisory and its messages."""
    repo = make_repository("web", scope="team-a")
    old = timezone.now() - LONG_AGO
    for n in range(3):
        at = old + timedelta(minutes=n)
        _report(lead.principal, "a1", [[1, 40 + n]], at)
        _report(lead.principal, "a2", [[5, 9 + n]], at)
        assert scan_run(repository_id=repo.pk, now=at + timedelta(seconds=1)) is not None
    TriggerMessage.objects.update(created_at=old)
    a = make_version("T-1", lead.principal)
    b = make_version("T-2", lead.principal)
    pair = make_pair(a, b)
    Adjudication.objects.create(
        advisory=pair,
        reviewer=make_adjudicator("rev", scopes=["team-a"]),
        label="same_task",
        rationale="same deliverable",
        version_a=1,
        version_b=1,
        created_at=old,
    )
    return repo


def test_prune_keeps_advisories_adjudications_and_what_the_board_reads(history) -> None:
    advisories = list(ProximityAdvisory.objects.values())
    assert advisories
    assert TriggerMessage.objects.exists()
    assert WorkingSetSnapshot.objects.count() == 6
    outcome = retention_prune(batch=2)
    assert list(ProximityAdvisory.objects.values()) == advisories  # not even last_scan changed
    assert Adjudication.objects.count() == 1
    # The latest snapshot of each agent stays; the older versions go.
    kept = sorted(WorkingSetSnapshot.objects.values_list("agent__agent_id", "version"))
    assert kept == [("a1", 3), ("a2", 3)]
    assert outcome.snapshots == 4
    live_scan = ProximityAdvisory.objects.get().last_scan_id
    assert ProximityScan.objects.filter(pk=live_scan).exists()
    assert outcome.scans == 2
    assert not TriggerMessage.objects.exists()
    assert outcome.batches >= 2 + 1 + 1


def test_prune_is_idempotent_and_leaves_recent_rows(history, lead) -> None:
    recent = _report(lead.principal, "a3", [[100, 120]], timezone.now())
    retention_prune()
    assert retention_prune().snapshots == 0
    assert WorkingSetSnapshot.objects.filter(pk=recent.pk).exists()


def test_zero_days_keeps_forever(history, settings) -> None:
    settings.OVERLAP_RETAIN_SNAPSHOT_DAYS = 0
    settings.OVERLAP_RETAIN_SCAN_DAYS = 0
    settings.OVERLAP_RETAIN_MESSAGE_DAYS = 0
    assert retention_prune().batches == 0
    assert WorkingSetSnapshot.objects.count() == 6


def test_prune_command_reports_its_counts(history) -> None:
    out = StringIO()
    call_command("prune", "--batch", "3", stdout=out)
    assert out.getvalue().startswith("pruned 4 snapshots, 2 scans, ")


def test_a_report_during_a_large_prune_is_not_blocked(history, lead) -> None:
    agent = Agent.objects.get(agent_id="a1")
    old = timezone.now() - LONG_AGO
    WorkingSetSnapshot.objects.bulk_create(
        WorkingSetSnapshot(
            agent=agent,
            version=1000 + n,
            files=[],
            content_hash=f"{n:064d}",
            reported_at=old,
            expires_at=old,
        )
        for n in range(6000)
    )
    # The bulk rows are newer versions than a1's latest; make a real report the latest again.
    _report(lead.principal, "a1", [[1, 2]], timezone.now())
    done = threading.Event()

    def prune() -> None:
        try:
            retention_prune(batch=200)
        finally:
            connection.close()
            done.set()

    thread = threading.Thread(target=prune)
    thread.start()
    time.sleep(0.2)
    began = time.monotonic()
    _report(lead.principal, "a2", [[7, 30]], timezone.now())
    took = time.monotonic() - began
    still_pruning = not done.is_set()
    thread.join(timeout=120)
    assert done.is_set()
    assert took < 2.0, f"a report waited {took:.2f} s behind the prune"
    assert still_pruning, "the prune finished before the report: the test proved nothing"
    assert WorkingSetSnapshot.objects.filter(reported_at__lt=old + timedelta(days=1)).count() == 0
