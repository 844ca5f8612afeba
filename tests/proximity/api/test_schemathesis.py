"""Schemathesis against the live OpenAPI schema: no server error, no response off the schema.

The schema is read from the running API object, so an endpoint added later is fuzzed too. The
run is derandomized (a fixed seed) and bounded: ``BUDGET`` generated requests in all, split over
every operation and over valid (positive) and invalid (negative) inputs.

Random text almost never names a scope the caller holds, so unsteered the fuzzer would only
ever see task declarations refused. In positive mode a share of declarations and revisions is
steered (``tests/proximity/api/steering.py``) onto the caller's scopes and current versions,
and reads onto stored ids; everything else stays generated. Those successes, and the overlap
run each stored version triggers, are then checked too.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup

from proximity.models import OverlapRun, TaskVersion
from proximity.selectors.health import CACHE_KEY
from proximity.services.tasks import TaskDeclaration, task_declare
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository
from tests.proximity.api.steering import DECLARE, REVISE, steering

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True), pytest.mark.slow]

BUDGET = 1200
#: Shares of the budget, one per (operation, mode) unless named here: each stored declaration
#: runs the overlap pipeline, the success path this test must reach.
WEIGHTS = {(DECLARE, GenerationMode.POSITIVE): 4, (REVISE, GenerationMode.POSITIVE): 2}
#: At least this many generated declarations (and revisions) must be stored (201).
MIN_DECLARED, MIN_REVISED = 25, 10
#: Shaped as an agent's hook declares it: its agent id (a branch name, "/" and all) and session.
SEEDED_TASK = "feature/login.session-1"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _seed(owner: Any) -> TaskVersion:
    """Records for the fuzzer to find: a repository with two overlapping agents, a task."""
    make_repository("web", scope="team-a")
    for agent, lines in (("a1", [[1, 40]]), ("a2", [[5, 9]])):
        report = WorkingSetReport("web", agent, [file_entry("src/core.py", lines)], [])
        working_set_report(principal=owner, report=report, now=timezone.now())
    decl = TaskDeclaration("team-a", "Cache the scan", "a cache", ["scans reuse it"])
    return task_declare(principal=owner, decl=decl, task_id=SEEDED_TASK)


@pytest.fixture
def _keep_test_connection() -> Iterator[None]:
    # As Django's test client does: the WSGI app must not close the test's connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _operations() -> list[Any]:
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
    return [result.ok() for result in schema.get_all_operations()]


def _fuzz(
    operation: Any, mode: GenerationMode, budget: int, headers: dict[str, str], hooks: Any
) -> Counter:
    """Run one operation in one mode; return a count of status codes (failures raise)."""
    statuses: Counter = Counter()

    # derandomize=True: the same seed on every run, so a failure reproduces exactly.
    @settings(
        max_examples=budget,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode, hooks=hooks))
    def run(case: Any) -> None:
        response = case.call(headers=headers)
        statuses[response.status_code] += 1
        case.validate_response(response, checks=CHECKS)

    try:
        run()
    except Unsatisfiable:
        # Nothing to make invalid (no parameters, no body): only the positive run applies.
        assert mode is GenerationMode.NEGATIVE
    return statuses


READS = ("GET /api/tasks/{task_id}", "GET /api/tasks/{task_id}/run")


def _read_back(operations: list[Any], version: TaskVersion, headers: dict[str, str]) -> list[Any]:
    """GET the task and its run through the API, checked as a generated case is: the answers."""
    by_label = {op.label: op for op in operations}
    answers = []
    for label in READS:
        # an explicit case's path parameters go into the URL as given: encode "/" as a client must
        params = {"task_id": quote(version.record.task_id, safe="")}
        case = by_label[label].Case(path_parameters=params, query={"scope": version.record.scope})
        response = case.call(headers=headers)
        case.validate_response(response, checks=CHECKS)
        answers.append((response.status_code, response.json()))
    return answers


def _assert_success_path(
    created: Counter, owner: Any, seeded: TaskVersion, operations: list[Any], headers: dict
) -> None:
    """Generated declarations and revisions were stored, each with a finished overlap run (in
    process: run on commit of the request), and both read back through the API."""
    assert created[DECLARE] >= MIN_DECLARED, created
    assert created[REVISE] >= MIN_REVISED, created
    versions = list(
        TaskVersion.objects.filter(declared_by=owner).exclude(pk=seeded.pk).select_related("record")
    )
    assert len(versions) == created[DECLARE] + created[REVISE]
    runs = list(OverlapRun.objects.filter(query__in=versions))
    assert sorted(r.query_id for r in runs) == sorted(v.pk for v in versions)
    unfinished = [r for r in runs if r.status not in ("done", "failed") or r.finished_at is None]
    assert not unfinished, unfinished
    assert all(r.error for r in runs if r.status == "failed")
    status = {r.query_id: r.status for r in runs}
    for version in (v for v in versions if v.superseded_at is None):
        (task_status, task), (run_status, run) = _read_back(operations, version, headers)
        assert (task_status, run_status) == (200, 200), (version, task, run)
        assert task[-1]["workVersion"] == run["workVersion"] == version.work_version
        assert run["status"] == status[version.pk]


@pytest.mark.usefixtures("_keep_test_connection", "in_process_tasks", "celery_worker")
def test_generated_requests_find_no_server_error_and_no_schema_violation(lead, settings) -> None:
    # Rate limits have their own test; here they would turn most requests into 429s.
    settings.OVERLAP_REPORT_RATE = settings.OVERLAP_AUTH_FAILURE_RATE = "1000000/min"
    # A healthy deployment (a worker answers the ping), so /api/health answers 200, not its
    # documented 503; and no earlier test's cached checks.
    cache.delete(CACHE_KEY)
    seeded = _seed(lead.principal)
    operations = _operations()
    passes = [(op, mode) for op in operations for mode in GenerationMode]
    per_pass = BUDGET / sum(WEIGHTS.get(key, 1) for key in ((op.label, m) for op, m in passes))
    headers = {"Authorization": f"Bearer {lead.token}"}
    total: Counter = Counter()
    per_operation: Counter = Counter()
    created: Counter = Counter()
    failures: list[str] = []
    for operation, mode in passes:
        budget = math.ceil(per_pass * WEIGHTS.get((operation.label, mode), 1))
        hooks = steering(operation, lead.principal) if mode is GenerationMode.POSITIVE else None
        try:
            statuses = _fuzz(operation, mode, budget, headers, hooks)
            total += statuses
            per_operation[operation.label] += sum(statuses.values())
            created[operation.label] += statuses[201]
        except (Exception, FailureGroup) as exc:  # collected: one run lists every failure
            failures.append(f"{operation.label} [{mode.value}]: {exc}")
    assert not failures, "\n\n".join(failures)
    assert {op.path for op in operations} >= {"/api/working-sets", "/api/advisories"}
    assert sum(total.values()) >= 1000, total
    assert all(per_operation[op.label] > 0 for op in operations), per_operation
    assert not any(status >= 500 for status in total), total

    _assert_success_path(created, lead.principal, seeded, operations, headers)
