"""The lines an edit plans are the lines it changes: context is not a change, an insertion is a
point. Checked against git's own merge: for each pair of edits (alice's uncommitted, bob's about
to be sent as Claude Code's ``Edit``), ``git merge-file`` on the three texts says whether they
conflict, and bob's hook must deny exactly those."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.agent.conftest import Scene, two_worktrees
from tests.agent.payloads import load

BASE = "".join(f"line {i}\n" for i in range(1, 61))


def _after(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line:line] = [new]
    return "".join(lines)


def _replace(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line - 1] = new
    return "".join(lines)


CASES = {
    "both insert after line 20": (_after(BASE, 20, "alice\n"), "line 20\n", "line 20\nbob\n"),
    "insertions two lines apart": (_after(BASE, 20, "alice\n"), "line 22\n", "line 22\nbob\n"),
    "both insert at the top": (_after(BASE, 0, "alice\n"), "line 1\n", "bob\nline 1\n"),
    "context on alice's line": (
        _replace(BASE, 21, "alice 21\n"),
        "line 21\nline 22\nline 23\n",
        "line 21\nline 22\nbob 23\n",
    ),
    "context beside alice's line": (
        _replace(BASE, 21, "alice 21\n"),
        "line 21\nline 22\n",
        "line 21\nbob 22\n",
    ),
    "an insertion after alice's line": (
        _replace(BASE, 21, "alice 21\n"),
        "line 21\n",
        "line 21\nbob\n",
    ),
}


def _git_conflicts(tmp: Path, alice: str, bob: str) -> bool:
    tmp.mkdir()
    for name, text in (("base", BASE), ("alice", alice), ("bob", bob)):
        (tmp / name).write_text(text)
    merged = subprocess.run(
        ["git", "merge-file", "-p", str(tmp / "bob"), str(tmp / "base"), str(tmp / "alice")],
        capture_output=True,
        check=False,
    )
    assert merged.returncode >= 0, merged.stderr
    return merged.returncode > 0


@pytest.fixture
def pair(tmp_path: Path, _state_dir: Path) -> Scene:
    made = two_worktrees(tmp_path, _state_dir)
    made.repo.write("core.py", BASE)
    made.repo.commit("sixty lines")
    for name in ("alice", "bob"):
        subprocess.run(["git", "-C", str(made.repo.path(name)), "merge", "-q", "main"], check=True)
    return made


@pytest.mark.parametrize("case", sorted(CASES))
def test_bob_is_denied_exactly_where_git_s_merge_would_conflict(
    pair: Scene, tmp_path: Path, case: str
) -> None:
    alice_text, old, new = CASES[case]
    (pair.alice / "core.py").write_text(alice_text)
    expected = _git_conflicts(tmp_path / "merge", alice_text, BASE.replace(old, new, 1))
    payload = load("claude_pre_edit", WORKTREE=str(pair.bob), FILE=str(pair.bob / "core.py"))
    payload["tool_input"].update(file_path=str(pair.bob / "core.py"), old_string=old,
                                 new_string=new)  # fmt: skip
    payload["tool_input"].pop("replace_all", None)
    run = pair.hook("claude", payload)
    assert run.returncode == 0
    decision = json.loads(run.stdout)["hookSpecificOutput"] if run.stdout else {}
    assert (decision.get("permissionDecision") == "deny") is expected, decision


def _bob_inserts_where_alice_inserted(pair: Scene, hours_ago: float) -> dict[str, str]:
    alice_text, old, new = CASES["both insert after line 20"]
    target = pair.alice / "core.py"
    target.write_text(alice_text)
    then = time.time() - hours_ago * 3600
    os.utime(target, (then, then))
    payload = load("claude_pre_edit", WORKTREE=str(pair.bob), FILE=str(pair.bob / "core.py"))
    payload["tool_input"].update(file_path=str(pair.bob / "core.py"), old_string=old,
                                 new_string=new)  # fmt: skip
    run = pair.hook("claude", payload)
    assert run.returncode == 0, run.stderr
    out: dict[str, str] = json.loads(run.stdout)["hookSpecificOutput"]
    return out


def test_an_insertion_at_the_point_of_a_days_old_insertion_is_still_denied(pair: Scene) -> None:
    """The same point is overlap, which does not decay (an abutting line would have)."""
    decision = _bob_inserts_where_alice_inserted(pair, hours_ago=60)
    assert decision["permissionDecision"] == "deny"
    assert "overlapping edits" in decision["permissionDecisionReason"]
    assert "you steer" in decision["permissionDecisionReason"]


def test_a_parked_agent_yields_so_the_active_one_holds_course(pair: Scene) -> None:
    """Alice started first but changed nothing for 200 hours (past radar-v1's 168): parked, she
    steers, and bob's edit goes ahead with the context naming her (docs/DECISIONS.md, "A parked
    branch yields"). The encounter is still a Resolution: the overlap does not decay."""
    decision = _bob_inserts_where_alice_inserted(pair, hours_ago=200)
    assert "permissionDecision" not in decision, decision
    context = decision["additionalContext"]
    assert "Resolution Advisory with alice" in context
    assert "you hold course (alice is parked: " in context
    assert "alice must steer away from core.py" in context
