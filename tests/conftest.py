"""Shared fixtures: real services for the integration tier, role fixtures for access control."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

# Every `radar hook` a test runs answers in its own process: a warm daemon started by one test
# would outlive it. tests/agent/test_daemon.py turns the daemon on, and stops it, itself.
os.environ["RADAR_DAEMON"] = "0"

LOUD_SUITES = (
    "browser",
    "integration",
    "harness",
)  # whole tiers that skip when their tools are missing


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def skipped_suites_line(skipped: list[pytest.TestReport]) -> str | None:
    parts = []
    for suite in LOUD_SUITES:
        reports = [r for r in skipped if suite in r.keywords]
        if reports:
            reasons = " | ".join(sorted({_skip_reason(r) for r in reports}))
            parts.append(f"{suite} ({len(reports)} skipped: {reasons})")
    return f"SKIPPED SUITES: {'; '.join(parts)}" if parts else None


def pytest_unconfigure(config: pytest.Config) -> None:
    # Written here, after pytest's own summary, so a run ends with this line: a whole tier that
    # did not run cannot scroll past unnoticed. Nothing is written when no such tier skipped.
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    line = skipped_suites_line(reporter.stats.get("skipped", []))
    if line:
        reporter.write_line(line, red=True, bold=True)


def services_missing() -> list[str]:
    missing = []
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing.append("PostgreSQL (DATABASE_URL)")
    if not settings.REDIS_URL:
        missing.append("Redis (REDIS_URL)")
    return missing


@pytest.fixture(autouse=True)
def _require_real_services(request: pytest.FixtureRequest) -> None:
    # Integration tests never skip silently in CI: missing services are a failure there.
    if request.node.get_closest_marker("integration") is None:
        return
    missing = services_missing()
    if not missing:
        return
    message = f"integration test needs {', '.join(missing)}; run it through `make test`"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def celery_worker(transactional_db: None) -> Iterator[Any]:
    """A real Celery worker thread consuming from the real Redis broker."""
    from celery.contrib.testing.worker import start_worker

    from celery_app.app import app

    with start_worker(
        app,
        pool="solo",
        perform_ping_check=False,
        loglevel="WARNING",
        queues=["default", "scans", "overlap"],
        shutdown_timeout=30,
    ) as worker:
        yield worker


@pytest.fixture
def lead(db: None) -> Any:
    """Full scope: sees team-a and team-b, cleared for the 'internal' label.

    It may report under agent ids nobody was issued (``creates_agents``), as a harness that starts
    its own agents does, so tests of other behaviour report any id; tests of issued identities
    (tests/reliability/test_issued_identities.py) use principals without the right.
    """
    from tests.factories import make_caller

    return make_caller(
        "lead", scopes=["team-a", "team-b"], clearances=["internal"], creates_agents=True
    )


@pytest.fixture
def partial(db: None) -> Any:
    """Partial scope: team-a only, no clearances; may create agents, as ``lead``."""
    from tests.factories import make_caller

    return make_caller("partial", scopes=["team-a"], creates_agents=True)


@pytest.fixture
def outsider(db: None) -> Any:
    from tests.factories import make_caller

    return make_caller("outsider", scopes=["elsewhere"])


@pytest.fixture
def post_json(client: Any) -> Any:
    import json

    def post(path: str, body: Any, caller: Any = None) -> Any:
        headers = caller.headers if caller else {}
        return client.post(path, json.dumps(body), content_type="application/json", **headers)

    return post


@pytest.fixture
def in_process_tasks(transactional_db: None) -> Iterator[None]:
    """Run Celery tasks inline, as the embedded default does; real commits fire on_commit hooks."""
    from celery_app.app import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous
