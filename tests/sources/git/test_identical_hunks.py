"""Two worktrees that made one change identically, read from real git (docs/DECISIONS.md,
"A hunk both branches made identically is no collision"): each verdict is git's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proximity.engine.airspace import scan
from proximity.sources.git.airspace import read_repository_airspace
from tests.engine.airspace.helpers import pair_link
from tests.sources.gitrepo import ScriptedRepo, numbered


def _merge_conflicts(root: Path, x: str, y: str) -> bool:
    """git's verdict on merging two branches: True when ``merge-tree`` reports a conflict."""
    args = ["git", "-C", str(root), "merge-tree", "--write-tree", x, y]
    code = subprocess.run(args, capture_output=True, check=False).returncode
    assert code in (0, 1), code
    return code == 1


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(60))
    repo.commit("base")
    for name in ("fixer", "picker", "rival"):
        repo.add_worktree(name)
    # fixer fixes lines 20-21 and works on at line 40; picker cherry-picks the fix, rival
    # changes the same two lines its own way
    repo.replace_lines("app/core.py", 20, 21, worktree="fixer", tag="fixed")
    fix = repo.commit("fix", worktree="fixer")
    repo.replace_lines("app/core.py", 40, 40, worktree="fixer", tag="more")
    repo.commit("more", worktree="fixer")
    repo.git("cherry-pick", fix, worktree="picker")
    repo.replace_lines("app/core.py", 20, 21, worktree="rival", tag="rival")
    repo.commit("rival", worktree="rival")
    return repo


def test_a_cherry_picked_change_is_clear_and_a_rival_change_of_its_lines_is_not(
    repo: ScriptedRepo,
) -> None:
    airspace = read_repository_airspace(repo.root, conflicts=False).to_airspace()
    entries = {a["agentId"]: a["files"] for a in airspace["agents"]}
    assert entries["picker"][0]["hunkIds"] == entries["fixer"][0]["hunkIds"][:1]
    result = scan(airspace, profile="radar-v1")
    twins = pair_link(result, "fixer", "picker")
    assert twins["channels"]["overlap"] == 0.0
    assert twins["level"] == "clear"
    assert not _merge_conflicts(repo.root, "fixer", "picker")
    rivals = pair_link(result, "fixer", "rival")
    assert rivals["channels"]["overlap"] == 1.0
    assert rivals["level"] == "resolution"
    assert _merge_conflicts(repo.root, "fixer", "rival")


def test_an_uncommitted_identical_edit_is_clear_too(repo: ScriptedRepo) -> None:
    # an agent typing the same fix into its worktree, not yet committed
    repo.add_worktree("typist")
    repo.replace_lines("app/core.py", 20, 21, worktree="typist", tag="fixed")
    result = scan(read_repository_airspace(repo.root, conflicts=False).to_airspace())
    typed = pair_link(result, "fixer", "typist")
    assert typed["channels"]["overlap"] == 0.0
    assert typed["level"] == "clear"


@pytest.mark.django_db
def test_the_stored_scan_of_a_watched_repository_agrees(repo: ScriptedRepo) -> None:
    from proximity.models import ProximityAdvisory, ProximityScan, Repository
    from proximity.services.scans import scan_run
    from proximity.services.watch import repository_watch_tick

    watched = Repository.objects.create(
        name="twins", scope="team-a", path=str(repo.root), watch=True, profile="radar-v1"
    )
    repository_watch_tick(repository_id=watched.pk)
    row = scan_run(repository_id=watched.pk)
    assert row is not None
    assert row.status == ProximityScan.Status.DONE
    raised = {
        frozenset((a.agent_a.agent_id, a.agent_b.agent_id)): a.band
        for a in ProximityAdvisory.objects.filter(repository=watched)
    }
    # an advisory is stored for Traffic and Resolution only: the twins have none
    assert frozenset(("fixer", "picker")) not in raised
    assert raised[frozenset(("fixer", "rival"))] == "resolution"
