"""Migrations 0009-0010 on stored tasks, on whichever database the suite runs (SQLite or
PostgreSQL): a record takes its first version's scope, a version its record's declarer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("proximity", "0008_repository_watch_claim")


def _migrate(target: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    executor.loader.build_graph()
    return executor.loader.project_state(target).apps


@pytest.fixture
def latest() -> Iterator[list[tuple[str, str]]]:
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes("proximity")
    yield leaves
    _migrate(leaves)  # whatever the test did, the next one finds the schema it expects


def test_stored_tasks_get_their_first_versions_scope_and_writer(latest) -> None:
    old = _migrate([BEFORE])
    principal = old.get_model("proximity", "Principal")
    record = old.get_model("proximity", "TaskRecord")
    version = old.get_model("proximity", "TaskVersion")
    alice = principal.objects.create(name="alice", scopes=["team-a", "team-b"])
    now = timezone.now()
    for task_id, scopes in (("T-1", ["team-a", "team-b"]), ("T-2", ["team-b"])):
        rec = record.objects.create(task_id=task_id, declared_by=alice, created_at=now)
        for n, scope in enumerate(scopes, start=1):  # T-1 moved scope in a revision, as allowed
            fields = {"objective": "o", "deliverable": "d", "acceptance": ["a"]}
            version.objects.create(
                record=rec, work_version=n, scope=scope, created_at=now, **fields
            )

    new = _migrate(latest)
    record = new.get_model("proximity", "TaskRecord")
    version = new.get_model("proximity", "TaskVersion")
    assert dict(record.objects.values_list("task_id", "scope")) == {
        "T-1": "team-a",
        "T-2": "team-b",
    }
    assert set(version.objects.values_list("declared_by_id", flat=True)) == {alice.pk}
    # The id is now taken per scope: free in team-b for T-1, still taken in team-a.
    record.objects.create(scope="team-b", task_id="T-1", declared_by_id=alice.pk, created_at=now)
    with pytest.raises(IntegrityError), transaction.atomic():
        record.objects.create(
            scope="team-a", task_id="T-1", declared_by_id=alice.pk, created_at=now
        )
