"""The daemon's remembered working sets: the same answer as a fresh read, after every change."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from proximity.sources.git import read_working_sets
from proximity.sources.git.memo import WorkingSetMemo
from tests.sources.gitrepo import ScriptedRepo, numbered, repo_state


def _age(*paths: Path, seconds: float = 30.0) -> None:
    """Stamp files as modified ``seconds`` ago, past the racy window, as a quiet worktree is."""
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(40))
    repo.write("util.py", numbered(10))
    repo.commit("base")
    repo.add_worktree("alice")
    repo.add_worktree("bob")
    repo.replace_lines("core.py", 5, 6, worktree="alice", tag="alice")
    repo.write("notes.md", "draft\n", worktree="bob")
    _age(repo.path("alice") / "core.py", repo.path("bob") / "notes.md")
    return repo


def _check(repo: ScriptedRepo, memo: WorkingSetMemo) -> None:
    """The remembered read equals a fresh one, whatever the memo reused."""
    remembered = read_working_sets(repo.root, memo=memo)
    fresh = read_working_sets(repo.root)
    assert remembered == fresh


def test_an_unchanged_quiet_worktree_is_not_read_again(repo: ScriptedRepo) -> None:
    memo = WorkingSetMemo()
    _check(repo, memo)
    assert (memo.reads, memo.hits) == (3, 0)
    _check(repo, memo)
    assert (memo.reads, memo.hits) == (3, 3)


@pytest.mark.parametrize(
    "change",
    [
        "edit an already edited file again, same size",
        "edit a file nobody had changed",
        "stage a file",
        "commit on the branch",
        "add an untracked file",
        "edit an untracked file",
        "delete an edited file",
        "the base branch moves",
    ],
)
def test_every_kind_of_change_is_read_again(repo: ScriptedRepo, change: str) -> None:
    memo = WorkingSetMemo()
    _check(repo, memo)
    alice, bob = repo.path("alice"), repo.path("bob")
    if change == "edit an already edited file again, same size":
        repo.replace_lines("core.py", 5, 6, worktree="alice", tag="ALICE")
        _age(alice / "core.py", seconds=20.0)  # an old-looking stamp: only its value changed
    elif change == "edit a file nobody had changed":
        repo.replace_lines("util.py", 2, 2, worktree="alice", tag="alice")
    elif change == "stage a file":
        repo.git("add", "core.py", worktree="alice")
    elif change == "commit on the branch":
        repo.commit("alice's work", worktree="alice")
    elif change == "add an untracked file":
        repo.write("todo.txt", "x\n", worktree="alice")
    elif change == "edit an untracked file":
        repo.write("notes.md", "DRAFT\n", worktree="bob")
        _age(bob / "notes.md", seconds=20.0)
    elif change == "delete an edited file":
        (alice / "core.py").unlink()
    elif change == "the base branch moves":
        repo.replace_lines("util.py", 9, 9, tag="main")
        repo.commit("main moves")
    reads = memo.reads
    _check(repo, memo)
    assert memo.reads > reads


def test_a_file_modified_within_the_racy_window_is_never_trusted(repo: ScriptedRepo) -> None:
    memo = WorkingSetMemo()
    repo.replace_lines("core.py", 7, 7, worktree="alice", tag="now")  # stamped "now"
    _check(repo, memo)
    _check(repo, memo)
    # alice's worktree is read each time while its newest file is younger than RACY_S.
    assert (memo.reads, memo.hits) == (4, 2)


def test_the_memo_reads_only(repo: ScriptedRepo) -> None:
    before = repo_state(repo)
    memo = WorkingSetMemo()
    for _ in range(2):
        read_working_sets(repo.root, memo=memo)
    assert repo_state(repo) == before
