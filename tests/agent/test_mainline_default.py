"""Without ``[radar] base`` the mainline is the repository's own: ``origin/HEAD``'s branch, else
``main``, else ``master``. Before, an unset base meant ``main``, and in a repository on ``master``
every worktree's read failed on the missing base: the radar saw nobody and each check read
"clear". Now such a repository is read as it is, and a read that still fails says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.sources.git.mainline import FALLBACK, default_mainline
from tests.agent.conftest import Scene
from tests.sources.gitrepo import ScriptedRepo, numbered, run_git


def _two_agents(tmp_path: Path, state: Path, base: str) -> Scene:
    """A repository whose only mainline is ``base``; alice changed core.py line 22."""
    repo = ScriptedRepo.create(tmp_path, base=base)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    alice = repo.add_worktree("alice")
    bob = repo.add_worktree("bob")
    repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    return Scene(repo, alice, bob, state)


@pytest.mark.parametrize(
    ("branches", "expected"),
    [
        (["main"], "main"),
        (["master"], "master"),
        (["master", "main"], "main"),
        (["trunk", "main/next"], FALLBACK),  # main/next is no main
        (["trunk", "main/next", "master"], "master"),
    ],
)
def test_a_local_repository_s_mainline_is_main_else_master(
    tmp_path: Path, branches: list[str], expected: str
) -> None:
    repo = ScriptedRepo.create(tmp_path, base=branches[0])
    repo.write("a.txt", "a\n")
    repo.commit("base")
    for name in branches[1:]:
        repo.git("branch", name)
    assert default_mainline(repo.root) == expected


@pytest.mark.parametrize(("local", "expected"), [(True, "develop"), (False, "origin/develop")])
def test_a_clone_s_mainline_is_its_remote_s_default_branch(
    tmp_path: Path, local: bool, expected: str
) -> None:
    """``git clone`` records the remote's default as origin/HEAD; a local branch of that name is
    the one worktrees fork from and merge into, else the remote-tracking branch."""
    origin = ScriptedRepo.create(tmp_path, base="develop", name="origin")
    origin.write("a.txt", "a\n")
    origin.commit("base")
    origin.git("branch", "main")  # a stale main beside the real default
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(origin.root), str(clone))
    if not local:
        run_git(clone, "checkout", "-q", "--detach")
        run_git(clone, "branch", "-q", "-D", "develop")
    assert default_mainline(clone) == expected


def test_a_repository_on_master_is_read_without_configuration(
    tmp_path: Path,
) -> None:
    scene = _two_agents(tmp_path, tmp_path / "radar-state", "master")
    assert not (scene.bob / ".radar.toml").exists()
    run = scene.radar("check", "core.py", "--lines", "22", cwd=scene.bob)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Resolution Advisory with alice" in run.stdout
    assert "Coverage" not in run.stdout


def test_a_read_that_fails_is_said_beside_clear_never_hidden(
    tmp_path: Path,
) -> None:
    """A mainline of none of the usual names, unconfigured: the reads fail on the missing base,
    and "clear" says what it could not see (once the base is set, alice is seen)."""
    scene = _two_agents(tmp_path, tmp_path / "radar-state", "trunk")
    run = scene.radar("check", "core.py", "--lines", "22", cwd=scene.bob)
    assert run.stdout.splitlines()[0] == "core.py: clear"
    assert "Coverage degraded:" in run.stdout
    assert "base branch 'main' not found" in run.stdout
    (scene.bob / ".radar.toml").write_text('[radar]\nbase = "trunk"\n')
    configured = scene.radar("check", "core.py", "--lines", "22", cwd=scene.bob)
    assert configured.returncode == 2, configured.stdout + configured.stderr
    assert "Resolution Advisory with alice" in configured.stdout
