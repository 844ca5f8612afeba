"""The daemon's fast path: answers from remembered git reads, forgotten on every change.

Freshness bound (proximity.sources.git.readcache.FRESHNESS_S): an edit another agent made
1 s before a hook is always seen; in practice the notification arrives within milliseconds.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from proximity.sources.git.readcache import FRESHNESS_S
from tests.agent.conftest import Scene, daemon_status, wait_daemon
from tests.agent.payloads import load
from tests.agent.test_stalls import REAL_GIT
from tests.sources.gitrepo import run_git


def _edit(scene: Scene, old: str) -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(old_string=old, new_string="changed\n")
    return payload


def _decision(scene: Scene, payload: dict) -> tuple[str, str]:
    out = scene.hook("claude", payload).stdout
    if not out:
        return "clear", ""
    found = json.loads(out)["hookSpecificOutput"]
    return found["permissionDecision"], found["permissionDecisionReason"]


def _counting_git(folder: Path, log: Path) -> str:
    """A PATH folder whose ``git`` notes each call in ``log`` and runs the real one."""
    folder.mkdir()
    shim = folder / "git"
    shim.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {REAL_GIT} "$@"\n')
    shim.chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def _calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.mark.parametrize("watch", ["1", "0"])
def test_another_agents_edit_is_seen_within_the_freshness_bound(
    warm: Scene, monkeypatch: pytest.MonkeyPatch, watch: str
) -> None:
    monkeypatch.setenv("RADAR_DAEMON_WATCH", watch)  # "0": no notifications, git every call
    warm.hook("claude", _edit(warm, "line 40\n"))
    wait_daemon(warm, running=True)
    assert _decision(warm, _edit(warm, "line 40\n"))[0] == "clear"
    status = warm.radar("daemon", "status").stdout
    assert ("file notifications on" in status) == (watch == "1"), status
    assert "not watchable" not in status

    warm.repo.replace_lines("core.py", 40, 40, worktree="alice", tag="alice")  # uncommitted
    time.sleep(FRESHNESS_S)
    kind, reason = _decision(warm, _edit(warm, "line 40\n"))
    assert kind == "deny"
    assert "core.py lines 22, 40" in reason

    warm.repo.git("commit", "-qam", "alice 40", worktree="alice")  # the same, now committed
    time.sleep(FRESHNESS_S)
    assert _decision(warm, _edit(warm, "line 40\n"))[0] == "deny"

    warm.repo.replace_lines("core.py", 50, 50, tag="main")  # the mainline moves
    warm.repo.git("commit", "-qam", "main 50")
    time.sleep(FRESHNESS_S)
    kind, reason = _decision(warm, _edit(warm, "line 50\n"))
    assert kind == "deny"
    assert "main" in reason

    (warm.alice / "core.py").write_text((warm.bob / "core.py").read_text())  # alice reverts
    warm.repo.git("reset", "-q", "--hard", "HEAD~1", worktree="alice")
    time.sleep(FRESHNESS_S)
    assert _decision(warm, _edit(warm, "line 40\n"))[0] == "clear"


def test_a_push_is_seen_by_the_warm_daemon_within_the_freshness_bound(warm: Scene) -> None:
    """The remotes are read once per check and remembered like every other read; a push (which
    moves ``refs/remotes`` in the common git dir) is seen at once. alice's line, committed nine
    days ago, is parked until she pushes it; then it is published and holds (docs/DECISIONS.md,
    "Published work waits on review")."""
    stamp = f"@{int(time.time()) - 9 * 86400} +0000"
    env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    run_git(warm.alice, "commit", "-qam", "alice 22", env=env)
    warm.hook("claude", _edit(warm, "line 22\n"))
    wait_daemon(warm, running=True)
    out = warm.hook("claude", _edit(warm, "line 22\n")).stdout
    assert "alice is parked" in out  # bob holds: his edit goes ahead with context
    assert "permissionDecision" not in out
    warm.repo.push("alice")
    time.sleep(FRESHNESS_S)
    kind, reason = _decision(warm, _edit(warm, "line 22\n"))
    assert kind == "deny"
    assert "alice's work is published" in reason


def test_an_unchanged_airspace_is_answered_without_running_git(
    warm: Scene, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "git.log"
    monkeypatch.setenv("PATH", _counting_git(tmp_path / "shim", log))  # the daemon's PATH too
    deny = _edit(warm, "line 22\n")
    warm.hook("claude", deny)
    wait_daemon(warm, running=True)
    expected = warm.hook("claude", deny).stdout  # the daemon reads everything once
    time.sleep(1.5)  # past the working-set memo's racy window; the background refresh settles
    warm.hook("claude", deny)
    time.sleep(0.5)
    log.unlink(missing_ok=True)
    before = _calls(log)
    for _ in range(3):
        assert warm.hook("claude", deny).stdout == expected
    assert _calls(log) == before, log.read_text().splitlines()[before:]
    assert json.loads(expected)["hookSpecificOutput"]["permissionDecision"] == "deny"

    # Another agent edits: the daemon reads it in the background, and the hook after that finds
    # the new working sets ready; its git processes are the excerpt of alice's new change that
    # the denial quotes (read only for an advisory, on the paths it names) and git's merge
    # verdict on the shared file as the edit would leave it (issue 28: a steerer is denied only
    # where git would conflict; the planned text is new, so no remembered verdict answers).
    warm.repo.replace_lines("core.py", 30, 30, worktree="alice", tag="alice")
    time.sleep(3 * FRESHNESS_S)
    before = _calls(log)
    assert before > 0  # the background read ran git
    run = warm.hook("claude", _edit(warm, "line 30\n"))
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    during = log.read_text().splitlines()[before:]
    assert len(during) <= 2, during
    assert all(
        f"{warm.alice} diff --no-color" in call or " merge-file -p -q " in call for call in during
    ), during
    assert daemon_status(warm)["served"] >= 6
