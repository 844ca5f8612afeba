"""Schemathesis against the live OpenAPI schema: no server error, no response off the schema.

The schema is read from the running API object, so an endpoint added later is fuzzed too. The
run is derandomized (a fixed seed) and bounded: ``BUDGET`` generated requests in all, split over
every operation and over valid (positive) and invalid (negative) inputs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

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

from proximity.selectors.health import CACHE_KEY
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True), pytest.mark.slow]

BUDGET = 1200
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _seed(owner: Any) -> None:
    """Records for the fuzzer to find: a repository with two overlapping agents."""
    make_repository("web", scope="team-a")
    for agent, lines in (("a1", [[1, 40]]), ("a2", [[5, 9]])):
        report = WorkingSetReport("web", agent, [file_entry("src/core.py", lines)], [])
        working_set_report(principal=owner, report=report, now=timezone.now())


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


def _fuzz(operation: Any, mode: GenerationMode, budget: int, headers: dict[str, str]) -> Counter:
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
    @given(case=operation.as_strategy(generation_mode=mode))
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


@pytest.mark.usefixtures("_keep_test_connection", "in_process_tasks", "celery_worker")
def test_generated_requests_find_no_server_error_and_no_schema_violation(lead, settings) -> None:
    # Rate limits have their own test; here they would turn most requests into 429s.
    settings.OVERLAP_REPORT_RATE = settings.OVERLAP_AUTH_FAILURE_RATE = "1000000/min"
    # A healthy deployment (a worker answers the ping), so /api/health answers 200, not its
    # documented 503; and no earlier test's cached checks.
    cache.delete(CACHE_KEY)
    _seed(lead.principal)
    operations = _operations()
    per_run = math.ceil(BUDGET / (2 * len(operations)))
    total: Counter = Counter()
    per_operation: Counter = Counter()
    failures: list[str] = []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                statuses = _fuzz(
                    operation, mode, per_run, {"Authorization": f"Bearer {lead.token}"}
                )
                total += statuses
                per_operation[operation.label] += sum(statuses.values())
            except (Exception, FailureGroup) as exc:  # collected: one run lists every failure
                failures.append(f"{operation.label} [{mode.value}]: {exc}")
    assert not failures, "\n\n".join(failures)
    assert {op.path for op in operations} >= {"/api/working-sets", "/api/advisories"}
    assert sum(total.values()) >= 1000, total
    assert all(per_operation[op.label] > 0 for op in operations), per_operation
    assert not any(status >= 500 for status in total), total
