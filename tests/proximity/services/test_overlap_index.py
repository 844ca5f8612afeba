"""The worker's incremental index against the rebuild path, on stored versions (issue 15, point 4).

Every comparison runs both paths for the same stored query: the reference reads the whole pool
from the database and builds the snapshot and both indexes again; the worker's index was built
once and brought up to date by the versions stored since.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import numpy as np
import pytest
from django.db import transaction

from proximity.models import TaskVersion
from proximity.services import overlap_index
from proximity.services.overlap_index import (
    indexed_engine_call,
    worker_index,
    worker_indexes_clear,
)
from proximity.services.overlap_prepare import ACTIVE_POLICY, rebuilt_engine_call
from proximity.services.task_records import embedder
from proximity.services.tasks import TaskDeclaration, task_declare, task_revise
from tests.factories import make_caller

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = [
    ("payments", [], "Add retry with backoff to the payment export", "export retries"),
    ("payments", ["internal"], "Retry the payment export on timeout", "export retry patch"),
    ("search", [], "Cache currency conversion rates for the nightly report", "rate cache"),
    ("payments", [], "Stream the export output for large payment files", "streamed export"),
    ("search", ["internal"], "Speed up the nightly revenue report", "faster report"),
    ("payments", [], "a", "b"),  # no indexable token at all
]


@pytest.fixture
def lead() -> Any:
    return make_caller("lead", scopes=["payments", "search"], clearances=["internal"])


@pytest.fixture
def partial() -> Any:
    return make_caller("partial", scopes=["payments"])


@pytest.fixture(autouse=True)
def _fresh_worker() -> Any:
    worker_indexes_clear()  # each test starts as a worker that starts
    yield
    worker_indexes_clear()


def _declare(principal: Any, k: int, *, task_id: str | None = None) -> TaskVersion:
    scope, labels, objective, deliverable = TEXTS[k % len(TEXTS)]
    decl = TaskDeclaration(
        scope=scope,
        disclosure=labels,
        objective=objective,
        deliverable=deliverable,
        acceptance=[f"{deliverable} passes"],
        purpose="implementation",
    )
    return task_declare(principal=principal, decl=decl, task_id=task_id or f"T-{k}")


def _revise(principal: Any, version: TaskVersion, objective: str) -> TaskVersion:
    decl = TaskDeclaration(
        scope=version.scope,
        disclosure=list(version.disclosure),
        objective=objective,
        deliverable=version.deliverable,
        acceptance=list(version.acceptance),
        purpose=version.purpose,
    )
    return task_revise(
        principal=principal,
        task_id=version.record.task_id,
        previous_version=version.work_version,
        decl=decl,
    )


def _bare(ref: Any) -> str:
    """The stored task id of an engine ref (the engine's carries its scope: ``scope#id``)."""
    return str(ref.task_id).partition("#")[2]


def _outcome(prepared: Any) -> tuple[Any, ...]:
    run = prepared.call()
    advisories = [
        (a.candidate, a.ranks, a.fused_score, a.features, a.coverage) for a in run.advisories
    ]
    return (
        run.snapshot_id,
        prepared.pool_size,
        run.coverage,
        advisories,
        [(u.reason, u.candidate) for u in run.unknowns],
        run.omissions,
        [(s.name, s.available, s.candidates) for s in run.rankers],
        {ref: prepared.version_ids[ref] for ref in [a.candidate for a in run.advisories]},
    )


def assert_both_paths_agree(query: TaskVersion, principal: Any) -> tuple[Any, ...]:
    query = TaskVersion.objects.select_related("record").get(pk=query.pk)
    rebuilt = _outcome(rebuilt_engine_call(query, principal))
    indexed = _outcome(indexed_engine_call(query, principal))
    assert indexed == rebuilt
    return indexed


def test_the_index_follows_new_versions_and_supersessions_and_equals_a_rebuild(
    lead, partial, in_process_tasks
) -> None:
    versions = [_declare(lead.principal, k) for k in range(len(TEXTS))]
    index = worker_index(ACTIVE_POLICY, embedder().space_id)
    assert index.builds == 1
    revised = _revise(lead.principal, versions[0], "Add retry with jitter to the payment export")
    versions.append(_declare(partial.principal, 3, task_id="P-3"))
    versions.append(_revise(lead.principal, versions[1], "Retry the export twice on timeout"))
    for principal in (lead.principal, partial.principal):
        for version in [*versions, revised]:
            assert_both_paths_agree(version, principal)
    # one index all along, updated in place: never rebuilt by these runs
    assert worker_index(ACTIVE_POLICY, embedder().space_id) is index
    assert index.builds == 1
    assert not index.pool.live[index.pool.row(versions[0].pk)]  # superseded by its revision
    _, _, _, advisories, *_ = assert_both_paths_agree(revised, lead.principal)
    assert {"T-1", "T-3"} <= {_bare(a[0]) for a in advisories}  # compared, not vacuous


def test_a_superseded_version_never_ranks_and_an_outsider_version_is_masked(
    lead, partial, in_process_tasks
) -> None:
    first = _declare(lead.principal, 0)
    twin = _declare(lead.principal, 1)  # internal: the partial viewer may not see it
    query = _declare(partial.principal, 0, task_id="P-0")
    _, _, _, advisories, *_ = assert_both_paths_agree(query, partial.principal)
    assert {_bare(a[0]) for a in advisories} == {"T-0"}  # never T-1, whatever its score
    _revise(lead.principal, first, "Something else entirely: rotate the signing keys")
    _, _, _, advisories, *_ = assert_both_paths_agree(query, partial.principal)
    assert [(_bare(a[0]), a[0].work_version) for a in advisories] == [("T-0", 2)]
    assert twin.pk  # declared and current, yet invisible to this viewer


def test_a_vector_stored_by_another_worker_is_read_before_the_run(lead, in_process_tasks) -> None:
    _declare(lead.principal, 0)
    query = _declare(lead.principal, 1)
    index = worker_index(ACTIVE_POLICY, embedder().space_id)
    other = TaskVersion.objects.get(record__task_id="T-0")
    row = index.pool.row(other.pk)
    vector = np.frombuffer(bytes(other.embedding), dtype=np.float32)
    turned = -vector  # another worker embedded it; stored only in the database
    TaskVersion.objects.filter(pk=other.pk).update(embedding=turned.tobytes())
    index.dense.set(row, None)  # this worker saw the version before it had a vector
    assert_both_paths_agree(query, lead.principal)
    assert np.array_equal(index.dense.vector(row), turned)


def test_the_index_is_rebuilt_when_the_worker_starts_the_policy_changes_or_rows_vanish(
    lead, in_process_tasks
) -> None:
    versions = [_declare(lead.principal, k) for k in range(4)]
    space = embedder().space_id
    index = worker_index(ACTIVE_POLICY, space)
    assert worker_index(ACTIVE_POLICY, space) is index
    TaskVersion.objects.filter(pk=versions[1].pk).delete()  # deleted by hand, mid-table
    assert worker_index(ACTIVE_POLICY, space) is index  # not counted yet (once a minute)...
    run = indexed_engine_call(versions[0], lead.principal).call()
    assert "T-1" not in {_bare(a.candidate) for a in run.advisories}  # ...the recheck drops it
    index.checked_at -= overlap_index.FULL_CHECK  # a minute later the count notices
    counted = worker_index(ACTIVE_POLICY, space)
    assert counted is not index
    assert versions[1].pk not in counted.pool.keys.tolist()
    assert_both_paths_agree(versions[0], lead.principal)
    TaskVersion.objects.filter(pk=versions[3].pk).delete()  # the highest id: noticed at once
    highest = worker_index(ACTIVE_POLICY, space)
    assert highest is not counted
    other = dataclasses.replace(ACTIVE_POLICY, version="overlap-policy/other")
    assert worker_index(other, space).policy is other  # a new digest: a new index
    assert list(overlap_index._INDEXES) == [other.digest]  # the old policy's is dropped
    again = worker_index(ACTIVE_POLICY, space)
    assert again is not highest
    assert_both_paths_agree(versions[2], lead.principal)
    worker_indexes_clear()  # the worker starts again
    assert worker_index(ACTIVE_POLICY, space) is not again


@pytest.mark.integration
def test_a_version_committed_after_a_later_one_is_still_read(lead, in_process_tasks) -> None:
    """Primary keys are taken at insert, not at commit: a lower id may commit later."""
    holding, release = threading.Event(), threading.Event()

    def slow() -> None:
        try:
            with transaction.atomic():
                _declare(lead.principal, 1, task_id="LATE")
                holding.set()
                release.wait(30)
        finally:
            from django.db import connection

            connection.close()

    thread = threading.Thread(target=slow)
    thread.start()
    assert holding.wait(30)
    early = _declare(lead.principal, 0)  # a higher id, committed (and run) first
    late = TaskVersion.objects.filter(record__task_id="LATE")
    assert not late.exists()
    release.set()
    thread.join(30)
    late_version = late.get()
    assert late_version.pk < early.pk
    query = _declare(lead.principal, 0, task_id="AFTER")
    index = worker_index(ACTIVE_POLICY, embedder().space_id)
    assert index.pool.row(late_version.pk) is not None
    _, _, _, advisories, *_ = assert_both_paths_agree(query, lead.principal)
    assert "LATE" in {_bare(a[0]) for a in advisories}


def test_a_shared_declared_target_is_a_candidate_on_both_paths(lead, in_process_tasks) -> None:
    """The scope source: same file in both plans, no shared word; the index equals a rebuild."""

    def declare(task_id: str, objective: str, deliverable: str, target: str) -> TaskVersion:
        nodes = [{"id": "n1", "actionType": "edit", "target": target}]
        decl = TaskDeclaration(
            scope="payments",
            objective=objective,
            deliverable=deliverable,
            acceptance=[f"{deliverable} passes"],
            purpose="implementation",
            plan_sketch={"nodes": nodes, "edges": []},  # no workVersion: this version's
        )
        return task_declare(principal=lead.principal, decl=decl, task_id=task_id)

    for k in range(24):  # enough look-alikes to fill every ranked place
        declare(f"L-{k}", f"Retry the payment export {k}", "export retries", f"export/{k}.py")
    other = declare("F", "Tidy imports", "sorted headers", "billing/invoice.py")
    query = declare("Q", "Retry the payment export", "export retries", "./billing/invoice.py")
    assert query.plan_sketch["workVersion"] == 1
    _, _, _, advisories, *_, rankers, _ = assert_both_paths_agree(query, lead.principal)
    by_id = {_bare(a[0]): a for a in advisories}
    assert dict(by_id["F"][1])["scope"] == 1
    assert ("scope", True, 1) in rankers
    assert other.pk  # declared before the query, found only through its plan's target
