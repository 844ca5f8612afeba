"""Speculative merge checks end to end on a real repository with two worktrees.

Alpha renames ``helper`` (and its one caller); beta adds a module importing ``helper``. Each
side builds alone, the clean merge does not: the check finds it, stores it, reuses it, feeds
the ``merge-check`` channel, and is cancelled when a side moves on. Nothing of the agents'
worktrees, index, refs or objects is written.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.utils import timezone

from proximity.api.presenters import advisory_out
from proximity.models import Agent, MergeCheck, ProximityAdvisory, Repository
from proximity.selectors.edit_checks import edit_check
from proximity.services.merge_checks import (
    current_trees,
    merge_check_run,
    merge_checks_plan,
)
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from proximity.sources.symbols import clear_index_cache
from tests.sources.gitrepo import ScriptedRepo

pytestmark = pytest.mark.django_db

UTIL = "def helper(x):\n    return x * 2\n\n\ndef unrelated():\n    return 0\n"
MAIN = "from app.util import helper\n\n\ndef run():\n    return helper(1)\n"
REPORT = "from app.util import helper\n\n\ndef total():\n    return helper(3)\n"


@pytest.fixture
def scripted(tmp_path: Path) -> ScriptedRepo:
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/__init__.py", "")
    repo.write("app/util.py", UTIL)
    repo.write("app/main.py", MAIN)
    repo.commit("base")
    for name in ("alpha", "beta"):
        repo.add_worktree(name)
    repo.write("app/util.py", UTIL.replace("helper", "assist"), worktree="alpha")
    repo.write("app/main.py", MAIN.replace("helper", "assist"), worktree="alpha")
    repo.write("app/report.py", REPORT, worktree="beta")
    return repo


def _state(repo: ScriptedRepo) -> dict[str, object]:
    """Everything of the repository a check must not write."""
    out: dict[str, object] = {"refs": repo.git("for-each-ref"), "objects": _objects(repo.root)}
    for name in (None, "alpha", "beta"):
        path = repo.path(name)
        out[f"status {name}"] = repo.git(
            "--no-optional-locks", "status", "--porcelain", worktree=name
        )
        index = Path(repo.git("rev-parse", "--git-path", "index", worktree=name).strip())
        index = index if index.is_absolute() else path / index
        out[f"index {name}"] = (index.read_bytes(), index.stat().st_mtime_ns)
        out[f"files {name}"] = sorted(
            (str(p.relative_to(path)), p.read_bytes()) for p in path.rglob("*.py")
        )
    return out


def _objects(root: Path) -> list[str]:
    store = root / ".git" / "objects"
    return sorted(str(p.relative_to(store)) for p in store.rglob("*") if p.is_file())


@pytest.fixture
def repository(scripted: ScriptedRepo) -> Repository:
    repo = Repository.objects.create(
        name="app",
        scope="team-a",
        path=str(scripted.root),
        watch=True,
        profile="radar-v1-symbols",
        merge_checks=True,
    )
    repository_watch_tick(repository_id=repo.pk)
    return repo


def scan_now(repo: Repository) -> None:
    """One scan of ``repo`` now, whatever its debounce (the planner runs after it)."""
    Repository.objects.filter(pk=repo.pk).update(scan_requested_at=None)
    assert scan_run(repository_id=repo.pk) is not None
    repo.refresh_from_db()


def _the_check(repo: Repository) -> MergeCheck:
    """The one check the scan planned (pending: its task is sent on commit)."""
    check = MergeCheck.objects.get(repository=repo)
    assert check.status == "pending"
    return check


def test_a_merge_only_break_is_found_stored_and_fed_to_the_channel(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    scan_now(repository)
    before = _state(scripted)
    check = _the_check(repository)
    assert {check.agent_a, check.agent_b} == {"alpha", "beta"}
    row = merge_check_run(check_id=check.pk)
    assert row is not None
    assert (row.status, row.outcome) == ("done", "problems")
    assert [(p["kind"], p["path"], p["name"]) for p in row.problems] == [
        ("unresolved-name", "app/report.py", "app.util:helper")
    ]
    assert row.checked_at is not None
    assert row.base
    assert _state(scripted) == before  # no worktree, index, ref or object written

    scan_now(repository)
    advisory = ProximityAdvisory.objects.get(repository=repository)
    assert advisory.channels["merge-check"] == 1.0
    assert advisory.band == ProximityAdvisory.Band.RESOLUTION
    shown = advisory_out(advisory).merge_check
    assert shown.state == "checked"
    assert shown.checked_at == row.checked_at.isoformat()
    assert shown.problems[0]["message"] == "line 1: cannot import name 'helper' from app.util"


def test_the_servers_pre_edit_check_scores_the_stored_merge_verdict(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    """One answer (issue 30, point 1): the check an agent asks before an edit weighs the merge
    check's stored verdict as the scan does, without running a merge itself."""
    planned = [{"path": "app/report.py", "lines": [[4, 4]]}]

    def asked() -> dict[str, float]:
        beta = Agent.objects.get(repository=repository, agent_id="beta")
        result = edit_check(principal=beta.principal, repository="app", agent_id="beta",
                            files=planned, now=timezone.now())  # fmt: skip
        [finding] = [f for f in result.findings if f.other == "alpha"]
        return finding.channels

    scan_now(repository)
    assert asked().get("merge-check", 0.0) == 0.0  # not checked yet: nothing to weigh
    check = _the_check(repository)
    assert merge_check_run(check_id=check.pk) is not None
    scan_now(repository)
    assert asked()["merge-check"] == 1.0
    advisory = ProximityAdvisory.objects.get(repository=repository)
    assert advisory.channels["merge-check"] == 1.0


def test_a_rerun_reuses_the_stored_check_and_runs_nothing_twice(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    scan_now(repository)
    check = _the_check(repository)
    merge_check_run(check_id=check.pk)
    again = merge_check_run(check_id=check.pk)  # a redelivered task
    assert again is not None
    assert again.attempts == 1
    plan = merge_checks_plan(repository=repository)
    assert (plan.queued, plan.reused) == ((), 1)
    assert MergeCheck.objects.count() == 1


def test_a_check_is_cancelled_when_a_side_moves_on(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    scan_now(repository)
    check = _the_check(repository)
    scripted.write("app/report.py", REPORT + "\nMORE = 1\n", worktree="beta")
    plan = merge_checks_plan(repository=repository)
    check.refresh_from_db()
    assert plan.cancelled == 1
    assert check.status == "cancelled"
    assert merge_check_run(check_id=check.pk).status == "cancelled"  # not run


def test_a_run_whose_side_moved_since_planning_checks_nothing(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    scan_now(repository)
    check = _the_check(repository)
    scripted.write("app/report.py", REPORT + "\nMORE = 1\n", worktree="beta")
    row = merge_check_run(check_id=check.pk)
    assert row is not None
    assert (row.status, row.outcome, row.problems) == ("cancelled", "", [])


def test_an_unchecked_pair_is_shown_not_checked_never_clear(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    scan_now(repository)
    advisory = ProximityAdvisory.objects.get(repository=repository)
    assert advisory.detail["mergeCheck"] == {"state": "not checked"}  # planned after scoring
    _the_check(repository)
    scan_now(repository)
    advisory.refresh_from_db()
    assert advisory_out(advisory).merge_check.state == "checking"


def test_a_repository_that_has_not_opted_in_plans_nothing(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    Repository.objects.filter(pk=repository.pk).update(merge_checks=False)
    repository.refresh_from_db()
    scan_now(repository)
    assert merge_checks_plan(repository=repository).queued == ()
    advisory = ProximityAdvisory.objects.get(repository=repository)
    assert "merge-check" in advisory.channels
    assert advisory_out(advisory).merge_check.state == "not checked"


def test_the_trees_name_states_not_worktrees(
    scripted: ScriptedRepo, repository: Repository
) -> None:
    trees = current_trees(repository)
    assert trees["main"] != trees["alpha"] != trees["beta"]
    tree = subprocess.run(
        ["git", "-C", str(scripted.root), "rev-parse", "HEAD^{tree}"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert trees["main"] == tree
