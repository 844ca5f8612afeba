"""PostgreSQL restarted under load: reports fail cleanly (503 with the JSON error body) while
it is down, and succeed again once it is back, with no process restarted by hand."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
import requests

from tests.reliability.processes import (
    ROOT,
    PostgresServer,
    RedisServer,
    gunicorn_process,
    process_env,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SEED = (
    "import django; django.setup(); "
    "from proximity.models import Repository; "
    "from proximity.services.tokens import principal_create, token_issue; "
    "Repository.objects.create(name='web', scope='team-a'); "
    "p = principal_create(name='loader', kind='agent', scopes=['team-a'], clearances=[], "
    "creates_agents=True); "
    "print(token_issue(principal=p)[0])"
)


def _prepare(env: dict[str, str]) -> str:
    run = {"cwd": ROOT, "env": env, "capture_output": True, "text": True, "timeout": 180}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], check=True, **run)
    return subprocess.run([sys.executable, "-c", SEED], check=True, **run).stdout.strip()


def _load(url: str, token: str, stop: threading.Event, seen: list) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    n = 0
    while not stop.is_set():
        body = {"repository": "web", "agentId": f"a{n % 4}", "files": [{"path": f"f{n}.py"}]}
        began = time.monotonic()
        try:
            r = session.post(f"{url}/api/working-sets", json=body, timeout=30)
            seen.append((began, r.status_code, r.headers.get("content-type"), r.text))
        except requests.RequestException as exc:  # a dropped connection is not a clean failure
            seen.append((began, 0, None, repr(exc)))
        n += 1
        time.sleep(0.05)


@pytest.mark.timeout(240)
def test_requests_get_503_while_postgres_restarts_and_201_after(tmp_path) -> None:
    pg = PostgresServer()
    pg.start()
    broker = RedisServer()
    broker.start()
    env = process_env(redis_url=broker.url, database_url=pg.url())
    env["OVERLAP_DB_CONN_MAX_AGE"] = "60"  # persistent connections: the harder case
    try:
        token = _prepare(env)
        with gunicorn_process(env, tmp_path / "web.log", workers=2) as url:
            stop, seen = threading.Event(), []
            threads = [threading.Thread(target=_load, args=(url, token, stop, seen)) for _ in "ab"]
            for t in threads:
                t.start()
            time.sleep(2)
            down_at = time.monotonic()  # before the stop begins: in-flight requests may fail
            pg.stop()
            time.sleep(3)
            pg.start()
            up_at = time.monotonic()
            time.sleep(4)
            stop.set()
            for t in threads:
                t.join(timeout=60)
    finally:
        broker.stop()
        pg.remove()
    codes = Counter(code for _, code, _, _ in seen)
    assert set(codes) <= {201, 503}, codes
    assert codes[503] > 0, "no request reached the outage: the test proved nothing"
    failures = [(ctype, text) for _, code, ctype, text in seen if code == 503]
    assert all(ctype.startswith("application/json") for ctype, _ in failures), failures[:3]
    assert all('"detail": "database unavailable, retry shortly"' in text for _, text in failures)
    before = [code for at, code, _, _ in seen if at < down_at - 1.0]
    after = [code for at, code, _, _ in seen if at > up_at + 1.0]
    assert before
    assert set(before) == {201}
    assert len(after) >= 5
    assert set(after[-5:]) == {201}, after
