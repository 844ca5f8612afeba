"""``proximity.merge_check`` sent through the real broker runs on a worker of its own queue."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proximity.engine.mergecheck import MERGECHECK_VERSION
from proximity.models import MergeCheck, Repository
from proximity.services.merge_checks import check_version, current_trees
from proximity.tasks import merge_check
from tests.proximity.services.test_merge_checks import MAIN, REPORT, UTIL
from tests.sources.gitrepo import ScriptedRepo

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def merge_worker(transactional_db: None) -> Iterator[Any]:
    from celery.contrib.testing.worker import start_worker

    from celery_app.app import app

    with start_worker(
        app, pool="solo", perform_ping_check=False, loglevel="WARNING", queues=["merge_checks"]
    ) as worker:
        yield worker


def test_the_task_is_routed_to_its_queue_and_stores_the_check(
    tmp_path: Path, merge_worker: Any
) -> None:
    from celery_app.app import app

    assert app.amqp.router.route({}, "proximity.merge_check")["queue"].name == "merge_checks"
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
    row = Repository.objects.create(
        name="app", scope="team-a", path=str(repo.root), merge_checks=True
    )
    check = _run_on_worker(row, seconds=60)
    assert check.version == MERGECHECK_VERSION
    assert (check.status, check.outcome) == ("done", "problems")
    assert check.problems[0]["name"] == "app.util:helper"


def _run_on_worker(row: Repository, *, seconds: float) -> MergeCheck:
    """Store the check of alpha's and beta's current trees, send it, wait for its end."""
    trees = current_trees(row)
    a, b = sorted(("alpha", "beta"), key=lambda x: trees[x])
    check = MergeCheck.objects.create(
        repository=row, tree_a=trees[a], tree_b=trees[b], version=check_version(row),
        agent_a=a, agent_b=b, requested_at="2026-12-01T00:00:00Z",
    )  # fmt: skip
    merge_check.delay(check.pk)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        check.refresh_from_db()
        if check.status in ("done", "failed"):
            break
        time.sleep(0.1)
    return check


def test_a_check_with_test_runs_runs_them_on_the_worker(tmp_path: Path, merge_worker: Any) -> None:
    """Item 4(c) through the real broker and worker: the repository's tests run there, in
    scratch folders, and the test conflict is stored."""
    from tests.proximity.services.test_merge_check_tests import scripted_shop

    repo = scripted_shop(tmp_path)
    row = Repository.objects.create(
        name="shop", scope="team-a", path=str(repo.root), merge_checks=True, merge_check_tests=True
    )
    check = _run_on_worker(row, seconds=180)
    assert (check.status, check.outcome) == ("done", "problems"), check.error
    assert [p["kind"] for p in check.problems] == ["test-conflict"]
    assert check.counts["tests"]["state"] == "conflicts"
