"""Watch mode while nothing changes: the board's coverage stays "ok" (the watcher re-reports
unchanged worktrees every tick, which is no news); new, unscanned work and expired reports stay
loud (issue 27, point 6)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from proximity.models import ProximityScan, Repository, WorkingSetSnapshot
from proximity.selectors.board import board_scene
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(tmp_path, lead):
    scripted = ScriptedRepo.create(tmp_path)
    scripted.write("app/core.py", numbered(30))
    scripted.commit("base")
    for name, lines in (("agent-1", (3, 5)), ("agent-2", (4, 6))):
        scripted.add_worktree(name)
        scripted.replace_lines("app/core.py", *lines, worktree=name, tag=name)
    repo = Repository.objects.create(
        name="web", scope="team-a", path=str(scripted.root), watch=True
    )
    repository_watch_tick(repository_id=repo.pk)
    assert scan_run(repository_id=repo.pk) is not None
    return scripted, repo


def _coverage(lead):
    return board_scene(lead.principal, "web").coverage


def _age_the_scan(repo: Repository, seconds: int) -> None:
    """Time passes: the last scan finished ``seconds`` ago."""
    ProximityScan.objects.filter(repository=repo).update(
        finished_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_ticks_over_unchanged_worktrees_150_s_after_the_scan_keep_coverage_ok(
    watched, lead
) -> None:
    _, repo = watched
    assert _coverage(lead).status == "ok"
    _age_the_scan(repo, 150)
    snapshots = WorkingSetSnapshot.objects.count()
    repository_watch_tick(repository_id=repo.pk)  # re-reports both agents, nothing changed
    assert WorkingSetSnapshot.objects.count() == snapshots
    scan_run(repository_id=repo.pk)  # the same inputs: nothing new to score
    coverage = _coverage(lead)
    assert coverage.status == "ok", coverage.message


def test_new_work_the_scan_has_not_read_for_150_s_is_still_degraded(watched, lead) -> None:
    scripted, repo = watched
    _age_the_scan(repo, 150)
    scripted.replace_lines("app/core.py", 20, 21, worktree="agent-1", tag="later")
    repository_watch_tick(repository_id=repo.pk)  # a new snapshot; no worker scans it
    coverage = _coverage(lead)
    assert coverage.status == "degraded"
    assert "older than the newest report" in coverage.message


def test_an_expired_report_is_still_degraded_in_watch_mode(watched, lead) -> None:
    del watched  # the fixture read and scanned both worktrees
    WorkingSetSnapshot.objects.filter(agent__agent_id="agent-2").update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    coverage = _coverage(lead)
    assert coverage.status == "degraded"
    assert coverage.unknown_agents == ("agent-2",)
