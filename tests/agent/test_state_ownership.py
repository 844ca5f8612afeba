"""The state folder and the daemon's socket are used only when they are this user's alone.

In a folder another user owns, or may write to, that user could plant acknowledgements or
answer every hook on the daemon's socket; the hook then fails open (exit 0, no output) with one
line saying why, and never connects to a socket someone else could have made.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from proximity.agent import warm
from tests.agent.conftest import Scene
from tests.agent.payloads import load

NOBODY = 65534


def _colliding_edit(scene: Scene) -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(old_string="line 22\n", new_string="changed\n")
    return payload


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def foreign_folder(tmp_path: Path) -> Path:
    """A folder that belongs to another user (made so as root; else the root folder, root's)."""
    if os.getuid() != 0:
        return Path("/")
    folder = tmp_path / "shared-state"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, NOBODY)
    return folder


def test_a_state_folder_of_another_user_is_refused_and_the_hook_fails_open(
    scene: Scene, foreign_folder: Path
) -> None:
    scene.state = foreign_folder

    run = scene.hook("claude", _colliding_edit(scene))

    assert (run.returncode, run.stdout) == (0, "")
    [line] = run.stderr.splitlines()
    assert "fail open" in line
    assert f"state folder {foreign_folder} belongs to uid" in line
    assert not (foreign_folder / "hooks.log").exists()


def test_radar_check_in_a_foreign_state_folder_is_one_line_and_exit_1(
    scene: Scene, foreign_folder: Path
) -> None:
    scene.state = foreign_folder

    run = scene.radar("check", "core.py", "--lines", "22")

    assert run.returncode == 1
    assert len(run.stderr.splitlines()) == 1
    assert "refused: set RADAR_STATE_DIR to a folder of your own" in run.stderr


def test_a_state_folder_others_may_write_to_is_refused(scene: Scene) -> None:
    scene.state.mkdir()
    scene.state.chmod(0o777)

    run = scene.hook("claude", _colliding_edit(scene))

    assert (run.returncode, run.stdout) == (0, "")
    assert "may be written by others (mode 777)" in run.stderr
    assert list(scene.state.iterdir()) == []


def test_a_new_state_folder_is_private_and_an_older_readable_one_is_closed(
    scene: Scene, tmp_path: Path
) -> None:
    run = scene.hook("claude", _colliding_edit(scene))
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert _mode(scene.state) == 0o700

    older = tmp_path / "older-state"
    older.mkdir()
    older.chmod(0o755)
    scene.state = older
    run = scene.hook("claude", _colliding_edit(scene))

    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert _mode(older) == 0o700
    assert "deny" in (older / "hooks.log").read_text()


class _FakeDaemon:
    """A Unix socket at the daemon's path that answers every call with its own verdict."""

    def __init__(self, path: str) -> None:
        self.calls = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.calls += 1
            with conn:
                while conn.recv(65536):
                    pass
                conn.sendall(json.dumps({"stdout": "HIJACKED"}).encode())

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def fake_daemon(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, _FakeDaemon]]:
    # a short state folder: a socket's path holds at most ~100 bytes, pytest's tmp_path may not
    state = tempfile.mkdtemp(prefix="radar-", dir="/tmp")  # created 0700
    monkeypatch.setenv("RADAR_DAEMON", "1")
    monkeypatch.setenv("RADAR_STATE_DIR", state)
    path = warm.socket_path()
    assert path is not None
    Path(path).parent.mkdir(mode=0o700, parents=True)
    daemon = _FakeDaemon(path)
    yield path, daemon
    daemon.close()
    shutil.rmtree(state)


def test_a_socket_others_may_connect_to_is_never_asked(
    fake_daemon: tuple[str, _FakeDaemon],
) -> None:
    path, daemon = fake_daemon
    os.chmod(path, 0o666)  # noqa: PTH101, S103  (the attack: a socket anyone may connect to)

    assert warm.ask(["hook", "claude"], "{}") is None
    assert daemon.calls == 0

    os.chmod(path, 0o600)  # noqa: PTH101
    assert warm.ask(["hook", "claude"], "{}") == "HIJACKED"  # the same socket, once private
    assert daemon.calls == 1


def test_a_socket_of_another_user_is_never_asked(fake_daemon: tuple[str, _FakeDaemon]) -> None:
    if os.getuid() != 0:
        pytest.skip("making a socket of another user needs root")
    path, daemon = fake_daemon
    os.chmod(path, 0o600)  # noqa: PTH101
    os.chown(path, NOBODY, NOBODY)

    assert warm.ask(["hook", "claude"], "{}") is None
    assert daemon.calls == 0


def test_a_state_folder_of_another_user_is_never_asked_for_a_daemon(
    foreign_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RADAR_DAEMON", "1")
    monkeypatch.setenv("RADAR_STATE_DIR", str(foreign_folder))

    assert warm.ask(["hook", "claude"], "{}") is None
    assert not (foreign_folder / "daemon").exists()
