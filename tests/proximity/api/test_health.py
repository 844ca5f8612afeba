"""GET /api/health, /api/health/live, /api/health/ready and the /health/ page."""

from __future__ import annotations

import os
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection

from proximity.selectors.health import CACHE_KEY
from tests.factories import make_caller, make_staff_caller

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_checks() -> Iterator[None]:
    # Only this key: clearing the whole cache would flush the shared Redis (the broker too).
    cache.delete(CACHE_KEY)
    yield
    cache.delete(CACHE_KEY)


def _without_git(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))


def _private_words() -> list[str]:
    """The database name, this host, the virtualenv (model folder) and the Redis host."""
    words = [connection.settings_dict["NAME"], socket.gethostname(), sys.prefix]
    if settings.REDIS_URL:
        words.append(str(urlparse(settings.REDIS_URL).hostname))
    return words


def test_health_answers_503_when_a_check_is_critical(client, monkeypatch, tmp_path) -> None:
    _without_git(monkeypatch, tmp_path / "empty")
    response = client.get("/api/health")
    assert response.status_code == 503
    payload = response.json()
    assert payload["status"] == "critical"
    assert {"name": "git", "status": "critical", "detail": "", "fix": ""} in payload["checks"]
    assert client.get("/health/").status_code == 503


def test_liveness_answers_ok_without_touching_the_database(
    client, django_assert_num_queries
) -> None:
    with django_assert_num_queries(0):
        response = client.get("/api/health/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readiness_runs_one_query(client, django_assert_num_queries) -> None:
    with django_assert_num_queries(1):
        response = client.get("/api/health/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_anonymous_health_names_no_path_host_or_database(client) -> None:
    for path in ("/api/health", "/health/"):
        body = client.get(path).content.decode()
        assert "<td>database</td>" in body or '"database"' in body
        leaked = [w for w in _private_words() if w in body]
        assert not leaked, (path, leaked)
    answer = client.get("/api/health")
    assert "/" not in answer.content.decode()  # no path of any kind
    assert all(c["detail"] == c["fix"] == "" for c in answer.json()["checks"])


def test_staff_health_shows_details_and_an_agents_token_does_not(client, lead) -> None:
    database = connection.settings_dict["NAME"]
    staff = make_staff_caller("ops-bot", scopes=["team-a"], permissions=())
    checks = client.get("/api/health", **staff.headers).json()["checks"]
    by_name = {c["name"]: c for c in checks}
    assert database in by_name["database"]["detail"]
    assert by_name["git"]["detail"].startswith("git version")
    # Any other valid token (an agent's, a lead's without a staff user) sees what anonymous sees.
    agent = make_caller("cart-bot", scopes=["team-a"], kind="agent")
    for caller in (agent, lead):
        answer = client.get("/api/health", **caller.headers).json()["checks"]
        assert all(c["detail"] == c["fix"] == "" for c in answer)
    client.force_login(get_user_model().objects.create_user("someone"))
    assert "git version" not in client.get("/health/").content.decode()
    client.force_login(get_user_model().objects.create_user("ops", is_staff=True))
    assert "git version" in client.get("/health/").content.decode()


def test_an_unknown_token_sees_what_anonymous_sees(client) -> None:
    response = client.get("/api/health", HTTP_AUTHORIZATION="Bearer not-a-token")
    assert response.status_code in {200, 503}
    assert all(c["detail"] == "" for c in response.json()["checks"])


def _git_counter(folder: Path) -> Path:
    """A git on PATH that notes each run, then runs the real one."""
    folder.mkdir()
    log, real = folder / "runs.log", shutil.which("git")
    assert real is not None
    shim = folder / "git"
    shim.write_text(f'#!/bin/sh\necho run >> "{log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    log.touch()
    return log


def _runs(log: Path) -> int:
    return len(log.read_text().splitlines())


def _publishes() -> int:
    # The worker ping is a broadcast: one PUBLISH on the broker per call of control.ping.
    from celery_app.app import app

    with app.connection_for_write() as conn:
        stats: dict[str, Any] = conn.default_channel.client.info("commandstats")
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


@pytest.mark.integration
def test_second_call_within_ttl_reuses_one_run_of_the_checks(
    client, lead, monkeypatch, tmp_path, settings
) -> None:
    settings.OVERLAP_HEALTH_CACHE_SECONDS = 30
    log = _git_counter(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{log.parent}{os.pathsep}{os.environ['PATH']}")
    before = _publishes()
    first = client.get("/api/health")
    after_first = (_runs(log), _publishes())
    second = client.get("/api/health", **lead.headers)
    assert first.json()["status"] == second.json()["status"]
    assert (_runs(log), _publishes()) == after_first == (1, before + 1)
    cache.delete(CACHE_KEY)  # the TTL is over: the next call runs the checks again
    client.get("/api/health")
    assert (_runs(log), _publishes()) == (2, before + 2)
