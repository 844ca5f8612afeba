"""Claude Code's PreToolUse as an HTTP call to the daemon, answered only with this user's token."""

from __future__ import annotations

import http.client
import json
import os
import socket
import stat
import subprocess
import time
from pathlib import Path

from tests.agent.conftest import RADAR, Scene, wait_daemon
from tests.agent.payloads import load


def _edit(scene: Scene, old: str) -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(old_string=old, new_string="changed\n")
    return payload


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _post(port: int, body: str, headers: dict[str, str]) -> tuple[int, str]:
    for _ in range(100):  # the daemon opens its port once it sees the installed hook
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("POST", "/hook/claude", body=body.encode(), headers=headers)
            answer = conn.getresponse()
            return answer.status, answer.read().decode()
        except ConnectionRefusedError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def _cold(scene: Scene, payload: dict) -> str:
    return subprocess.run(
        [RADAR, "hook", "claude"], input=json.dumps(payload), cwd=scene.bob,
        env={**os.environ, "RADAR_STATE_DIR": str(scene.state), "RADAR_DAEMON": "0"},
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def _install(scene: Scene, port: int) -> dict:
    run = scene.radar("hooks", "install", "--harness", "claude", "--scope", "local", "--http",
                      "--http-port", str(port), "--path", str(scene.bob))  # fmt: skip
    assert run.returncode == 0, run.stderr
    settings = scene.bob / ".claude" / "settings.local.json"
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert stat.S_IMODE((scene.state / "http-token").stat().st_mode) == 0o600
    return json.loads(settings.read_text())


def test_the_http_hook_answers_as_the_command_hook_only_with_the_token(warm: Scene) -> None:
    port = _free_port()
    data = _install(warm, port)
    (entry,) = [e for e in data["hooks"]["PreToolUse"] if e["hooks"][0]["type"] == "http"]
    handler = entry["hooks"][0]
    assert handler["url"] == f"http://127.0.0.1:{port}/hook/claude"
    token = (warm.state / "http-token").read_text().strip()
    assert handler["headers"] == {"Authorization": f"Bearer {token}"}
    assert not any(  # the command form no longer answers the same event
        h.get("type") == "command" for e in data["hooks"]["PreToolUse"] for h in e["hooks"]
    )
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["type"] == "command"  # starts the daemon

    deny, clear = _edit(warm, "line 22\n"), _edit(warm, "line 50\n")
    expected_deny = _cold(warm, deny)
    warm.hook("claude", clear)
    wait_daemon(warm, running=True)
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    status, body = _post(port, json.dumps(deny), auth)
    assert (status, body + "\n") == (200, expected_deny)
    assert json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert _post(port, json.dumps(clear), auth) == (200, "")

    assert _post(port, json.dumps(deny), {})[0] == 401
    assert _post(port, json.dumps(deny), {"Authorization": f"Bearer {token}x"})[0] == 401
    assert _post(port, json.dumps(deny), {"Authorization": token})[0] == 401

    run = warm.radar("hooks", "uninstall", "--harness", "claude", "--scope", "local", "--path",
                     str(warm.bob))  # fmt: skip
    assert run.returncode == 0
    assert "removed the HTTP hook" in run.stdout
    left = warm.bob / ".claude" / "settings.local.json"
    assert not left.exists() or "127.0.0.1" not in left.read_text()


def test_the_http_hook_is_refused_in_the_committed_project_settings(scene: Scene) -> None:
    run = scene.radar("hooks", "install", "--harness", "claude", "--scope", "project", "--http",
                      "--path", str(scene.bob))  # fmt: skip
    assert run.returncode == 1
    assert "--scope local or --scope user" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert not (scene.bob / ".claude" / "settings.json").exists()
    assert not Path(scene.state / "http-token").exists()
