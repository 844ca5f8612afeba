from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proximity.sources.git import GitError, read_working_sets
from tests.sources.gitrepo import ScriptedRepo, build_scenario, numbered, repo_state

UNCOMMITTED = "2023-11-15T01:00:00Z"  # SCENARIO_MTIME
COMMIT_2 = "2023-11-14T22:15:20Z"
COMMIT_3 = "2023-11-14T22:16:20Z"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> ScriptedRepo:
    return build_scenario(tmp_path_factory.mktemp("scene"))


@pytest.fixture(scope="module")
def with_ids(scenario: ScriptedRepo) -> dict[str, Any]:
    return {ws.agent_id: ws.to_agent_json() for ws in read_working_sets(scenario.root)}


def _bare(files: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in f.items() if k != "hunkIds"} for f in files]


@pytest.fixture(scope="module")
def agents(with_ids: dict[str, Any]) -> dict[str, Any]:
    """The entries without their hunk ids (digests, checked on their own below)."""
    return {name: {**agent, "files": _bare(agent["files"])} for name, agent in with_ids.items()}


def test_a_hunk_read_from_git_carries_the_digest_of_its_text(with_ids: dict[str, Any]) -> None:
    files = {f["path"]: f for a in with_ids.values() for f in a["files"]}
    for path in ("app/core.py", "app/util.py", "gone.txt", "app/beta_new.py"):
        assert len(files[path]["hunkIds"]) == len(files[path]["baseHunks"]), path
    # alpha and beta both changed app/core.py, on other lines: other text, other ids
    alpha = next(f for f in with_ids["alpha"]["files"] if f["path"] == "app/core.py")
    beta = next(f for f in with_ids["beta"]["files"] if f["path"] == "app/core.py")
    assert alpha["hunkIds"] != beta["hunkIds"]
    # an untracked file is read from disk, not from a diff: no ids, so nothing is set apart
    assert "hunkIds" not in files["notes/todo.txt"]


def test_committed_work_and_uncommitted_edit_are_both_visible(agents: dict[str, Any]) -> None:
    assert agents["alpha"] == {
        "agentId": "alpha",
        "label": "alpha",
        "startedAt": COMMIT_2,
        "files": [
            {"path": "app/core.py", "status": "M", "lines": [[3, 5]], "baseHunks": [[3, 3]],
             "touchedAt": COMMIT_2},
            {"path": "app/util.py", "status": "M", "lines": [[2, 2]], "baseHunks": [[2, 1]],
             "touchedAt": UNCOMMITTED},
        ],
    }  # fmt: skip


def test_unstaged_edit_and_staged_new_file_are_visible(agents: dict[str, Any]) -> None:
    assert agents["beta"]["files"] == [
        {"path": "app/beta_new.py", "status": "A", "lines": [[1, 4]], "baseHunks": [[0, 0]],
         "touchedAt": UNCOMMITTED},
        {"path": "app/core.py", "status": "M", "lines": [[4, 6]], "baseHunks": [[4, 3]],
         "touchedAt": UNCOMMITTED},
    ]  # fmt: skip


def test_rename_deletion_binary_untracked_and_quoted_path(agents: dict[str, Any]) -> None:
    assert agents["gamma"]["files"] == [
        {"path": "gone.txt", "status": "D", "baseHunks": [[1, 5]], "touchedAt": UNCOMMITTED},
        {"path": "logo.bin", "status": "M", "touchedAt": UNCOMMITTED},
        {"path": "new_name.txt", "status": "R", "oldPath": "old_name.txt", "touchedAt": COMMIT_3},
        {"path": "notes/todo.txt", "status": "A", "lines": [[1, 3]], "baseHunks": [[0, 0]],
         "touchedAt": UNCOMMITTED},
        {"path": "spaced dir/na\u00efve file.txt", "status": "M", "lines": [[2, 2]],
         "baseHunks": [[2, 1]], "touchedAt": UNCOMMITTED},
    ]  # fmt: skip


def test_ignored_files_are_not_part_of_the_working_set(agents: dict[str, Any]) -> None:
    assert "debug.log" not in {f["path"] for f in agents["gamma"]["files"]}


def test_base_only_change_after_the_fork_is_excluded(agents: dict[str, Any]) -> None:
    for agent in agents.values():
        assert "docs/guide.md" not in {f["path"] for f in agent["files"]}
        for entry in agent["files"]:
            if entry["path"] == "app/core.py":
                assert [20, 1] not in entry["baseHunks"]
    assert agents["main"]["files"] == []


def test_detached_head_gets_folder_agent_id_and_a_warning(scenario: ScriptedRepo) -> None:
    sets = {ws.agent_id: ws for ws in read_working_sets(scenario.root)}
    delta = sets["detached:delta"]
    assert delta.branch is None
    assert delta.errors == ()
    assert "detached HEAD" in delta.warnings[0]
    assert _bare(delta.to_agent_json()["files"]) == [
        {"path": "app/core.py", "status": "M", "lines": [[7, 7]], "baseHunks": [[7, 1]],
         "touchedAt": UNCOMMITTED},
    ]  # fmt: skip


def test_merge_base_is_the_fork_point_not_the_base_tip(scenario: ScriptedRepo) -> None:
    sets = {ws.agent_id: ws for ws in read_working_sets(scenario.root)}
    fork = scenario.git("rev-parse", "main~1").strip()
    assert sets["alpha"].merge_base == fork
    assert sets["main"].merge_base == scenario.git("rev-parse", "main").strip()


def test_reading_changes_no_index_ref_or_status(scenario: ScriptedRepo) -> None:
    before = repo_state(scenario)
    read_working_sets(scenario.root)
    assert repo_state(scenario) == before


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        read_working_sets(tmp_path)


def test_missing_base_names_the_worktree_and_others_are_read(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("feature")
    repo.replace_lines("a.txt", 1, 1, worktree="feature")
    sets = read_working_sets(worktrees=[(repo.root, "trunk"), (repo.path("feature"), "main")])
    by_id = {ws.agent_id: ws for ws in sets}
    assert by_id["main"].errors == (f"{repo.root} (main): base branch 'trunk' not found",)
    assert [f.path for f in by_id["feature"].files] == ["a.txt"]


def test_deleted_worktree_folder_is_reported_and_others_are_read(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("lost")
    repo.add_worktree("kept")
    repo.replace_lines("a.txt", 2, 2, worktree="kept")
    shutil.rmtree(repo.path("lost"))
    by_id = {ws.agent_id: ws for ws in read_working_sets(repo.root)}
    assert "worktree directory is missing" in by_id["lost"].errors[0]
    assert str(repo.path("lost")) in by_id["lost"].errors[0]
    assert [f.lines for f in by_id["kept"].files] == [((2, 2),)]


def test_deletion_only_hunk_keeps_its_position_instead_of_whole_file(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(10))
    repo.commit("base")
    repo.add_worktree("cut")
    repo.delete_lines("a.txt", 4, 6, worktree="cut")
    (ws,) = [ws for ws in read_working_sets(repo.root) if ws.agent_id == "cut"]
    assert ws.files[0].base_hunks == ((4, 3),)
    assert ws.files[0].lines == ((3, 3),)


def test_untracked_path_that_is_not_a_file_is_named_and_kept_whole(tmp_path: Path) -> None:
    """Works as root (CI): a nested repository is listed by git as one untracked path ``sub/``,
    a directory, which the reader cannot read as a file whatever its permissions. (git does
    not list an untracked FIFO at all, so a FIFO cannot reach this branch.)"""
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("w")
    (repo.path("w") / "dangling").symlink_to("nowhere")
    nested = repo.path("w") / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    (nested / "x.txt").write_text("x\n")
    (ws,) = [ws for ws in read_working_sets(repo.root) if ws.agent_id == "w"]
    assert {f.path for f in ws.files} == {"dangling", "vendor/lib/"}
    kept = ws.file("vendor/lib/")
    assert kept is not None
    assert (kept.status, kept.untracked, kept.whole_file) == ("A", True, True)
    mode = oct(nested.lstat().st_mode)
    assert ws.errors == (
        f"{repo.path('w')} (w): vendor/lib/: unreadable (not a regular file (mode {mode}));"
        " kept as a whole-file edit",
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a mode-000 file; see the test above")
def test_unreadable_untracked_file_is_named_and_kept_whole(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("w")
    repo.write("secret.txt", "x\n", worktree="w").chmod(0)
    (ws,) = [ws for ws in read_working_sets(repo.root) if ws.agent_id == "w"]
    secret = ws.file("secret.txt")
    assert secret is not None
    assert secret.whole_file
    assert ws.errors == (
        f"{repo.path('w')} (w): secret.txt: unreadable (Permission denied);"
        " kept as a whole-file edit",
    )


def test_committed_deletion_is_dated_by_its_commit(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.write("b.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("w")
    (repo.path("w") / "b.txt").unlink()
    repo.commit("w: drop b", worktree="w")
    (ws,) = [ws for ws in read_working_sets(repo.root) if ws.agent_id == "w"]
    assert _bare(ws.to_agent_json()["files"]) == [
        {"path": "b.txt", "status": "D", "baseHunks": [[1, 3]], "touchedAt": COMMIT_2}
    ]


def test_branch_description_becomes_the_agent_label(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("fix/login.v2")
    repo.git("config", "branch.fix/login.v2.description", "Fix the login form\nmore detail")
    labels = {ws.agent_id: ws.to_agent_json()["label"] for ws in read_working_sets(repo.root)}
    assert labels == {"fix/login.v2": "Fix the login form", "main": "main"}


def _published(repo: ScriptedRepo) -> dict[str, bool]:
    return {ws.agent_id: ws.published for ws in read_working_sets(repo.root)}


def test_work_is_published_when_committed_and_its_head_is_on_a_remote(tmp_path: Path) -> None:
    """Published (docs/DECISIONS.md, "Published work waits on review"): every change committed
    and the head pushed as it is. A staged or unstaged edit, an untracked file, a commit after
    the push, or a branch the remote dropped (``fetch --prune``) each make it local again."""
    repo = ScriptedRepo.create(tmp_path / "r")
    repo.write("core.py", numbered(30))
    repo.commit("base")
    repo.add_worktree("alice")
    repo.replace_lines("core.py", 5, 5, worktree="alice", tag="alice")
    repo.commit("alice: 5", worktree="alice")
    assert _published(repo)["alice"] is False  # no remote at all
    repo.push("alice")
    assert _published(repo)["alice"] is True
    entry = next(ws for ws in read_working_sets(repo.root) if ws.agent_id == "alice")
    assert entry.to_agent_json()["published"] is True
    # radar's own files (a hook install) are nobody's work: still published
    (repo.path("alice") / ".claude").mkdir()
    (repo.path("alice") / ".claude" / "settings.json").write_text("{}\n")
    assert _published(repo)["alice"] is True
    repo.replace_lines("core.py", 7, 7, worktree="alice", tag="more")
    assert _published(repo)["alice"] is False  # an unstaged edit
    repo.git("add", "core.py", worktree="alice")
    assert _published(repo)["alice"] is False  # staged, not committed
    repo.git("checkout", "HEAD", "--", "core.py", worktree="alice")
    (repo.path("alice") / "notes.txt").write_text("draft\n")
    assert _published(repo)["alice"] is False  # an untracked file
    (repo.path("alice") / "notes.txt").unlink()
    assert _published(repo)["alice"] is True
    repo.replace_lines("core.py", 9, 9, worktree="alice", tag="later")
    repo.commit("alice: 9", worktree="alice")
    assert _published(repo)["alice"] is False  # committed after the push
    repo.push("alice")
    assert _published(repo)["alice"] is True
    repo.git("update-ref", "-d", "refs/remotes/origin/alice")  # as `git fetch --prune` after
    assert _published(repo)["alice"] is False  # the remote's branch was deleted
    # the main checkout with nothing of its own is never published
    assert _published(repo)["main"] is False
