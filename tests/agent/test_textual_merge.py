"""Deny what would conflict, not what is near (issue 28 points 2 and 5).

Constructed histories in real worktrees: alice (the holder: her branch is older) changed
core.py lines 40-44 and committed; bob (the steerer) changed line 52, not committed. Each of
bob's planned edits is decided by the hook (``git merge-file`` on the file as the edit leaves
it), by ``radar check`` and the server's check (git's rule on base-side hunks), and every
decision is compared with ``git merge-file``'s own verdict on the three versions: the file as
bob's edit leaves it, the common base, and alice's current file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proximity.agent.config import Policy
from proximity.agent.decide import decide
from tests.agent.conftest import Scene
from tests.agent.payloads import load
from tests.agent.test_right_of_way import _report, _server_check, dated_pair
from tests.factories import bind_agents, make_caller, make_repository


@pytest.fixture
def history(tmp_path: Path, _state_dir: Path) -> Scene:
    return dated_pair(tmp_path, _state_dir, (40, 44), 52)


def _after(scene: Scene, who: str, line: int) -> str:
    """``who``'s core.py as replacing line ``line`` leaves it."""
    lines = scene.repo.read("core.py", worktree=who).splitlines(keepends=True)
    lines[line - 1] = f"{who} planned {line}\n"
    return "".join(lines)


def _git_verdict(scene: Scene, line: int, tmp_path: Path) -> str:
    """``git merge-file`` on (bob's file after the edit, main's file, alice's file)."""
    versions = {
        "ours": _after(scene, "bob", line),
        "base": scene.repo.git("show", "main:core.py"),
        "theirs": scene.repo.read("core.py", worktree="alice"),
    }
    for name, text in versions.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    args = ["git", "merge-file", "-p", "-q", *(str(tmp_path / n) for n in versions)]
    code = subprocess.run(args, capture_output=True, check=False).returncode
    return "clean" if code == 0 else "conflict"


def _hook_edit(scene: Scene, who: str, old: str, new: str) -> dict[str, Any]:
    top = scene.repo.path(who)
    payload = load("claude_pre_edit", WORKTREE=str(top), FILE=str(top / "core.py"))
    payload["tool_input"].update(file_path=str(top / "core.py"), old_string=old, new_string=new)
    run = scene.hook("claude", payload)
    assert (run.returncode, run.stderr) == (0, "")
    return dict(json.loads(run.stdout)["hookSpecificOutput"]) if run.stdout else {}


def _denied(answer: dict[str, Any]) -> bool:
    return answer.get("permissionDecision") == "deny"


# (bob's planned line, git's verdict): one unchanged line apart merges; touching or sharing a
# line conflicts. Each case is also checked against git itself below.
CASES = [(46, "clean"), (45, "conflict"), (42, "conflict"), (39, "conflict"), (38, "clean")]


@pytest.mark.parametrize(("line", "expected"), CASES)
def test_the_hook_denies_the_steerer_exactly_when_git_would_conflict(
    history: Scene, tmp_path: Path, line: int, expected: str
) -> None:
    verdict = _git_verdict(history, line, tmp_path)
    assert verdict == expected
    answer = _hook_edit(history, "bob", f"line {line}\n", f"bob planned {line}\n")
    assert _denied(answer) == (verdict == "conflict")
    if verdict == "conflict":
        assert "would conflict" in answer["permissionDecisionReason"]
    check = history.radar("check", str(history.bob / "core.py"), "--lines", str(line))
    assert ("would collide" in check.stdout) == (verdict == "conflict"), check.stdout


@pytest.mark.parametrize(("line", "expected"), CASES)
def test_lines_changed_days_ago_are_judged_as_git_would_not_forgotten(
    tmp_path: Path, line: int, expected: str
) -> None:
    """alice committed her lines three days ago (not parked: that takes a week). git conflicts
    on a touching change however old it is; before airspace-2026.12.1 the adjacency channel
    decayed in hours, and bob's edits beside her lines (45, 39) passed, to conflict at merge."""
    old = dated_pair(tmp_path, tmp_path / "radar-state", (40, 44), 52, alice_ago=3 * 24 * 60)
    verdict = _git_verdict(old, line, tmp_path)
    assert verdict == expected
    answer = _hook_edit(old, "bob", f"line {line}\n", f"bob planned {line}\n")
    assert _denied(answer) == (verdict == "conflict"), answer
    check = old.radar("check", str(old.bob / "core.py"), "--lines", str(line))
    assert ("would collide" in check.stdout) == (verdict == "conflict"), check.stdout


@pytest.mark.django_db
def test_the_servers_check_denies_the_steerer_exactly_when_git_would_conflict(
    history: Scene, tmp_path: Path, post_json: Any
) -> None:
    make_repository("web", scope="team-a", path=str(history.repo.root))
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report(history, "alice", alice, post_json)
    _report(history, "bob", bob, post_json)
    seen = set()
    for line, _ in CASES:
        verdict = _git_verdict(history, line, tmp_path)
        result = _server_check(post_json, bob, "bob", line)
        assert (decide(result, Policy()).kind == "deny") == (verdict == "conflict")
        if verdict == "conflict":
            assert [f.textual for f in result.findings] == ["conflict"]
        seen.add(verdict)
    assert seen == {"clean", "conflict"}


def test_the_same_change_on_both_sides_merges_cleanly_so_the_steerer_is_told_not_denied(
    history: Scene, tmp_path: Path
) -> None:
    """bob makes alice's very change (a cherry-picked fix): the lines overlap, so the engine
    raises a Resolution, but git merges identical changes cleanly. The hook, which knows the
    edit's text, asks git and lets it go ahead as Traffic with the evidence; git agrees."""
    old = "".join(f"line {n}\n" for n in range(40, 45))
    new = "".join(f"alice {n}\n" for n in range(40, 45))
    versions = {
        "ours": history.repo.read("core.py", worktree="bob").replace(old, new),
        "base": history.repo.git("show", "main:core.py"),
        "theirs": history.repo.read("core.py", worktree="alice"),
    }
    for name, text in versions.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    args = ["git", "merge-file", "-p", "-q", *(str(tmp_path / n) for n in versions)]
    assert subprocess.run(args, capture_output=True, check=False).returncode == 0
    answer = _hook_edit(history, "bob", old, new)
    assert not _denied(answer)
    text = answer["additionalContext"]
    assert "Traffic Advisory with alice: overlapping edits" in text
    assert "git would merge these cleanly (alice changed core.py lines 40-44" in text


def test_the_holder_edits_next_to_the_steerers_lines_and_is_never_denied(history: Scene) -> None:
    """alice holds: her edit of line 51, touching bob's 52 (git would conflict), goes ahead
    with context; bob's edit of line 53, touching his own and one line from nobody, is silent
    or Traffic, never a denial by alice's lines 40-44."""
    answer = _hook_edit(history, "alice", "line 51\n", "alice planned 51\n")
    assert not _denied(answer)
    context = answer["additionalContext"]
    assert "you hold course; bob must steer away from core.py line 51" in context
    assert not _denied(_hook_edit(history, "bob", "line 53\n", "bob planned 53\n"))


def test_a_whole_file_write_keeps_the_conservative_rule(history: Scene) -> None:
    top = history.bob
    payload = load("claude_pre_write", WORKTREE=str(top), FILE=str(top / "core.py"))
    payload["tool_input"].update(file_path=str(top / "core.py"), content=_after(history, "bob", 46))
    run = history.hook("claude", payload)
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
