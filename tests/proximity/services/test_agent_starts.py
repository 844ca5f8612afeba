"""A start an agent reports never moves right of way (issue 31 item 1, issue 27 item 4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from proximity.models import Agent
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import bind_agents, file_entry, make_caller, make_repository
from tests.sources.gitrepo import EPOCH, ScriptedRepo, numbered, run_git

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CLAIM = datetime(2001, 1, 1, tzinfo=UTC)


def _report(caller, agent_id: str, started: datetime | None, now: datetime) -> Agent:
    report = WorkingSetReport(
        "web", agent_id, [file_entry("core.py", [[3, 3]])], [], started_at=started
    )
    working_set_report(principal=caller.principal, report=report, now=now)
    return Agent.objects.get(agent_id=agent_id)


def test_without_git_the_first_report_dates_the_agent_and_claims_move_nothing() -> None:
    make_repository("web", scope="team-a")
    bot = bind_agents(make_caller("bot", scopes=["team-a"], kind="agent"), "web", "bot")
    assert _report(bot, "bot", CLAIM, NOW).started_at == NOW
    later = NOW + timedelta(hours=1)
    assert _report(bot, "bot", CLAIM, later).started_at == NOW  # not earlier
    assert _report(bot, "bot", later + timedelta(hours=1), later).started_at == NOW  # nor later


def test_a_repository_the_server_can_read_dates_the_branch_by_git(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(10))
    repo.commit("base")
    made = f"@{EPOCH + 600} +0000"
    run_git(repo.root, "worktree", "add", "-q", "-b", "bot", str(tmp_path / "bot"), "main",
            env={"GIT_COMMITTER_DATE": made})  # fmt: skip
    make_repository("web", scope="team-a", path=str(repo.root))
    bot = bind_agents(make_caller("bot", scopes=["team-a"], kind="agent"), "web", "bot")
    git_start = datetime.fromtimestamp(EPOCH + 600, tz=UTC)
    assert _report(bot, "bot", CLAIM, NOW).started_at == git_start
    assert _report(bot, "bot", None, NOW).started_at == git_start
