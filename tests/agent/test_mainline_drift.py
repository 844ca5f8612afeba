"""The pre-edit hook against lines the mainline changed after the branch's merge base.

Real repositories and worktrees; every hook run is a fresh ``radar`` process fed Claude Code's
documented ``PreToolUse`` payload. The ground truth is git's own merge: for each planned edit,
the test makes it, commits it and asks ``git merge-tree`` whether the branch now conflicts with
``main``; the hook must deny exactly those edits.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.agent.conftest import Scene, two_worktrees
from tests.agent.payloads import load
from tests.sources.gitrepo import repo_state, run_git


@pytest.fixture
def drifted(tmp_path: Path, _state_dir: Path) -> Scene:
    """bob forked from main; main then rewrote core.py lines 30-31 (no agent is live there)."""
    made = two_worktrees(tmp_path, _state_dir)
    made.repo.replace_lines("core.py", 30, 31, tag="mainline")
    made.repo.commit("Tidy the retry loop")
    return made


def _edit(scene: Scene, old: str, new: str = "changed\n", path: str = "core.py") -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / path))
    payload["tool_input"].update(file_path=str(scene.bob / path), old_string=old, new_string=new)
    payload["tool_input"].pop("replace_all", None)
    return payload


def _answer(scene: Scene, payload: dict) -> dict:
    run = scene.hook("claude", payload)
    assert (run.returncode, run.stderr) == (0, "")
    return json.loads(run.stdout)["hookSpecificOutput"] if run.stdout else {}


def _merge_conflicts(scene: Scene, old: str, new: str) -> bool:
    """Make the edit in a throwaway branch of bob's state and ask git's merge."""
    probe = scene.repo.add_worktree("probe", start="bob")
    text = (probe / "core.py").read_text()
    (probe / "core.py").write_text(text.replace(old, new, 1))
    run_git(probe, "commit", "-qam", "probe")
    merged = subprocess.run(
        ["git", "-C", str(probe), "merge-tree", "--write-tree", "main", "HEAD"],
        capture_output=True,
        check=False,
    )
    run_git(scene.repo.root, "worktree", "remove", "--force", str(probe))
    run_git(scene.repo.root, "branch", "-D", "probe")
    del scene.repo.worktrees["probe"]
    assert merged.returncode in {0, 1}, merged.stderr
    return merged.returncode == 1


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("line 30\n", "bob 30\n"),  # a line main rewrote
        ("line 29\n", "bob 29\n"),  # abuts main's change: git conflicts
        ("line 32\n", "bob 32\n"),  # abuts from below
        ("line 29\nline 30\nline 31\nline 32\n", "bob\n"),  # covers it
        ("line 34\n", "bob 34\n"),  # two lines away: git merges cleanly
        ("line 5\n", "bob 5\n"),
    ],
)
def test_the_hook_denies_exactly_the_edits_git_s_merge_would_conflict_on(
    drifted: Scene, old: str, new: str
) -> None:
    expected = _merge_conflicts(drifted, old, new)
    decision = _answer(drifted, _edit(drifted, old, new))
    assert (decision.get("permissionDecision") == "deny") is expected
    if expected:
        reason = decision["permissionDecisionReason"]
        assert "work already on main" in reason
        assert "main changed core.py lines 30-31" in reason
        assert "Tidy the retry loop" in reason  # the commit it would conflict with
        assert "git merge main" in reason
        assert "radar ack main" in reason


def test_a_denial_on_both_a_live_agent_and_the_mainline_names_both(drifted: Scene) -> None:
    drifted.repo.replace_lines("core.py", 30, 30, worktree="alice", tag="alice")
    reason = _answer(drifted, _edit(drifted, "line 30\n"))["permissionDecisionReason"]
    assert "another agent's work and work already on main" in reason
    assert "alice" in reason
    assert "Tidy the retry loop" in reason
    assert "radar ack alice main" in reason


def test_planned_lines_are_compared_in_the_base_s_numbering(drifted: Scene) -> None:
    # bob inserted five lines at the top: its current line 35 is the base's line 30
    drifted.repo.insert_after("core.py", 0, "a\nb\nc\nd\ne", worktree="bob")
    assert _answer(drifted, _edit(drifted, "line 30\n")).get("permissionDecision") == "deny"
    assert _answer(drifted, _edit(drifted, "line 36\n")) == {}  # base 36: clean


def test_bringing_main_in_clears_the_edit(drifted: Scene) -> None:
    assert _answer(drifted, _edit(drifted, "line 29\n"))["permissionDecision"] == "deny"
    run_git(drifted.bob, "merge", "-q", "main")
    assert _answer(drifted, _edit(drifted, "line 29\n")) == {}


def test_acknowledging_main_lets_the_edit_proceed_with_context(drifted: Scene) -> None:
    payload = _edit(drifted, "line 30\n")
    assert _answer(drifted, payload)["permissionDecision"] == "deny"
    ack = drifted.radar("ack", "main", "--note", "rewriting it on purpose")
    assert ack.returncode == 0
    assert "acknowledged the changes on main" in ack.stdout
    decision = _answer(drifted, payload)
    assert "permissionDecision" not in decision
    assert "main changed core.py lines 30-31" in decision["additionalContext"]


@pytest.mark.parametrize(("setting", "expected"), [("off", None), ("warn", "context")])
def test_the_repository_chooses_what_drift_does(
    drifted: Scene, setting: str, expected: str | None
) -> None:
    (drifted.bob / ".radar.toml").write_text(f'[policy]\ndrift = "{setting}"\n')
    decision = _answer(drifted, _edit(drifted, "line 30\n"))
    if expected is None:
        assert decision == {}
    else:
        assert "permissionDecision" not in decision
        assert "main changed core.py" in decision["additionalContext"]


def test_a_mainline_edit_of_a_file_bob_rewrites_whole_is_denied(drifted: Scene) -> None:
    payload = load("claude_pre_write", WORKTREE=str(drifted.bob), FILE=str(drifted.bob / "core.py"))
    payload["tool_input"].update(file_path=str(drifted.bob / "core.py"), content="new\n")
    assert _answer(drifted, payload)["permissionDecision"] == "deny"
    other = _edit(drifted, "line 3\n", path="util.py")  # main never touched util.py
    assert _answer(drifted, other) == {}


def test_a_missing_mainline_fails_open_and_says_so(drifted: Scene) -> None:
    (drifted.bob / ".radar.toml").write_text('[radar]\nbase = "trunk"\n')
    before = repo_state(drifted.repo)
    assert _answer(drifted, _edit(drifted, "line 30\n")) == {}
    assert "mainline 'trunk' was not checked" in (drifted.state / "hooks.log").read_text()
    assert repo_state(drifted.repo) == before


def test_radar_check_reports_drift_with_the_advisory_exit_code(drifted: Scene) -> None:
    run = drifted.radar("check", str(drifted.bob / "core.py"), "--lines", "30-30")
    assert run.returncode == 2, run.stderr
    assert "main changed core.py lines 30-31" in run.stdout
    clean = drifted.radar("check", str(drifted.bob / "core.py"), "--lines", "50-50")
    assert (clean.returncode, clean.stdout.strip()) == (0, "core.py: clear")


def test_deleting_what_main_deleted_is_clear_and_deleting_what_main_edited_is_denied(
    drifted: Scene,
) -> None:
    drifted.repo.git("rm", "-q", "util.py")
    drifted.repo.commit("Drop util.py")

    def rm(path: str) -> dict:
        payload = load("claude_pre_bash", WORKTREE=str(drifted.bob))
        payload["tool_input"]["command"] = f"rm {path}"
        return _answer(drifted, payload)

    assert rm("util.py") == {}  # git merges two deletions
    reason = rm("core.py")["permissionDecisionReason"]  # modify/delete: git conflicts
    assert "main changed core.py lines 30-31" in reason


def test_deleting_a_file_the_branch_itself_added_is_clear_as_git_merges_it(drifted: Scene) -> None:
    """A release branch: bob added news/2.txt with a cherry-picked fix, main has since added it
    too (the fix's own merge); bob now renames it away. Against the merge base bob leaves the
    path as it was, so git merges cleanly and the deletion is not denied; deleting a file the
    base had still is."""
    drifted.repo.write("news/2.txt", "Retry fix.\n")
    drifted.repo.commit("News for the retry fix")
    drifted.repo.write("news/2.txt", "Retry fix.\n", worktree="bob")
    drifted.repo.commit("bob: news", worktree="bob")

    def rm(path: str) -> dict:
        payload = load("claude_pre_bash", WORKTREE=str(drifted.bob))
        payload["tool_input"]["command"] = f"rm {path}"
        return _answer(drifted, payload)

    assert rm("news/2.txt") == {}
    probe = drifted.repo.add_worktree("probe", start="bob")
    run_git(probe, "rm", "-q", "news/2.txt")
    run_git(probe, "commit", "-qm", "probe: drop the news")
    merged = subprocess.run(
        ["git", "-C", str(probe), "merge-tree", "--write-tree", "main", "HEAD"],
        capture_output=True,
        check=False,
    )
    assert merged.returncode == 0, merged.stdout  # git agrees: no conflict
    assert "main changed core.py lines 30-31" in rm("core.py")["permissionDecisionReason"]


def test_codex_and_gemini_are_told_in_their_own_shapes(drifted: Scene) -> None:
    codex = load("codex_pre_apply_patch", WORKTREE=str(drifted.bob))
    codex["cwd"] = str(drifted.bob)
    codex["tool_input"]["command"] = (
        "*** Begin Patch\n*** Update File: core.py\n@@\n-line 30\n+LINE 30\n*** End Patch\n"
    )
    decision = json.loads(drifted.hook("codex", codex).stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "work already on main" in decision["permissionDecisionReason"]
    gemini = load(
        "gemini_before_replace", WORKTREE=str(drifted.bob), FILE=str(drifted.bob / "core.py")
    )
    gemini["tool_input"].update(
        file_path=str(drifted.bob / "core.py"), old_string="line 31\n", new_string="x\n"
    )
    answer = json.loads(drifted.hook("gemini", gemini).stdout)
    assert answer["decision"] == "deny"
    assert "main changed core.py lines 30-31" in answer["reason"]


def test_writing_a_file_exactly_as_main_added_it_is_clear(drifted: Scene) -> None:
    """A backport: git merges two identical additions cleanly, and different ones conflict."""
    drifted.repo.write("news/1.txt", "Fixed the retry loop.\n")
    drifted.repo.commit("News")

    def write(text: str) -> dict:
        target = drifted.bob / "news" / "1.txt"
        payload = load("claude_pre_write", WORKTREE=str(drifted.bob), FILE=str(target))
        payload["tool_input"].update(file_path=str(target), content=text)
        return _answer(drifted, payload)

    assert write("Fixed the retry loop.\n") == {}
    reason = write("Something else.\n")["permissionDecisionReason"]
    assert "main added news/1.txt" in reason


def test_an_edit_making_main_s_own_change_is_clear_as_git_merges_it(drifted: Scene) -> None:
    """A cherry-picked fix: bob's edit rewrites lines 30-31 exactly as main did. git merges two
    identical changes cleanly, so the hook lets it through; one letter different conflicts."""
    old = "line 30\nline 31\n"
    same = "mainline 30\nmainline 31\n"
    assert not _merge_conflicts(drifted, old, same)
    assert _answer(drifted, _edit(drifted, old, same)) == {}
    other = "mainline 30\nmainline 3l\n"
    assert _merge_conflicts(drifted, old, other)
    assert _answer(drifted, _edit(drifted, old, other))["permissionDecision"] == "deny"
