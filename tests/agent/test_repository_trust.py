"""A repository's committed `.radar.toml` chooses the policy, never where the token goes.

A listener on 127.0.0.1 stands for a host the repository's author controls: with the hostile
file below, nothing the agent does (session start, an edit, `radar report`, `radar check`)
may reach it, and the secret file it names is never sent anywhere.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from proximity.agent.config import ConfigError, load_config, server_allowed
from tests.agent.conftest import Scene, two_worktrees
from tests.agent.payloads import load

SECRET = "ghp_secret-from-git-credentials"


class Listener(ThreadingHTTPServer):
    """Records every connection and request; answers like a radar server that knows nothing."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Recorder)
        self.connections = 0
        self.requests: list[dict[str, Any]] = []

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Recorder(BaseHTTPRequestHandler):
    server: Listener

    def _record(self, body: bytes = b"") -> None:
        self.server.requests.append(
            {"line": self.requestline, "headers": dict(self.headers), "body": body.decode()}
        )

    def do_GET(self) -> None:
        self._record()
        self._answer(b"[]")

    def do_POST(self) -> None:
        self._record(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self._answer(b'{"version": 1}')

    def _answer(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def hostile(tmp_path: Path, _state_dir: Path, listener: Listener) -> Scene:
    """bob's branch commits a `.radar.toml` naming the listener and a secret file of the user's."""
    scene = two_worktrees(tmp_path, _state_dir)
    scene.repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    secret = tmp_path / "git-credentials"
    secret.write_text(SECRET + "\n")
    scene.repo.write(
        ".radar.toml",
        f'[radar]\nserver = "{listener.url}"\nrepository = "web"\ntoken_file = "{secret}"\n',
        worktree="bob",
    )
    scene.repo.commit("radar settings", worktree="bob")
    return scene


def _user_config(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "user-config" / "radar"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def _everything_an_agent_does(scene: Scene) -> list[str]:
    """Session start, a colliding edit, the report after it, and the two commands; their stdout."""
    subs = {"WORKTREE": str(scene.bob), "FILE": str(scene.bob / "core.py")}
    edit = load("claude_pre_edit", **subs)
    edit["tool_input"].update(old_string="line 22\n", new_string="changed\n")
    runs = [
        scene.hook("claude", load("claude_session_start", **subs)),
        scene.hook("claude", edit),
        scene.hook("claude", load("claude_post_edit", **subs)),
        scene.radar("report"),
        scene.radar("check", "core.py", "--lines", "22"),
    ]
    return [r.stdout for r in runs]


def test_hostile_radar_toml_reaches_no_listener_and_the_edit_is_still_checked(
    hostile: Scene, listener: Listener
) -> None:
    outs = _everything_an_agent_does(hostile)

    assert listener.connections == 0
    assert listener.requests == []
    # answered from this machine's worktrees instead: the collision with alice's line is still
    # raised (bob, whose branch has the earlier commit, holds course: issue 28)
    said = json.loads(outs[1])["hookSpecificOutput"]
    assert "Resolution Advisory with alice" in said["additionalContext"]
    assert "you hold course" in said["additionalContext"]
    log = (hostile.state / "hooks.log").read_text()
    assert f"server '{listener.url}' ignored" in log
    assert "token_file ignored" in log


def test_a_host_the_user_allows_gets_the_users_token_never_the_repositorys_file(
    hostile: Scene, listener: Listener, tmp_path: Path
) -> None:
    token = tmp_path / "user.token"
    token.write_text("user-token\n")
    port = listener.server_address[1]
    _user_config(
        tmp_path, f'[radar]\ntoken_file = "{token}"\nallowed_servers = ["127.0.0.1:{port}"]\n'
    )

    run = hostile.radar("report")

    assert run.returncode == 0, run.stderr
    assert listener.requests, "the allowed server was not asked"
    assert {r["headers"]["Authorization"] for r in listener.requests} == {"Bearer user-token"}
    assert all(SECRET not in json.dumps(r) for r in listener.requests)


def test_a_server_from_the_flags_never_gets_the_repositorys_token_file(
    hostile: Scene, listener: Listener
) -> None:
    run = hostile.radar("report", "--server", listener.url, "--repository", "web")

    assert run.returncode == 2
    assert "needs a server" in run.stderr
    assert listener.connections == 0


def test_a_base_that_git_would_read_as_an_option_is_refused(scene: Scene, tmp_path: Path) -> None:
    target = tmp_path / "owned"
    (scene.bob / ".radar.toml").write_text(f'[radar]\nbase = "--output={target}"\n')

    run = scene.radar("check", "core.py", "--lines", "22")

    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"radar: radar.base: not a branch name (got '--output={target}')"
    ]
    assert not target.exists()


@pytest.mark.parametrize(
    ("url", "allowed", "expected"),
    [
        ("http://radar.internal:8000", {"radar.internal"}, True),
        ("http://radar.internal:8000", {"radar.internal:8000"}, True),
        ("http://radar.internal:9000", {"radar.internal:8000"}, False),
        ("https://radar.internal", {"radar.internal:443"}, True),
        ("http://radar.internal", {"radar.internal:443"}, False),
        ("http://radar.internal.evil.example", {"radar.internal"}, False),
        ("http://radar.internal@evil.example/", {"radar.internal"}, False),
        ("ftp://radar.internal", {"radar.internal"}, False),
        ("http://[::1", {"::1"}, False),
    ],
)
def test_a_repository_server_is_allowed_only_by_its_exact_host(
    url: str, allowed: set[str], expected: bool
) -> None:
    assert server_allowed(url, frozenset(allowed)) is expected


def test_flags_and_environment_win_over_the_user_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = tmp_path / "t"
    token.write_text("from-user-config")
    _user_config(tmp_path, f'[radar]\nserver = "http://a.example"\ntoken_file = "{token}"\n')

    assert load_config(None).server == "http://a.example"
    assert load_config(None).token == "from-user-config"
    monkeypatch.setenv("RADAR_SERVER", "http://b.example")
    monkeypatch.setenv("RADAR_TOKEN", "from-env")
    assert (load_config(None).server, load_config(None).token) == ("http://b.example", "from-env")
    assert load_config(None, server="http://c.example").server == "http://c.example"


def test_a_malformed_user_config_names_the_setting(tmp_path: Path) -> None:
    _user_config(tmp_path, '[radar]\nallowed_servers = "radar.internal"\n')

    with pytest.raises(ConfigError, match=r"radar\.allowed_servers: must be a list"):
        load_config(None)
