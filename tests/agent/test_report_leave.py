"""A worktree that is gone holds nothing on the server either: ``radar report --leave`` and a
``radar report --every`` whose worktree is removed retire its working set at once, where the
server used to keep it for the TTL (an hour by default) and deny others edits of lines that no
longer exist anywhere. The hook and the daemon already read worktrees at every answer
(tests/agent/test_daemon.py::test_a_worktree_that_is_gone_holds_nothing_at_the_next_answer)."""

from __future__ import annotations

import os
import select
import subprocess
from pathlib import Path

import pytest
from django.utils import timezone

from proximity.models import Repository, WorkingSetSnapshot
from proximity.selectors.airspace import current_snapshots
from tests.agent.conftest import RADAR, Scene, reporting_worktrees

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def remote(tmp_path: Path, _state_dir: Path, live_server, in_process_tasks):
    """alice (core.py line 22 changed) and bob in worktrees, both reporting to a live server."""
    scene, flags = reporting_worktrees(tmp_path, _state_dir, live_server.url)
    scene.repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    return scene, flags


def _held_by(name: str) -> bool:
    repo = Repository.objects.get(name="web")
    return name in {s.agent.agent_id for s in current_snapshots(repo, timezone.now())}


def _bob_asks(scene: Scene, flags: dict[str, list[str]]) -> subprocess.CompletedProcess[str]:
    return scene.radar("check", "core.py", "--lines", "22", *flags["bob"], cwd=scene.bob)


def test_a_leave_frees_the_lines_on_the_server_at_once(remote) -> None:
    scene, flags = remote
    assert scene.radar("report", *flags["alice"], cwd=scene.alice).returncode == 0
    denied = _bob_asks(scene, flags)
    assert denied.returncode == 2, denied.stdout + denied.stderr

    left = scene.radar("report", "--leave", *flags["alice"], cwd=scene.alice)
    again = scene.radar("report", "--leave", *flags["alice"], cwd=scene.alice)

    assert left.returncode == again.returncode == 0, left.stderr + again.stderr
    assert left.stdout.strip() == "left: alice's working set holds nothing from now"
    assert again.stdout.strip() == "left: alice held no working set"
    assert not _held_by("alice")
    clear = _bob_asks(scene, flags)
    assert clear.returncode == 0, clear.stdout + clear.stderr


def test_a_reporter_whose_worktree_is_removed_leaves_and_stops(remote) -> None:
    scene, flags = remote
    reporter = subprocess.Popen(
        [RADAR, "report", "--every", "1", *flags["alice"]],
        cwd=scene.alice,
        env={**os.environ, "RADAR_STATE_DIR": str(scene.state), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Its first report, read from its output: the test touches no table while it writes
        # (the tests' in-memory SQLite locks a table against a concurrent reader).
        ready, _, _ = select.select([reporter.stdout], [], [], 30)
        assert ready, "the reporter printed nothing in 30 s"
        assert reporter.stdout is not None
        first = reporter.stdout.readline()
        assert first.startswith("reported 1 file(s) as alice"), first

        scene.repo.git("worktree", "remove", "--force", str(scene.alice))
        rest, err = reporter.communicate(timeout=30)
    finally:
        reporter.kill()
    assert reporter.returncode == 0, err
    assert rest.splitlines()[-1] == "left: alice's working set holds nothing from now"
    assert not _held_by("alice")
    assert WorkingSetSnapshot.objects.filter(agent__agent_id="alice").count() == 1
    clear = _bob_asks(scene, flags)
    assert clear.returncode == 0, clear.stdout + clear.stderr


def test_a_leave_with_reporting_flags_is_refused_in_one_line(remote) -> None:
    scene, flags = remote
    assert scene.radar("report", *flags["alice"], cwd=scene.alice).returncode == 0
    refused = scene.radar("report", "--leave", "--every", "5", *flags["alice"], cwd=scene.alice)
    assert refused.returncode == 2
    assert refused.stderr == "radar: report --leave takes no --every, --count or --intent\n"
    assert _held_by("alice")
