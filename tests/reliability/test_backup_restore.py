"""The documented backup and restore (docs/OPERATIONS.md): ``pg_dump -Fc`` of the live database,
``pg_restore`` into a fresh database, and the board's API reads the same thing from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from proximity.models import ProximityAdvisory
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository
from tests.reliability.processes import ROOT, database_url_for_tests, process_env

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

READ = (
    "import django, json, sys; django.setup(); "
    "from django.test import Client; c = Client(); "
    "h = {'HTTP_AUTHORIZATION': 'Bearer ' + sys.argv[1]}; "
    "print(json.dumps([c.get(p, **h).json() for p in sys.argv[2:]]))"
)
PATHS = ["/api/repositories", "/api/advisories", "/api/repositories/web/scan"]


def _bin(name: str) -> str:
    from tests.servers import _postgres_bindir

    return str((_postgres_bindir() / "pg_ctl").resolve().parent / name)


def _conn_args() -> list[str]:
    db = settings.DATABASES["default"]
    return ["-h", db["HOST"], "-p", str(db["PORT"]), "-U", db["USER"]]


def _pg(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=120)  # fixed list, no shell


def _read(database_url: str, token: str) -> list:
    env = process_env(redis_url=settings.REDIS_URL or "", database_url=database_url)
    done = subprocess.run(  # fixed argument list, no shell
        [sys.executable, "-c", READ, token, *PATHS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_restore_into_a_fresh_database_reads_the_same_board(lead, in_process_tasks, tmp_path):
    make_repository("web", scope="team-a")
    for agent, lines in (("a1", [[1, 40]]), ("a2", [[5, 9]])):
        report = WorkingSetReport("web", agent, [file_entry("src/core.py", lines)], [])
        working_set_report(principal=lead.principal, report=report)
    assert ProximityAdvisory.objects.count() == 1
    source = connection.settings_dict["NAME"]
    fresh = f"{source}_restored"
    dump = Path(tmp_path) / "radar.dump"
    _pg(_bin("pg_dump"), *_conn_args(), "-Fc", "-d", source, "-f", str(dump))
    _pg(_bin("dropdb"), *_conn_args(), "--if-exists", fresh)
    _pg(_bin("createdb"), *_conn_args(), fresh)
    try:
        _pg(_bin("pg_restore"), *_conn_args(), "--no-owner", "-d", fresh, str(dump))
        restored = _read(database_url_for_tests(NAME=fresh), lead.token)
        original = _read(database_url_for_tests(), lead.token)
    finally:
        _pg(_bin("dropdb"), *_conn_args(), "--if-exists", fresh)
    assert restored == original
    assert restored[0][0]["name"] == "web"
    assert len(restored[1]) == 1
    assert restored[1][0]["band"] == "resolution"
    assert {p["agentId"] for p in restored[2]["positions"]} == {"a1", "a2"}
