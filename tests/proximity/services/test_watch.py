"""A watched repository: worktrees become snapshots, graph and conflicts; scans see them."""

from __future__ import annotations

import pytest

from proximity.models import (
    DependencyGraphSnapshot,
    ProximityAdvisory,
    Repository,
    WorkingSetSnapshot,
)
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from tests.sources.gitrepo import build_scenario, repo_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(tmp_path):
    scripted = build_scenario(tmp_path)
    repo = Repository.objects.create(
        name="scene", scope="team-a", path=str(scripted.root), base_branch="main", watch=True
    )
    return scripted, repo


def test_watch_tick_stores_every_worktree_graph_and_conflicts_read_only(watched) -> None:
    scripted, repo = watched
    before = repo_state(scripted)
    outcome = repository_watch_tick(repository_id=repo.pk)
    assert repo_state(scripted) == before
    agents = set(WorkingSetSnapshot.objects.values_list("agent__agent_id", flat=True))
    assert {"alpha", "beta", "gamma"} <= agents
    assert outcome.agents == len(agents)
    assert all(s.source == "watch" for s in WorkingSetSnapshot.objects.all())
    assert DependencyGraphSnapshot.objects.filter(repository=repo).count() == 1
    repo.refresh_from_db()
    pairs = {tuple(sorted((c["a"], c["b"]))) for c in repo.watch_conflicts}
    assert ("alpha", "beta") in pairs
    assert repo.scan_requested_at is not None


def test_a_second_tick_without_edits_stores_nothing_new(watched) -> None:
    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    count = WorkingSetSnapshot.objects.count()
    repository_watch_tick(repository_id=repo.pk)
    assert WorkingSetSnapshot.objects.count() == count


def test_scan_of_watched_repository_marks_textual_conflicts_and_carries_excerpts(watched) -> None:
    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    scan = scan_run(repository_id=repo.pk)
    assert scan is not None
    assert scan.status == "done"
    pair = ProximityAdvisory.objects.get(agent_a__agent_id="alpha", agent_b__agent_id="beta")
    assert pair.band == "resolution"
    assert pair.conflict is True
    shared = {f["path"]: f for f in pair.detail["sharedFiles"]}
    assert "app/core.py" in shared
    assert "+" in shared["app/core.py"]["a"]["excerpt"]
    assert "+" in shared["app/core.py"]["b"]["excerpt"]


def test_a_path_that_is_not_a_repository_is_reported_not_raised(tmp_path) -> None:
    repo = Repository.objects.create(name="x", scope="s", path=str(tmp_path), watch=True)
    outcome = repository_watch_tick(repository_id=repo.pk)
    assert outcome.agents == 0
    assert len(outcome.problems) == 1


def test_advisories_carry_a_labelled_calibrated_probability(watched) -> None:
    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    scan_run(repository_id=repo.pk)
    pair = ProximityAdvisory.objects.get(agent_a__agent_id="alpha", agent_b__agent_id="beta")
    assert 0.0 <= pair.calibrated_probability <= 1.0
    assert "locally selected" in pair.calibration_label
    assert "pypa/pip" in pair.calibration_label
    assert "fitted with scorer" not in pair.calibration_label  # the map matches SCORER_VERSION
