"""The first hour on a team's own repository, end to end (issue 27, point 9).

A small Python package on ``main``, three agents in ``git worktree add -b agent-N`` worktrees,
hooks installed for two harnesses (Claude Code and Codex), and ``manage.py up`` on the embedded
default (SQLite, no Redis: a Celery worker with an embedded beat on the filesystem queue) as a
real process. Then: no advisory before anyone edits code (radar's own files are nobody's work);
agents 1 and 2 change the same lines of ``cart.py``; agent 3 changes ``unit_price``, which agent
1's changed lines call. The harness's own hook commands report each edit; the advisories, with
the excerpts of what each side changed, are read back through the API, and the watcher keeps
reading on its own (the beat really runs). The board's browser assertions are in
``test_board_browser.py``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proximity.agent.harness_places import place
from proximity.agent.install import SPECS
from tests.agent.payloads import load
from tests.sources.gitrepo import run_git

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RADAR = str(Path(sys.executable).parent / "radar")
AGENTS = ("agent-1", "agent-2", "agent-3")
HARNESS = {"agent-1": "claude", "agent-2": "claude", "agent-3": "codex"}

PRICING = '''"""Prices."""


def unit_price(item):
    """The price of one item, in cents."""
    return item["cents"]


def discount(cents, percent):
    return cents - cents * percent // 100
'''
CART = '''"""The cart."""

from invkit.pricing import discount, unit_price


def total(cart):
    """The cart's total, in cents."""
    cents = 0
    for item in cart:
        cents += unit_price(item) * item["quantity"]
    return cents


def total_with_discount(cart, percent):
    return discount(total(cart), percent)
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


last_seen: dict[str, Any] = {}


def _until(what: str, probe: Callable[[], Any], timeout: float = 90.0) -> Any:
    """Poll ``probe`` until it returns something truthy; bounded, then a failure naming it."""
    deadline = time.monotonic() + timeout
    found = None
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what} (last: {last_seen.get(what)!r})")


@dataclass
class FirstHour:
    tmp: Path
    root: Path
    url: str
    env: dict[str, str]
    up: subprocess.Popen[str]
    tokens: dict[str, Path]

    def worktree(self, agent: str) -> Path:
        return self.tmp / agent

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def api(self, path: str, agent: str = "agent-1", body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(  # noqa: S310 (the test's own loopback server)
            self.url + path,
            data=data,
            headers={
                "Authorization": f"Bearer {self.tokens[agent].read_text().strip()}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (loopback)
            return json.loads(response.read())

    def advisories(self) -> list[dict[str, Any]]:
        rows = self.api("/api/advisories?repository=invkit&state=open")
        return sorted(rows, key=lambda a: (a["agentA"], a["agentB"]))

    def hook(self, agent: str, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess:
        """Run the command the harness's installed settings name for ``event``, as it would."""
        harness = HARNESS[agent]
        # the file this harness reads for the worktree (Codex: the main checkout's .codex/)
        where = place(SPECS[harness], "project", str(self.worktree(agent)))
        settings = json.loads(where.path.read_text())
        command = settings["hooks"][event][0]["hooks"][0]["command"]
        # the harness runs the installed command through a shell
        return subprocess.run(  # noqa: S602
            command,
            shell=True,
            input=json.dumps(payload),
            cwd=self.worktree(agent),
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def _package(tmp: Path) -> Path:
    root = tmp / "invkit"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    (root / "invkit").mkdir()
    (root / "invkit" / "__init__.py").write_text("")
    (root / "invkit" / "pricing.py").write_text(PRICING)
    (root / "invkit" / "cart.py").write_text(CART)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "invkit 0.1")
    for agent in AGENTS:
        run_git(root, "worktree", "add", "-q", "-b", agent, f"../{agent}")
    return root


@pytest.fixture
def first_hour(tmp_path: Path) -> Iterator[FirstHour]:
    # the embedded default: SQLite (in the test's folder) and no Redis
    yield from _serve_up(tmp_path, {"DATABASE_URL": f"sqlite:///{tmp_path}/radar.sqlite3"})


def _serve_up(tmp_path: Path, storage: dict[str, str]) -> Iterator[FirstHour]:
    root = _package(tmp_path)
    port = _free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        **storage,
        OVERLAP_VAR_DIR=str(tmp_path / "var"),
        OVERLAP_WATCH_INTERVAL_SECONDS="2",
        RADAR_STATE_DIR=str(tmp_path / "radar-state"),
        HOME=str(tmp_path / "home"),
    )
    (tmp_path / "home").mkdir()
    password = tmp_path / "dana.password"
    up = subprocess.Popen(
        [sys.executable, "manage.py", "up", str(root), "--lead", "dana",
         "--addr", f"127.0.0.1:{port}", "--password-file", str(password)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    scene = FirstHour(tmp_path, root, url, env, up, {})
    try:
        _until("the board to answer", lambda: _answers(url + "/api/health/live"), timeout=240)
        yield scene
    finally:
        _stop(up)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (loopback)
            return bool(response.status == 200)
    except OSError:
        return False


def _stop(up: subprocess.Popen[str]) -> None:
    """SIGTERM to ``up`` alone must take its worker and web server along."""
    if up.poll() is None:
        up.send_signal(signal.SIGTERM)
    try:
        up.wait(timeout=30)
    finally:
        try:
            _until("up's children to end", lambda: not _group_alive(up.pid), timeout=30)
        finally:
            if _group_alive(up.pid):
                os.killpg(up.pid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _edit(worktree: Path, rel: str, old: str, new: str) -> None:
    path = worktree / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _claude_post(scene: FirstHour, agent: str, rel: str) -> dict[str, Any]:
    tree = scene.worktree(agent)
    payload = load("claude_post_edit", WORKTREE=str(tree), FILE=str(tree / rel))
    payload["tool_input"].update(old_string="x", new_string="y")
    return payload


def test_the_first_hour_on_a_teams_own_repository(first_hour: FirstHour) -> None:
    scene = first_hour
    # the lead's login exists, with its password in a 0600 file
    password = scene.tmp / "dana.password"
    assert password.stat().st_mode & 0o777 == 0o600
    # one token per agent, each in a 0600 file, and the hooks of two harnesses installed
    for agent in AGENTS:
        token = scene.tmp / f"{agent}.token"
        made = scene.manage(
            "tokens", "issue", f"{agent}-bot", "--scope", "invkit",
            "--agent", f"invkit:{agent}", "--out", str(token),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert token.stat().st_mode & 0o777 == 0o600
        scene.tokens[agent] = token
        installed = subprocess.run(
            [RADAR, "hooks", "install", "--harness", HARNESS[agent], "--server", scene.url,
             "--token-file", str(token), "--repository", "invkit"],
            cwd=scene.worktree(agent), env=scene.env, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        assert run_git(scene.worktree(agent), "status", "--porcelain") == ""

    # the beat really runs: the watcher keeps reading (doctor says so) while nothing changes
    def read_on_time() -> bool:
        doctor = scene.manage("doctor", "--json", "--quick")
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        last_seen["doctor to see the worker and the watcher"] = {
            k: (checks[k]["status"], checks[k].get("detail")) for k in ("watchers", "workers")
        }
        return checks["watchers"]["status"] == "ok" and checks["workers"]["status"] == "ok"

    assert _until("doctor to see the worker and the watcher", read_on_time)
    agents = {a["agentId"]: a["files"] for a in scene.api("/api/repositories/invkit/agents")}
    assert {a: agents.get(a) for a in AGENTS} == {a: [] for a in AGENTS}
    assert scene.advisories() == []  # hook settings everywhere, no code edited: no advisory

    # agents 1 and 2 change the same lines of cart.py; agent 3 changes unit_price, which
    # agent 1's changed lines call
    loop = '        cents += unit_price(item) * item["quantity"]\n'
    _edit(scene.worktree("agent-1"), "invkit/cart.py", loop,
          '        cents += unit_price(item) * item.get("quantity", 1)\n')  # fmt: skip
    _edit(scene.worktree("agent-2"), "invkit/cart.py", loop,
          '        cents += round(unit_price(item) * item["quantity"])\n')  # fmt: skip
    _edit(scene.worktree("agent-3"), "invkit/pricing.py", "def unit_price(item):\n",
          "def unit_price(item, currency):\n")  # fmt: skip
    for agent in ("agent-1", "agent-2"):
        post = scene.hook(agent, "PostToolUse", _claude_post(scene, agent, "invkit/cart.py"))
        assert post.returncode == 0, post.stderr
    codex = load("codex_post", WORKTREE=str(scene.worktree("agent-3")))
    codex["tool_input"]["command"] = (
        "*** Begin Patch\n*** Update File: invkit/pricing.py\n@@\n-def unit_price(item):\n"
        "+def unit_price(item, currency):\n*** End Patch\n"
    )
    assert scene.hook("agent-3", "PostToolUse", codex).returncode == 0

    def settled() -> list[dict[str, Any]] | None:
        rows = scene.advisories()
        last_seen["the advisories"] = [
            (a["agentA"], a["agentB"], a["band"], a["channels"]) for a in rows
        ]
        # settled once a scan has seen both sides' edits: a scan that ran between one agent's
        # report and the other's shows the pair by the tree alone, an earlier state, not this one
        seen = {(a["agentA"], a["agentB"]): a["channels"] for a in rows}
        both = seen.get(("agent-1", "agent-2"), {}).get("overlap", 0) > 0
        return rows if both and seen.get(("agent-1", "agent-3"), {}).get("symbol", 0) > 0 else None

    rows = {(a["agentA"], a["agentB"]): a for a in _until("the advisories", settled)}
    same_lines = rows[("agent-1", "agent-2")]
    assert same_lines["band"] == "resolution"
    assert same_lines["channels"]["overlap"] > 0
    shared = {f["path"]: f for f in same_lines["detail"]["sharedFiles"]}["invkit/cart.py"]
    sides = json.dumps(shared)
    assert 'item.get(\\"quantity\\", 1)' in sides  # agent 1's excerpt
    assert "round(unit_price(item)" in sides  # agent 2's excerpt
    assert {same_lines["hold"], same_lines["steer"]} == {"agent-1", "agent-2"}
    called = rows[("agent-1", "agent-3")]
    assert called["band"] in {"traffic", "resolution"}
    assert called["channels"]["symbol"] > 0  # a call in agent 1's lines, a new parameter in 3's
    # radar's own files raised nothing: every advisory is about code
    for advisory in rows.values():
        for entry in advisory["detail"]["sharedFiles"]:
            assert entry["path"].startswith("invkit/"), entry["path"]

    # agent 2 asks before touching the loop again: the server denies, quoting agent 1's change
    pre = load("claude_pre_edit", WORKTREE=str(scene.worktree("agent-2")),
               FILE=str(scene.worktree("agent-2") / "invkit" / "cart.py"))  # fmt: skip
    pre["tool_input"].update(old_string='round(unit_price(item) * item["quantity"])',
                             new_string="unit_price(item)")  # fmt: skip
    denied = scene.hook("agent-2", "PreToolUse", pre)
    decision = json.loads(denied.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "agent-1" in decision["permissionDecisionReason"]
    # quoted as data (issue 26): another agent's text reaches the model as an escaped string
    assert 'item.get(\\"quantity\\", 1)' in decision["permissionDecisionReason"], decision


def _fresh_database(url: str, name: str) -> str:
    """A new database on the test run's PostgreSQL server, for ``up`` to migrate."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def on_postgres_and_redis(tmp_path: Path) -> Iterator[FirstHour]:
    database, redis = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    if not (database and redis and database.startswith("postgres")):
        pytest.fail("needs DATABASE_URL (PostgreSQL) and REDIS_URL: run under tests.servers")
    storage = {
        "DATABASE_URL": _fresh_database(database, "radar_up_e2e"),
        "REDIS_URL": redis.rsplit("/", 1)[0] + "/7",  # a Redis database no other test uses
    }
    yield from _serve_up(tmp_path, storage)


def test_up_against_postgresql_and_redis_runs_a_worker_and_a_beat(
    on_postgres_and_redis: FirstHour,
) -> None:
    scene = on_postgres_and_redis

    def healthy() -> dict[str, Any] | None:
        doctor = scene.manage("doctor", "--json", "--quick")
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        ok = all(checks[n]["status"] == "ok" for n in ("workers", "watchers", "database"))
        return checks if ok else None

    checks = _until("a worker and a beat on Redis", healthy)
    assert checks["database"]["detail"].startswith("postgresql")
    assert checks["broker"]["detail"].startswith("Redis reachable")
    assert "radar-up@" in checks["workers"]["detail"]
    # the beat keeps the watcher reading: an edit shows up with no report from the agent
    _edit(scene.worktree("agent-2"), "invkit/pricing.py", "def discount(", "def discounted(")
    scene.tokens["agent-1"] = scene.tmp / "reader.token"
    made = scene.manage(
        "tokens", "issue", "reader", "--scope", "invkit", "--out", str(scene.tokens["agent-1"])
    )
    assert made.returncode == 0, made.stderr

    def watched() -> bool:
        agents = {a["agentId"]: a for a in scene.api("/api/repositories/invkit/agents")}
        files = agents.get("agent-2", {}).get("files", [])
        return [f["path"] for f in files] == ["invkit/pricing.py"]

    assert _until("the watcher to read agent-2's edit", watched)
