"""The cross-machine reporter reads a real worktree and posts it to a live server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from proximity.models import Agent, WorkingSetSnapshot
from tests.factories import make_caller, make_repository
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("RADAR_")}
    return subprocess.run(
        [sys.executable, "-m", "proximity.sources.report", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**inherited, **env},
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


def _report(
    server: str, worktree: Path, *extra: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return _run("--server", server, "--repository", "web", "--repo", str(worktree), *extra, **env)


def test_an_agent_id_with_a_slash_reports_and_reads_its_inbox(live_server, worktree, partial):
    make_repository("web", scope="team-a")
    result = _report(live_server.url, worktree, "--token", partial.token, "--agent", "feature/x")
    assert result.returncode == 0, result.stderr
    assert "as feature/x (version 1)" in result.stdout
    assert Agent.objects.get().agent_id == "feature/x"


def test_a_report_under_an_id_another_token_holds_is_an_error_naming_the_refusal(
    live_server, worktree, partial
) -> None:
    repo = make_repository("web", scope="team-a")
    Agent.objects.create(repository=repo, agent_id="feature-x")
    result = _report(live_server.url, worktree, "--token", partial.token)
    assert result.returncode == 0, result.stderr  # an unbound id is taken by a creator
    # The same agent's inbox read with a token it was not issued to: refused, an error.
    other = make_caller("cart-bot", scopes=["team-a"], kind="agent")
    refused = _report(live_server.url, worktree, "--token", other.token)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "error: server refused the report (404): agent not found"
    ]


def test_the_token_can_come_from_a_file_or_the_environment(
    live_server, worktree, partial, tmp_path
) -> None:
    make_repository("web", scope="team-a")
    token_file = tmp_path / "token"
    token_file.write_text(partial.token + "\n")
    from_file = _report(live_server.url, worktree, "--token-file", str(token_file))
    from_env = _report(live_server.url, worktree, RADAR_TOKEN=partial.token)
    assert (from_file.returncode, from_env.returncode) == (0, 0), from_file.stderr + from_env.stderr
    assert WorkingSetSnapshot.objects.get().version == 1


def test_no_token_or_an_unreadable_token_file_is_a_usage_error(live_server, worktree, tmp_path):
    missing = _report(live_server.url, worktree)
    unreadable = _report(live_server.url, worktree, "--token-file", str(tmp_path / "absent"))
    assert (missing.returncode, unreadable.returncode) == (2, 2)
    assert "a token is needed" in missing.stderr
    assert "--token-file: cannot read" in unreadable.stderr
    assert not WorkingSetSnapshot.objects.exists()
