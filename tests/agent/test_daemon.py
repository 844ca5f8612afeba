"""The warm daemon behind `radar hook`: the same answers as a hook alone, never a dependency."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.agent.conftest import RADAR, Scene
from tests.agent.conftest import daemon_status as _status
from tests.agent.conftest import wait_daemon as _wait
from tests.agent.payloads import load
from tests.sources.gitrepo import run_git


def _edit(scene: Scene, old: str) -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(
        file_path=str(scene.bob / "core.py"), old_string=old, new_string="changed\n"
    )
    payload["tool_input"].pop("replace_all", None)
    return payload


def _cold(scene: Scene, payload: dict) -> str:
    run = subprocess.run(
        [RADAR, "hook", "claude"],
        input=json.dumps(payload),
        cwd=scene.bob,
        env={**os.environ, "RADAR_STATE_DIR": str(scene.state), "RADAR_DAEMON": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout


def test_a_first_hook_starts_the_daemon_which_then_answers_the_same(warm: Scene) -> None:
    deny, clear = _edit(warm, "line 22\n"), _edit(warm, "line 50\n")
    expected_deny, expected_clear = _cold(warm, deny), _cold(warm, clear)
    assert json.loads(expected_deny)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert expected_clear == ""

    first = warm.hook("claude", deny)  # no daemon yet: answered here, and one is started
    assert (first.returncode, first.stdout) == (0, expected_deny)
    assert _wait(warm, running=True)["served"] == 0
    for payload, expected in (
        (deny, expected_deny),
        (clear, expected_clear),
        (deny, expected_deny),
    ):
        run = warm.hook("claude", payload)
        assert (run.returncode, run.stdout, run.stderr) == (0, expected, "")
    assert _status(warm)["served"] == 3
    doctor = warm.radar("hooks", "doctor", "--harness", "claude", "--path", str(warm.bob))
    assert "daemon: running, pid" in doctor.stdout
    assert "3 hook call(s) answered" in doctor.stdout


def test_the_daemon_sees_each_change_of_another_worktree_at_once(warm: Scene) -> None:
    warm.hook("claude", _edit(warm, "line 40\n"))
    _wait(warm, running=True)
    assert warm.hook("claude", _edit(warm, "line 40\n")).stdout == ""
    warm.repo.replace_lines("core.py", 40, 40, worktree="alice", tag="alice")
    run = warm.hook("claude", _edit(warm, "line 40\n"))
    decision = json.loads(run.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "core.py lines 22, 40" in decision["permissionDecisionReason"]  # read just now
    assert _status(warm)["served"] == 2


def test_one_callers_settings_never_reach_the_next_call(warm: Scene) -> None:
    deny = _edit(warm, "line 22\n")
    expected = _cold(warm, deny)
    warm.hook("claude", deny)
    _wait(warm, running=True)
    (warm.bob.parent / "token").write_text("not-a-real-token\n")
    remote = warm.hook(
        "claude", deny, "--server", "http://127.0.0.1:9", "--repository", "r", "--token-file",
        "../token",
    )  # fmt: skip
    # A relative token file is the caller's: the daemon resolved it in the caller's folder, so
    # the failure is the unreachable server (fail open), not a missing file.
    assert remote.stdout == ""
    log = (warm.state / "hooks.log").read_text()
    assert "fail open" in log
    assert "127.0.0.1:9" in log
    assert warm.hook("claude", deny).stdout == expected  # local again: nothing was kept
    assert _status(warm)["served"] == 2


def test_a_killed_daemon_costs_an_answer_nothing(warm: Scene) -> None:
    deny = _edit(warm, "line 22\n")
    expected = _cold(warm, deny)
    warm.hook("claude", deny)
    pid = _wait(warm, running=True)["pid"]
    os.kill(pid, signal.SIGKILL)  # its socket file stays behind
    time.sleep(0.2)
    assert warm.hook("claude", deny).stdout == expected  # answered here
    for marker in (warm.state / "daemon").glob("*.started"):
        marker.unlink()  # past the pause between start attempts
    assert warm.hook("claude", deny).stdout == expected
    assert _wait(warm, running=True)["pid"] != pid


def test_bad_arguments_are_refused_by_the_caller_and_the_daemon_lives_on(warm: Scene) -> None:
    deny = _edit(warm, "line 22\n")
    warm.hook("claude", deny)
    pid = _wait(warm, running=True)["pid"]
    run = warm.hook("claude", deny, "--no-such-flag")
    assert run.returncode == 2
    assert "unrecognized arguments: --no-such-flag" in run.stderr
    assert _status(warm)["pid"] == pid


def test_an_idle_daemon_leaves_by_itself(warm: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RADAR_DAEMON_IDLE", "1")
    warm.hook("claude", _edit(warm, "line 22\n"))
    _wait(warm, running=True)
    _wait(warm, running=False, within=20)
    assert not list((warm.state / "daemon").glob("*.sock"))


def test_stop_stops_it(warm: Scene) -> None:
    warm.hook("claude", _edit(warm, "line 22\n"))
    _wait(warm, running=True)
    run = warm.radar("daemon", "stop")
    assert run.returncode == 0
    assert run.stdout.startswith("stopped")
    _wait(warm, running=False, within=10)
    assert warm.radar("daemon", "status").returncode == 1


def test_a_forwarded_hook_imports_none_of_the_answering_code(warm: Scene) -> None:
    deny = _edit(warm, "line 22\n")
    warm.hook("claude", deny)
    _wait(warm, running=True)
    probe = (
        "import sys\n"
        "from proximity.agent.cli import main\n"
        "main(['hook', 'claude'])\n"
        "heavy = ('numpy', 'proximity.agent.hook', 'proximity.engine', 'http.client', 'pathlib')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(deny),
        cwd=warm.bob,
        env={**os.environ, "RADAR_STATE_DIR": str(warm.state)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    loaded = run.stderr.strip()
    # pathlib may come with the interpreter's own start (an editable install's finder loads it;
    # on Python 3.13 it is a package: pathlib._abc, pathlib._local)
    modules = json.loads(loaded.replace("'", '"'))
    assert all(m == "pathlib" or m.startswith("pathlib._") for m in modules), loaded
    assert _status(warm)["served"] == 1


def test_a_state_folder_too_deep_for_a_socket_answers_without_a_daemon(
    scene: Scene, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RADAR_DAEMON", "1")
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    run = subprocess.run(
        [RADAR, "hook", "claude"],
        input=json.dumps(_edit(scene, "line 22\n")),
        cwd=scene.bob,
        env={**os.environ, "RADAR_STATE_DIR": str(deep)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not (deep / "daemon").exists()


_SAME_ANSWER_CASES = [
    ("claude", "claude_pre_edit"),
    ("claude", "claude_pre_multiedit"),
    ("claude", "claude_pre_write"),
    ("claude", "claude_pre_bash"),
    ("claude", "claude_session_start"),
    ("claude", "claude_post_edit"),
    ("codex", "codex_pre_apply_patch"),
    ("gemini", "gemini_before_replace"),
    ("cursor", "cursor_pre_edit"),
]


def test_the_daemons_answers_are_byte_equal_to_the_hooks_own(warm: Scene) -> None:
    cases = [
        (harness, json.dumps(load(name, WORKTREE=str(warm.bob), FILE=str(warm.bob / "core.py"))))
        for harness, name in _SAME_ANSWER_CASES
    ] + [("claude", "{"), ("claude", "[]")]
    env = {**os.environ, "RADAR_STATE_DIR": str(warm.state), "RADAR_DAEMON": "0"}

    def alone(harness: str, stdin: str) -> str:
        return subprocess.run(
            [RADAR, "hook", harness], input=stdin, cwd=warm.bob, env=env,
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    expected = [alone(harness, stdin) for harness, stdin in cases]
    assert any('"deny"' in out for out in expected)  # the cases do decide something
    warm.hook("claude", cases[0][1])
    _wait(warm, running=True)
    for (harness, stdin), want in zip(cases, expected, strict=True):
        assert warm.radar("hook", harness, stdin=stdin).stdout == want, (harness, stdin[:80])
    assert _status(warm)["served"] == len(cases)


def test_the_minimal_start_forwarder_answers_the_same_with_and_without_the_daemon(
    warm: Scene,
) -> None:
    """``python -I -S warm.py hook claude``: no site scan when the daemon answers."""
    import proximity.agent.warm as warm_module

    deny = json.dumps(_edit(warm, "line 22\n"))
    expected = _cold(warm, json.loads(deny))
    script = [sys.executable, "-I", "-S", warm_module.__file__, "hook", "claude"]
    env = {**os.environ, "RADAR_STATE_DIR": str(warm.state)}

    def run(extra: dict[str, str]) -> str:
        done = subprocess.run(script, input=deny, cwd=warm.bob, env={**env, **extra},
                              capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
        return done.stdout

    assert run({"RADAR_DAEMON": "0"}) == expected  # site loaded, answered here
    warm.hook("claude", deny)
    _wait(warm, running=True)
    probe = (
        "import runpy, sys\n"
        f"sys.argv = [{warm_module.__file__!r}, 'hook', 'claude']\n"
        "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('site', 'proximity', 'numpy'))),"
        " file=sys.stderr)\n"
    )
    forwarded = subprocess.run([sys.executable, "-I", "-S", "-c", probe], input=deny,
                               cwd=warm.bob, env=env, capture_output=True, text=True, check=True,
                               timeout=60)  # fmt: skip
    assert forwarded.stdout == expected
    assert forwarded.stderr.strip() == "[]"  # neither site nor any of our package
    assert _status(warm)["served"] == 1


def test_a_daemon_leaves_when_the_code_under_it_changes(warm: Scene) -> None:
    import proximity.agent.errors as touched

    deny = _edit(warm, "line 22\n")
    expected = _cold(warm, deny)
    warm.hook("claude", deny)
    pid = _wait(warm, running=True)["pid"]
    source = Path(touched.__file__)
    before = source.stat()
    try:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        _wait(warm, running=False, within=15)  # it checks every 2 s
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    for marker in (warm.state / "daemon").glob("*.started"):
        marker.unlink()  # past the pause between start attempts
    assert warm.hook("claude", deny).stdout == expected  # answered here; a new one starts
    assert _wait(warm, running=True)["pid"] != pid


@pytest.mark.parametrize("how", ["git worktree remove", "directory deleted"])
def test_a_worktree_that_is_gone_holds_nothing_at_the_next_answer(warm: Scene, how: str) -> None:
    """An abandoned agent's hold ends with its worktree, not a week later when it would park:
    the warm daemon, which keeps what it read, reads the worktrees again at every answer. A
    folder deleted without git's help (git still lists it, "prunable") holds nothing either."""
    deny = _edit(warm, "line 22\n")
    first = json.loads(warm.hook("claude", deny).stdout)["hookSpecificOutput"]
    assert first["permissionDecision"] == "deny"
    _wait(warm, running=True)
    if how == "git worktree remove":
        run_git(warm.repo.root, "worktree", "remove", "--force", str(warm.alice))
    else:
        shutil.rmtree(warm.alice)
    run = warm.hook("claude", deny)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert _status(warm)["served"] == 1
    assert _cold(warm, deny) == ""  # the hook alone, no daemon, answers the same
