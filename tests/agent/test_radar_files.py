"""Radar's own files never enter the airspace: hooks installed in every worktree, no code edited,
and every reader sees nothing to report (issue 27, point 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from proximity.agent.cli import main
from proximity.agent.config import ConfigError, load_config
from proximity.agent.harness_places import place
from proximity.agent.install import SPECS
from proximity.sources.git import read_working_sets
from proximity.sources.radar_files import (
    RADAR_FILES,
    is_radar_file,
    repository_ignore_globs,
    without_radar_files,
)
from tests.agent.conftest import RADAR
from tests.sources.gitrepo import ScriptedRepo, numbered, run_git

HARNESS_SCOPES = [(h, s) for h, spec in sorted(SPECS.items()) for s in spec.scopes if s != "user"]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScriptedRepo:
    """main plus three linked worktrees, nothing edited; git reads no global ignore file."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "home").mkdir()
    scripted = ScriptedRepo.create(tmp_path)
    scripted.write("core.py", numbered(40))
    scripted.commit("base")
    for name in ("agent-1", "agent-2", "agent-3"):
        scripted.add_worktree(name)
    return scripted


def _install(worktree: Path, harness: str, scope: str, *flags: str) -> None:
    args = ["hooks", "install", "--harness", harness, "--scope", scope, "--path", str(worktree)]
    assert main([*args, *flags]) == 0


def _files(repo: ScriptedRepo) -> dict[str, list[str]]:
    return {ws.agent_id: [f.path for f in ws.files] for ws in read_working_sets(repo.root)}


@pytest.mark.parametrize(("harness", "scope"), HARNESS_SCOPES)
def test_every_file_an_install_writes_into_a_worktree_is_radar_own(
    tmp_path: Path, harness: str, scope: str
) -> None:
    written = SPECS[harness].path(tmp_path, scope).relative_to(tmp_path).as_posix()
    assert written in RADAR_FILES
    assert is_radar_file(written)
    assert is_radar_file(f"{written}.radar-backup-20261203T101010Z-2")


@pytest.mark.parametrize(("harness", "scope"), HARNESS_SCOPES)
def test_hooks_installed_in_every_worktree_with_backups_leave_every_working_set_empty(
    repo: ScriptedRepo, harness: str, scope: str
) -> None:
    for name in ("agent-1", "agent-2", "agent-3"):
        worktree = repo.path(name)
        _install(worktree, harness, scope)
        # a second install with other flags changes the file, so a backup is written beside it
        _install(worktree, harness, scope, "--repository", "shop")
        written = place(SPECS[harness], scope, str(worktree)).path  # Codex: the main checkout's
        assert list(written.parent.glob(f"{written.name}.radar-backup-*"))
    assert _files(repo) == {"main": [], "agent-1": [], "agent-2": [], "agent-3": []}
    # and the linked worktrees' git status shows none of it either (the shared exclude file)
    assert run_git(repo.path("agent-2"), "status", "--porcelain") == ""


def test_asking_about_a_hook_settings_file_is_clear_not_an_advisory(repo: ScriptedRepo) -> None:
    for name in ("agent-1", "agent-2"):
        _install(repo.path(name), "claude", "project")
        _install(repo.path(name), "claude", "project", "--repository", "shop")
    import subprocess

    answer = subprocess.run(
        [RADAR, "check", ".claude/settings.json"],
        cwd=repo.path("agent-2"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert answer.returncode == 0, answer.stdout + answer.stderr


def test_the_exclude_file_is_the_one_git_reads_for_a_linked_worktree(repo: ScriptedRepo) -> None:
    worktree = repo.path("agent-1")
    _install(worktree, "gemini", "project")
    found = run_git(worktree, "rev-parse", "--git-path", "info/exclude").strip()
    exclude = Path(found) if Path(found).is_absolute() else worktree / found
    lines = exclude.read_text().splitlines()
    assert "/.gemini/settings.json" in lines
    assert "*.radar-backup-*" in lines
    _install(worktree, "gemini", "project", "--repository", "shop")  # idempotent
    assert exclude.read_text().splitlines() == lines


def test_a_tracked_settings_file_changed_by_the_install_is_still_nobodys_work(
    repo: ScriptedRepo,
) -> None:
    # the team committed its Claude settings on main; each install then modifies a tracked file
    repo.write(".claude/settings.json", json.dumps({"permissions": {"allow": []}}))
    repo.commit("team settings")
    fresh = repo.add_worktree("agent-4")
    _install(fresh, "claude", "project")
    assert run_git(fresh, "status", "--porcelain").strip() == "M .claude/settings.json"
    assert _files(repo)["agent-4"] == []


def test_repository_ignore_globs_come_from_radar_toml(repo: ScriptedRepo) -> None:
    repo.write(".radar.toml", '[radar]\nignore = ["*.lock", "notes/"]\n')
    repo.commit("radar config")
    worktree = repo.add_worktree("agent-5")
    (worktree / "notes").mkdir()
    (worktree / "notes" / "todo.md").write_text("x\n")
    (worktree / "poetry.lock").write_text("x\n")
    (worktree / "app.py").write_text("x\n")
    config = load_config(worktree)
    assert config.ignore == ("*.lock", "notes/")
    sets = {ws.agent_id: ws for ws in read_working_sets(repo.root, ignore=config.ignore)}
    assert [f.path for f in sets["agent-5"].files] == ["app.py"]
    # the watcher reads the globs as committed on the base branch, not from any worktree
    assert repository_ignore_globs(str(repo.root), base="main") == ("*.lock", "notes/")
    (worktree / ".radar.toml").write_text('[radar]\nignore = ["*"]\n')
    assert repository_ignore_globs(str(repo.root), base="main") == ("*.lock", "notes/")


@pytest.mark.parametrize("value", ['"*.lock"', "[1]", '[""]'])
def test_a_malformed_ignore_list_is_a_config_error_naming_it(tmp_path: Path, value: str) -> None:
    (tmp_path / ".radar.toml").write_text(f"[radar]\nignore = {value}\n")
    with pytest.raises(ConfigError, match=r"radar\.ignore"):
        load_config(tmp_path)


def test_report_entries_drop_radar_files_and_keep_the_rest() -> None:
    entries = [
        {"path": ".claude/settings.local.json"},
        {"path": "app/.settings.json.radar-backup-20261203T000000Z"},
        {"path": ".claude/agents/reviewer.md"},
        {"path": "app/core.py"},
    ]
    kept = without_radar_files(entries)
    assert [e["path"] for e in kept] == [".claude/agents/reviewer.md", "app/core.py"]
