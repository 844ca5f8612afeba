from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proximity.sources.git import Conflict, DryRun, dry_run_conflicts, read_working_sets
from proximity.sources.git.dryrun import cannot_conflict
from tests.sources.gitrepo import ScriptedRepo, build_scenario, numbered, repo_state


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> ScriptedRepo:
    return build_scenario(tmp_path_factory.mktemp("scene"))


def test_overlapping_and_touching_edits_conflict_separated_ones_do_not(
    scenario: ScriptedRepo,
) -> None:
    result = dry_run_conflicts(read_working_sets(scenario.root))
    # alpha 3-5 (committed) vs beta 4-6 (unstaged): overlap. beta 4-6 vs delta 7: touching,
    # which git refuses to merge. alpha 3-5 vs delta 7: one unchanged line apart, clean.
    assert result.conflicts == (
        Conflict("alpha", "beta", ("app/core.py",)),
        Conflict("beta", "detached:delta", ("app/core.py",)),
    )
    # main forked elsewhere (4 pairs); alpha, beta and delta share core.py (3 pairs); gamma's
    # paths are disjoint from theirs, so those 3 merges are provably clean and skipped
    assert result.pairs_checked == 7
    assert result.errors == ()
    assert result.to_options() == [
        {"a": "alpha", "b": "beta", "files": ["app/core.py"]},
        {"a": "beta", "b": "detached:delta", "files": ["app/core.py"]},
    ]


def test_dry_run_changes_no_worktree_index_ref_or_object(scenario: ScriptedRepo) -> None:
    sets = read_working_sets(scenario.root)
    before = repo_state(scenario)
    dry_run_conflicts(sets)
    assert repo_state(scenario) == before


def test_untracked_files_on_both_sides_conflict_as_add_add(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("x")
    repo.add_worktree("y")
    repo.write("new.txt", "from x\n", worktree="x")
    repo.write("new.txt", "from y\n", worktree="y")
    sets = read_working_sets(repo.root)
    assert dry_run_conflicts(sets).conflicts == (Conflict("x", "y", ("new.txt",)),)


def test_modify_delete_is_a_conflict_and_pairs_can_be_restricted(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    for name in ("x", "y", "z"):
        repo.add_worktree(name)
    (repo.path("x") / "a.txt").unlink()
    repo.replace_lines("a.txt", 1, 1, worktree="y")
    sets = read_working_sets(repo.root)
    assert dry_run_conflicts(sets, pairs=[("x", "y")]).conflicts == (
        Conflict("x", "y", ("a.txt",)),
    )
    assert dry_run_conflicts(sets, pairs=[("x", "z")]).pairs_checked == 0
    assert dry_run_conflicts(sets, pairs=[("x", "z")], exhaustive=True) == DryRun((), 1)


def test_broken_worktree_is_named_and_the_rest_still_merge(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    for name in ("x", "y", "gone"):
        repo.add_worktree(name)
    repo.replace_lines("a.txt", 2, 2, worktree="x", tag="x")
    repo.replace_lines("a.txt", 2, 2, worktree="y", tag="y")
    shutil.rmtree(repo.path("gone"))
    result = dry_run_conflicts(read_working_sets(repo.root))
    assert result.conflicts == (Conflict("x", "y", ("a.txt",)),)
    assert any("gone" in e and "missing" in e for e in result.errors)


def test_skipping_disjoint_pairs_gives_the_exhaustive_answer(scenario: ScriptedRepo) -> None:
    sets = read_working_sets(scenario.root)
    fast, full = dry_run_conflicts(sets), dry_run_conflicts(sets, exhaustive=True)
    assert fast.conflicts == full.conflicts
    assert (fast.pairs_checked, full.pairs_checked) == (7, 10)


def test_file_against_folder_of_the_same_name_is_merged_and_conflicts(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("x")
    repo.add_worktree("y")
    repo.write("docs", "a file named docs\n", worktree="x")
    repo.write("docs/index.md", "a folder named docs\n", worktree="y")
    sets = {ws.agent_id: ws for ws in read_working_sets(repo.root)}
    assert not cannot_conflict(sets["x"], sets["y"])
    (conflict,) = dry_run_conflicts(list(sets.values())).conflicts
    assert (conflict.a, conflict.b) == ("x", "y")
    assert conflict.files == ("docs",)


def test_branches_sharing_a_commit_are_always_merged(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("a.txt", numbered(3))
    repo.write("b.txt", numbered(3))
    repo.commit("base")
    repo.add_worktree("x")
    repo.replace_lines("a.txt", 1, 1, worktree="x")
    repo.commit("x: a.txt", worktree="x")
    repo.add_worktree("y", start="x")  # y is built on x's commit
    repo.replace_lines("b.txt", 1, 1, worktree="y")
    sets = {ws.agent_id: ws for ws in read_working_sets(repo.root)}
    assert sets["x"].commits == sets["y"].commits
    assert not cannot_conflict(sets["x"], sets["y"])
