"""A clock that jumps (forwards past every expiry, backwards behind stored samples) and a
worktree deleted while the watcher reads: nothing crashes and what is stored stays sane."""

from __future__ import annotations

import math
import shutil
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from proximity.models import ProximityAdvisory, WorkingSetSnapshot
from proximity.services.lifecycle import snapshots_expire
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository
from tests.sources.gitrepo import build_scenario

pytestmark = pytest.mark.django_db


def _report(owner, agent: str, lines: list[list[int]], now) -> None:
    report = WorkingSetReport("web", agent, [file_entry("src/core.py", lines)], [])
    working_set_report(principal=owner, report=report, now=now)


def _sane(advisory: ProximityAdvisory) -> bool:
    rate = advisory.closure_rate
    return 0.0 <= advisory.risk <= 1.0 and (rate is None or math.isfinite(rate))


@pytest.fixture
def crossing(lead):
    """Two agents on overlapping lines, scanned twice a minute apart (so a history exists)."""
    repo = make_repository("web", scope="team-a")
    t0 = timezone.now()
    _report(lead.principal, "a1", [[1, 40]], t0)
    _report(lead.principal, "a2", [[30, 60]], t0)
    scan_run(repository_id=repo.pk, now=t0)
    _report(lead.principal, "a2", [[10, 60]], t0 + timedelta(minutes=1))
    scan_run(repository_id=repo.pk, now=t0 + timedelta(minutes=1))
    advisory = ProximityAdvisory.objects.get()
    assert advisory.closure_rate is not None
    assert _sane(advisory)
    return repo, t0 + timedelta(minutes=1)


def test_clock_jumping_back_uses_no_future_sample_and_stays_finite(crossing, lead) -> None:
    repo, t1 = crossing
    back = t1 - timedelta(hours=3)
    _report(lead.principal, "a1", [[1, 45]], back)
    scan = scan_run(repository_id=repo.pk, now=back)
    assert scan is not None
    assert scan.status == "done"
    advisory = ProximityAdvisory.objects.get(state__in=["open", "acknowledged"])
    # Every stored sample is in this clock's future: the rate is unknown, not a huge number.
    assert advisory.closure_rate is None
    assert advisory.trend == "steady"
    assert _sane(advisory)


def test_clock_jumping_forward_expires_everything_and_a_new_report_starts_clean(
    crossing, lead
) -> None:
    repo, t1 = crossing
    ahead = t1 + timedelta(days=30)
    assert snapshots_expire(now=ahead) == 1
    scan_run(repository_id=repo.pk, now=ahead)
    assert not ProximityAdvisory.objects.filter(state__in=["open", "acknowledged"]).exists()
    assert ProximityAdvisory.objects.get().state == "expired"
    _report(lead.principal, "a1", [[1, 40]], ahead)
    _report(lead.principal, "a2", [[5, 9]], ahead)
    scan_run(repository_id=repo.pk, now=ahead + timedelta(seconds=1))
    fresh = ProximityAdvisory.objects.get(state="open")
    assert fresh.first_seen >= ahead
    # The last sample is a month old, outside the history window: no stale slope.
    assert fresh.closure_rate is None
    assert all(_sane(a) for a in ProximityAdvisory.objects.all())


def test_a_report_dated_in_the_future_then_the_present_keeps_versions_growing(lead) -> None:
    make_repository("web", scope="team-a")
    now = timezone.now()
    _report(lead.principal, "a1", [[1, 5]], now + timedelta(days=365))
    _report(lead.principal, "a1", [[1, 6]], now)
    versions = list(WorkingSetSnapshot.objects.order_by("pk").values_list("version", flat=True))
    assert versions == [1, 2]


@pytest.fixture
def watched(tmp_path):
    scripted = build_scenario(tmp_path)
    repo = make_repository("scene", path=str(scripted.root), base_branch="main", watch=True)
    return scripted, repo


def _agents() -> set[str]:
    return set(WorkingSetSnapshot.objects.values_list("agent__agent_id", flat=True))


def test_a_deleted_worktree_is_reported_and_the_others_are_still_stored(watched) -> None:
    scripted, repo = watched
    shutil.rmtree(scripted.path("beta"))
    outcome = repository_watch_tick(repository_id=repo.pk)
    assert {"alpha", "gamma"} <= _agents()
    assert "beta" not in _agents()
    assert any("beta" in problem for problem in outcome.problems), outcome.problems


@pytest.mark.django_db(transaction=True)
def test_a_worktree_deleted_while_the_watcher_reads_never_breaks_a_tick(watched) -> None:
    scripted, repo = watched
    errors: list[BaseException] = []
    outcomes = []

    def ticks() -> None:
        try:
            outcomes.extend(repository_watch_tick(repository_id=repo.pk) for _ in range(4))
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connection.close()

    reader = threading.Thread(target=ticks)
    reader.start()
    shutil.rmtree(scripted.path("gamma"))
    reader.join(timeout=120)
    assert not errors
    assert len(outcomes) == 4
    after = repository_watch_tick(repository_id=repo.pk)
    assert any("gamma" in p for p in after.problems), after.problems
    assert after.agents >= 2
    assert {"alpha", "beta"} <= _agents()
