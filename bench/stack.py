"""Start the real stack for service benchmarks: gunicorn + Celery workers over PostgreSQL and Redis.

Run a benchmark through the throwaway servers, e.g.
``.venv/bin/python -m tests.servers .venv/bin/python -m bench.pipeline``; everything listens on
loopback only and every process started here is stopped on exit.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bench_env(**extra: str) -> dict[str, str]:
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        raise SystemExit("run through `python -m tests.servers`: DATABASE_URL and REDIS_URL needed")
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="overlap_site.settings.local",
        DJANGO_DEBUG="false",
        HF_HUB_OFFLINE="1",
        OVERLAP_LOG_LEVEL="WARNING",
        # bench/pipeline.py reports for 50 agents through one token; the per-token limit is
        # a production guard, not what these benchmarks measure (bench/load.py sets its own).
        OVERLAP_REPORT_RATE="1000000/min",
    )
    env.update(extra)
    return env


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)


@dataclass
class Stack:
    url: str
    processes: list[subprocess.Popen[bytes]]


@contextlib.contextmanager
def running_stack(
    env: dict[str, str], *, web_workers: int = 3, celery_procs: int = 2, threads: int = 4
) -> Iterator[Stack]:
    port = _free_port()
    log = (ROOT / "var" / "bench-stack.log").open("ab")  # closed in finally
    procs = [
        subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "overlap_site.wsgi",
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                str(web_workers),
                "--threads",
                str(threads),
                "--keep-alive",  # longer than the clients' report interval: no reset races
                "30",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        ),
        subprocess.Popen(
            [
                str(BIN / "celery"),
                "-A",
                "celery_app",
                "worker",
                "-Q",
                "default,scans,overlap",
                "-c",
                str(celery_procs),
                "--loglevel",
                "WARNING",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        ),
    ]
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(url)
        yield Stack(url, procs)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()


def _wait_ready(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{url}/api/openapi.json", timeout=5).status_code == 200:
                return
        time.sleep(0.2)
    raise SystemExit(f"the web server did not answer at {url} within {timeout:.0f} s")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)
