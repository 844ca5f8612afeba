"""An agent's start as git records it (docs/DECISIONS.md, "One right of way everywhere")."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from proximity.sources.git import explicit_worktrees, read_working_set
from proximity.sources.git.started import branch_start, worktree_admin_dir
from tests.sources.gitrepo import EPOCH, ScriptedRepo, numbered, run_git


def _at(epoch: int) -> dict[str, str]:
    return {"GIT_AUTHOR_DATE": f"@{epoch} +0000", "GIT_COMMITTER_DATE": f"@{epoch} +0000"}


def _when(epoch: int) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


def _repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(30))
    repo.commit("base")
    return repo


def _branch(repo: ScriptedRepo, name: str, made: int) -> Path:
    target = repo.root.parent / name
    run_git(repo.root, "worktree", "add", "-q", "-b", name, str(target), "main", env=_at(made))
    repo.worktrees[name] = target
    return target


def _start(repo: ScriptedRepo, name: str | None) -> datetime | None:
    return read_working_set(explicit_worktrees([(repo.path(name), "main")])[0]).started_at


def test_a_branch_starts_when_it_was_made_and_committing_or_rebasing_never_moves_it(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    _branch(repo, "alice", EPOCH + 1000)
    assert _start(repo, "alice") == _when(EPOCH + 1000)  # nothing changed yet: its creation
    repo.replace_lines("core.py", 3, 3, worktree="alice")
    assert _start(repo, "alice") == _when(EPOCH + 1000)  # not the file's time
    run_git(repo.path("alice"), "commit", "-qam", "x", env=_at(EPOCH + 5000))
    assert _start(repo, "alice") == _when(EPOCH + 1000)  # not the commit's time
    repo.replace_lines("core.py", 20, 20)
    repo.commit("main moves on")
    run_git(repo.path("alice"), "rebase", "-q", "main", env=_at(EPOCH + 9000))
    assert _start(repo, "alice") == _when(EPOCH + 1000)  # a rebase rewrites commit times
    assert branch_start(repo.root, "alice", "main") == _when(EPOCH + 1000)  # the server's read


def test_commits_older_than_the_branch_date_it_and_the_server_reads_the_same(
    tmp_path: Path,
) -> None:
    """A branch made from a commit dated earlier (work carried over) starts at that commit."""
    repo = _repo(tmp_path)
    _branch(repo, "bob", EPOCH + 3000)
    repo.replace_lines("core.py", 5, 5, worktree="bob")
    run_git(repo.path("bob"), "commit", "-qam", "x", env=_at(EPOCH + 2000))
    assert _start(repo, "bob") == _when(EPOCH + 2000)
    assert branch_start(repo.root, "bob", "main") == _when(EPOCH + 2000)
    assert branch_start(repo.root, "nobody", "main") is None  # the server cannot vouch


def test_without_a_reflog_the_worktrees_creation_dates_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    run_git(repo.root, "config", "core.logAllRefUpdates", "false")
    top = _branch(repo, "carol", EPOCH + 1000)
    admin = worktree_admin_dir(top)
    assert admin is not None
    os.utime(admin / "commondir", (EPOCH + 4000.7, EPOCH + 4000.7))
    assert _start(repo, "carol") == _when(EPOCH + 4000)  # whole seconds


def test_the_main_checkout_is_dated_by_its_files_not_the_repositorys_age(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    target = repo.write("core.py", numbered(31))
    os.utime(target, (EPOCH + 7000, EPOCH + 7000))
    assert _start(repo, None) == _when(EPOCH + 7000)


def test_a_name_that_is_no_branch_reads_no_file_outside_the_reflogs(tmp_path: Path) -> None:
    from proximity.sources.git.started import branch_created

    (tmp_path / "secret").write_text("0 1 x <y> 1234567890 +0000\tnot a reflog\n")
    common = tmp_path / "repo" / ".git"
    (common / "logs" / "refs" / "heads").mkdir(parents=True)
    assert branch_created(common, "../../../../secret") is None
    assert branch_start(tmp_path, "../secret", "main") is None
