"""`make test`'s server wrapper names a missing server and its Debian package in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_missing_redis_server_is_one_line_naming_the_package(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "DATABASE_URL": "postgres://unused@127.0.0.1:1/x"}
    result = subprocess.run(
        [sys.executable, "-m", "tests.servers", "true"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 3
    assert result.stderr.strip().splitlines() == [
        "error: redis-server not found: install the Debian package 'redis-server'"
    ]


def test_urls_already_set_are_used_as_they_are(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "DATABASE_URL": "postgres://a@127.0.0.1:1/x",
        "REDIS_URL": "redis://127.0.0.1:1/0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "tests.servers", "sh", "-c", 'echo "$DATABASE_URL $REDIS_URL"'],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.strip() == "postgres://a@127.0.0.1:1/x redis://127.0.0.1:1/0"
