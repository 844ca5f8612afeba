"""Two agents in real worktrees of one real repository, and the `radar` command to run."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.sources.gitrepo import ScriptedRepo, numbered

RADAR = str(Path(sys.executable).parent / "radar")

#: The agent tests that need the server or mcp extras (they drive the server's faces beside the
#: hook); the light-core run (RADAR_LIGHT_CORE=1, scripts/light-core-tests: only numpy, scipy and
#: watchdog installed) leaves exactly these out.
NEEDS_EXTRAS = (
    "test_hooks_server.py",
    "test_mcp_server.py",
    "test_report_excerpts.py",
    "test_report_leave.py",
    "test_right_of_way.py",
    "test_same_body_everywhere.py",
    "test_symbols_everywhere.py",
    "test_textual_merge.py",
)
LIGHT_CORE = os.environ.get("RADAR_LIGHT_CORE") == "1"
if LIGHT_CORE:
    collect_ignore = list(NEEDS_EXTRAS)


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Acknowledgements and the hook log of each test live in its own folder, and the user's
    own config (``$XDG_CONFIG_HOME/radar/config.toml``) is the test's: none unless it writes one.
    """
    state = tmp_path / "radar-state"
    monkeypatch.setenv("RADAR_STATE_DIR", str(state))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    for name in ("RADAR_SERVER", "RADAR_TOKEN", "RADAR_TOKEN_FILE", "RADAR_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    return state


@dataclass
class Scene:
    repo: ScriptedRepo
    alice: Path
    bob: Path
    state: Path

    def radar(
        self, *args: str, stdin: str = "", cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run the installed console script in a fresh process, as a harness does."""
        return subprocess.run(
            [RADAR, *args],
            input=stdin,
            cwd=cwd or self.bob,
            env={**os.environ, "RADAR_STATE_DIR": str(self.state)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def hook(self, harness: str, payload: object, *flags: str) -> subprocess.CompletedProcess[str]:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return self.radar("hook", harness, *flags, stdin=text)


def two_worktrees(tmp_path: Path, state: Path) -> Scene:
    """core.py (60 lines) and util.py (10) on main; alice and bob forked from it, untouched."""
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.write("util.py", numbered(10))
    repo.commit("base")
    alice = repo.add_worktree("alice")
    bob = repo.add_worktree("bob")
    return Scene(repo, alice, bob, state)


def reporting_worktrees(
    tmp_path: Path, state: Path, server_url: str
) -> tuple[Scene, dict[str, list[str]]]:
    """alice and bob in worktrees of repository ``web`` (core.py, 60 lines), each with a token
    bound to its agent id, and the ``radar`` flags that report to the server at ``server_url``."""
    from tests.factories import bind_agents, make_caller, make_repository  # the server's extras

    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    alice = repo.add_worktree("alice")
    bob = repo.add_worktree("bob")
    make_repository("web", scope="team-a")
    flags: dict[str, list[str]] = {}
    for name in ("alice", "bob"):
        caller = bind_agents(
            make_caller(f"{name}-bot", scopes=["team-a"], kind="agent"), "web", name
        )
        token = tmp_path / f"{name}.token"
        token.write_text(caller.token)
        flags[name] = ["--server", server_url, "--token-file", str(token), "--repository", "web"]
    return Scene(repo, alice, bob, state), flags


@pytest.fixture
def scene(tmp_path: Path, _state_dir: Path) -> Scene:
    """alice has an uncommitted edit of core.py line 22; bob has not started yet."""
    made = two_worktrees(tmp_path, _state_dir)
    made.repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    return made


def daemon_status(scene: Scene) -> dict[str, int] | None:
    run = scene.radar("daemon", "status")
    if run.returncode != 0:
        return None
    words = run.stdout.split()
    return {"pid": int(words[2].rstrip(",")), "served": int(words[3])}


def wait_daemon(scene: Scene, *, running: bool, within: float = 30.0) -> dict[str, int] | None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        status = daemon_status(scene)
        if (status is not None) == running:
            return status
        time.sleep(0.1)
    raise AssertionError(f"the daemon did not {'start' if running else 'stop'} in {within} s")


@pytest.fixture
def warm(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    """The daemon on for this test (conftest turns it off for every other), stopped after.

    Its state folder is a short one: a socket path holds at most 108 bytes, and pytest's
    folders (``/tmp/pytest-of-USER/pytest-NNN/TEST-NAME/``) grow past that."""
    monkeypatch.setenv("RADAR_DAEMON", "1")
    monkeypatch.setenv("RADAR_DAEMON_IDLE", "120")
    short = Path(tempfile.mkdtemp(prefix="rs-"))
    monkeypatch.setenv("RADAR_STATE_DIR", str(short))
    scene.state = short
    yield scene
    scene.radar("daemon", "stop")
    for lock in (scene.state / "daemon").glob("*.lock"):  # any other this test started
        with lock.open() as held:
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
                continue  # nobody holds it: that daemon is gone (its pid may be reused)
            except BlockingIOError:
                pid = held.read().strip()
        with contextlib.suppress(ValueError, ProcessLookupError):
            os.kill(int(pid), signal.SIGTERM)
            os.kill(int(pid), signal.SIGCONT)  # a stopped one gets its SIGTERM now
    shutil.rmtree(short, ignore_errors=True)
