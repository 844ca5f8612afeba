"""The cross-machine reporter reads a real worktree and posts it to a live server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from proximity.models import WorkingSetSnapshot
from tests.factories import make_repository
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proximity.sources.report", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def worktree(tmp_path: Path) -> Path:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(30))
    repo.commit("base")
    repo.add_worktree("feature-x")
    repo.replace_lines("app/core.py", 5, 7, worktree="feature-x")  # uncommitted
    return repo.path("feature-x")


def test_reporter_posts_the_uncommitted_working_set_and_prints_messages(
    live_server, worktree, partial
) -> None:
    make_repository("web", scope="team-a")
    result = _run(
        "--server",
        live_server.url,
        "--token",
        partial.token,
        "--repository",
        "web",
        "--repo",
        str(worktree),
        "--intent",
        "app/api.py",
    )
    assert result.returncode == 0, result.stderr
    assert "reported 1 file(s) as feature-x (version 1)" in result.stdout
    snapshot = WorkingSetSnapshot.objects.get()
    assert snapshot.files[0]["path"] == "app/core.py"
    assert snapshot.files[0]["baseHunks"] == [[5, 3]]
    assert snapshot.intent == [{"path": "app/api.py"}]


def test_reporter_names_the_problem_in_one_line(live_server, tmp_path, partial) -> None:
    make_repository("web", scope="team-a")
    not_git = _run(
        "--server",
        live_server.url,
        "--token",
        partial.token,
        "--repository",
        "web",
        "--repo",
        str(tmp_path),
    )
    assert not_git.returncode == 1
    assert len(not_git.stderr.strip().splitlines()) == 1
    bad_token = _run(
        "--server",
        live_server.url,
        "--token",
        "nope",
        "--repository",
        "web",
        "--repo",
        str(tmp_path),
    )
    assert bad_token.returncode == 1
    assert _run("--server", "x").returncode == 2
