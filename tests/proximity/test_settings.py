"""Storage and queue follow the environment, and malformed values stop start-up with one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], "
    "'name': str(s.DATABASES['default']['NAME']), 'eager': s.CELERY_TASK_ALWAYS_EAGER, "
    "'broker': s.CELERY_BROKER_URL}))"
)


def _run(env_overrides: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update({"DJANGO_SETTINGS_MODULE": "overlap_site.settings.local", **env_overrides})
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_unset_urls_give_embedded_sqlite_and_in_process_tasks() -> None:
    result = _run({}, "-c", PROBE)
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout)
    assert probe["engine"] == "django.db.backends.sqlite3"
    assert probe["name"] == str(ROOT / "db.sqlite3")
    assert probe["eager"] is True
    assert probe["broker"] == "memory://localhost/"


CONNECT = (
    "import django, logging; logging.basicConfig(); django.setup(); "
    "from celery_app.app import app; "
    "conn = app.connection_for_write(); conn.ensure_connection(max_retries=1); "
    "print(conn.info()['transport'])"
)


@pytest.mark.parametrize(
    ("env", "transport"),
    [({}, "memory"), ({"OVERLAP_QUEUE_DIR": "{tmp}/queue"}, "filesystem")],
)
def test_the_embedded_brokers_connect_without_kombus_hostname_warning(
    env: dict[str, str], transport: str, tmp_path: Path
) -> None:
    result = _run({k: v.format(tmp=tmp_path) for k, v in env.items()}, "-c", CONNECT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == transport
    assert "No hostname was supplied" not in result.stderr


def test_a_queue_folder_gives_a_real_queue_that_needs_no_server(tmp_path: Path) -> None:
    probe = json.loads(_run({"OVERLAP_QUEUE_DIR": str(tmp_path)}, "-c", PROBE).stdout)
    assert (probe["eager"], probe["broker"]) == (False, "filesystem://localhost/")


def test_set_urls_give_postgresql_and_real_broker() -> None:
    env = {
        "DATABASE_URL": "postgres://u:p%40ss@db.example:6543/radar",
        "REDIS_URL": "redis://r:6379/1",
    }
    probe = json.loads(_run(env, "-c", PROBE).stdout)
    assert probe == {
        "engine": "django.db.backends.postgresql",
        "name": "radar",
        "eager": False,
        "broker": "redis://r:6379/1",
    }


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("DATABASE_URL", "mysql://root@localhost/db", "DATABASE_URL: unknown scheme 'mysql'"),
        (
            "DATABASE_URL",
            "postgres://root@localhost:54x2/db",
            "DATABASE_URL: port is not an integer",
        ),
        ("REDIS_URL", "http://localhost:6379", "REDIS_URL: unknown scheme 'http'"),
        ("OVERLAP_MAX_BODY_BYTES", "lots", "OVERLAP_MAX_BODY_BYTES: expected an integer"),
        ("DJANGO_DEBUG", "maybe", "DJANGO_DEBUG: expected true/false"),
    ],
)
def test_malformed_environment_stops_startup_with_one_line(
    variable: str, value: str, expected: str
) -> None:
    result = _run({variable: value}, "manage.py", "check")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert expected in lines[0]


def test_production_settings_refuse_a_missing_secret_key() -> None:
    result = _run(
        {"DJANGO_SETTINGS_MODULE": "overlap_site.settings.production"}, "manage.py", "check"
    )
    assert result.returncode == 2
    assert "DJANGO_SECRET_KEY" in result.stderr


_PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "overlap_site.settings.production",
    "DJANGO_SECRET_KEY": "k" * 64,
}
_HOSTS_PROBE = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps(s.ALLOWED_HOSTS))"
)


def test_production_settings_refuse_unset_allowed_hosts() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOWED_HOSTS"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**env, **_PRODUCTION},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "DJANGO_ALLOWED_HOSTS: production needs the site's host names" in lines[0]


def test_production_settings_take_allowed_hosts_from_the_environment() -> None:
    env = {**_PRODUCTION, "DJANGO_ALLOWED_HOSTS": "radar.example.org, .example.net"}
    result = _run(env, "-c", _HOSTS_PROBE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["radar.example.org", ".example.net"]


def test_manage_py_without_the_server_extra_names_it_in_one_line() -> None:
    # The light agent install has no Django: None in sys.modules makes `import django` fail
    # exactly as it does there.
    blocked = (
        "import runpy, sys; sys.modules['django'] = None; sys.argv = ['manage.py', 'doctor']; "
        "runpy.run_path('manage.py', run_name='__main__')"
    )
    result = subprocess.run(
        [sys.executable, "-c", blocked],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "the server needs the [server] extra (no module 'django'): "
        "pip install 'overlap-radar[server]'"
    ]
