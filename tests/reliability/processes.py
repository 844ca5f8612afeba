"""Real processes for fault tests: gunicorn, Celery workers and a Redis we can stop and start.

Every process listens on loopback only, logs to a file under the test's tmp_path and is stopped
by the fixture that started it. Subprocesses reach the test database through DATABASE_URL built
from the live connection settings (pytest-django's ``test_<name>``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import requests
from django.conf import settings
from django.db import connection

__all__ = [
    "ROOT",
    "PostgresServer",
    "RedisServer",
    "celery_worker_process",
    "database_url_for_tests",
    "free_port",
    "gunicorn_process",
    "process_env",
    "run_sweep",
    "wait_for",
]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(predicate: Callable[[], Any], timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def database_url_for_tests(**override: str) -> str:
    db = {**settings.DATABASES["default"], "NAME": connection.settings_dict["NAME"], **override}
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def process_env(*, redis_url: str, database_url: str | None = None, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="overlap_site.settings.test",
        DATABASE_URL=database_url or database_url_for_tests(),
        REDIS_URL=redis_url,
        OVERLAP_LOG_LEVEL="WARNING",
        OVERLAP_REPORT_RATE="1000000/min",
        HF_HUB_OFFLINE="1",
        **extra,
    )
    return env


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextlib.contextmanager
def gunicorn_process(env: dict[str, str], log: Path, *, workers: int = 2) -> Iterator[str]:
    port = free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(  # fixed argument list, no shell
            [
                str(BIN / "gunicorn"),
                "overlap_site.wsgi",
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                str(workers),
                "--threads",
                "4",
                "--graceful-timeout",
                "5",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=out,
        )
    url = f"http://127.0.0.1:{port}"
    try:

        def ready() -> bool:
            with contextlib.suppress(requests.RequestException):
                return requests.get(f"{url}/api/openapi.json", timeout=5).status_code == 200
            return proc.poll() is not None

        assert wait_for(ready, timeout=60, step=0.2), "gunicorn did not start"
        assert proc.poll() is None, log.read_text()[-2000:]
        yield url
    finally:
        _stop(proc)


@contextlib.contextmanager
def celery_worker_process(
    env: dict[str, str], log: Path, *, pool: str = "solo"
) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        proc = subprocess.Popen(  # fixed argument list, no shell
            [
                str(BIN / "celery"),
                "-A",
                "celery_app",
                "worker",
                "-Q",
                "default,scans,overlap",
                "--pool",
                pool,
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=out,
        )
    try:
        yield proc
    finally:
        _stop(proc)


class RedisServer:
    """A redis-server on a fixed free port that a test can stop and start again."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        assert exe, "redis-server not found"
        self.exe, self.port = exe, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        self.proc = subprocess.Popen(  # fixed argument list, no shell
            [*args, "--appendonly", "no"], stdout=subprocess.DEVNULL
        )

        def up() -> bool:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return True
            return False

        assert wait_for(up, timeout=20), "redis-server did not start"

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


def run_sweep(env: dict[str, str]) -> int:
    """What beat's sweep task does, run now in a process on ``env``'s broker and database."""
    code = (
        "import django; django.setup(); "
        "from proximity.services.scan_requests import scan_requests_sweep as s; "
        "print(s(older_than_seconds=0))"
    )
    done = subprocess.run(  # fixed argument list, no shell
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(done.stdout.strip().splitlines()[-1])


class PostgresServer:
    """A throwaway PostgreSQL cluster (as tests/servers.py starts one) that can be restarted."""

    def __init__(self) -> None:
        from tests.servers import _as_postgres_user, _postgres_bindir

        self.bindir, self.prefix = _postgres_bindir(), _as_postgres_user()
        # Under /tmp, not pytest's tmp_path: the postgres user must be able to reach it.
        root = Path(tempfile.mkdtemp(prefix="radar-pg-"))
        self.root, self.port = root, free_port()
        self.data = root / "data"
        if self.prefix:
            shutil.chown(root, user="postgres")
        initdb = [str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U"]
        self._run([*initdb, "postgres", "-E", "UTF8", "--no-locale", "--no-sync"])

    def url(self, name: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def _run(self, args: list[str]) -> None:
        subprocess.run(  # fixed argument list, no shell
            [*self.prefix, *args], check=True, stdout=subprocess.DEVNULL, timeout=120
        )

    def _ctl(self, *args: str) -> None:
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.root / "server.log")
        ctl = [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", log]
        self._run([*ctl, *args])

    def start(self) -> None:
        self._ctl("-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-w", "-m", mode, "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
