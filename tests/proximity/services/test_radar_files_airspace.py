"""The server side of "radar's own files never enter the airspace": the watcher and the report
intake drop them, so hooks installed in every worktree raise no advisory (issue 27, point 3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proximity.agent.cli import main
from proximity.agent.install import SPECS
from proximity.models import ProximityAdvisory, Repository, WorkingSetSnapshot
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db

AGENTS = ("agent-1", "agent-2", "agent-3")


@pytest.fixture
def scripted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScriptedRepo:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("RADAR_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "home").mkdir()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("pkg/core.py", numbered(40))
    repo.commit("base")
    for name in AGENTS:
        repo.add_worktree(name)
    return repo


@pytest.mark.parametrize("harness", sorted(SPECS))
def test_each_harness_installed_everywhere_then_a_scan_without_edits_gives_no_advisory(
    scripted: ScriptedRepo, harness: str
) -> None:
    for name in AGENTS:
        for scope in (s for s in SPECS[harness].scopes if s != "user"):
            flags = ["--harness", harness, "--scope", scope, "--path", str(scripted.path(name))]
            assert main(["hooks", "install", *flags]) == 0
            assert main(["hooks", "install", *flags, "--repository", "shop"]) == 0  # backup
    repo = Repository.objects.create(
        name="shop", scope="shop-team", path=str(scripted.root), watch=True
    )
    outcome = repository_watch_tick(repository_id=repo.pk)
    assert outcome.agents == len(AGENTS) + 1
    assert all(s.files == [] for s in WorkingSetSnapshot.objects.all())
    scan = scan_run(repository_id=repo.pk)
    assert scan is not None
    assert scan.status == "done"
    assert ProximityAdvisory.objects.count() == 0


def test_a_report_carrying_hook_settings_stores_only_the_code() -> None:
    Repository.objects.create(name="shop", scope="shop-team")
    files = [
        {"path": ".claude/settings.json", "status": "A", "lines": [[1, 30]]},
        {"path": ".claude/settings.json.radar-backup-20261203T101010Z", "status": "A"},
        {"path": "pkg/core.py", "status": "M", "lines": [[3, 4]]},
    ]
    snapshot = working_set_report(
        principal=None, report=WorkingSetReport("shop", "agent-1", files, [])
    )
    assert [f["path"] for f in snapshot.files] == ["pkg/core.py"]
