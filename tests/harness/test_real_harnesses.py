"""The real harness programs run our hooks in bob's linked worktree, as a person installs them.

For each of Claude Code, Codex CLI and Gemini CLI (tests/harness/programs.py pins them): the
scripted model edits core.py; alice holds line 22 uncommitted. What counts is what the harness
sends back to the model after the edit (the tool result and any context), and the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.harness.conftest import RADAR, Bench
from tests.sources.gitrepo import run_git

pytestmark = [pytest.mark.harness, pytest.mark.slow]

CONTEXT = "Overlap Radar: other agents are working close to this edit."


def _install_as_documented(bench: Bench) -> None:
    out = bench.install().stdout
    if bench.harness == "codex":
        # install records each hook's trust by hash; the project trust is the person's step,
        # taken here by `codex exec --trust` (conftest) as docs/AGENTS.md says for headless runs.
        assert "trusted 4 hook(s) by hash" in out
    if bench.harness == "gemini" and "GEMINI_CLI_TRUST_WORKSPACE" not in bench.extra_env:
        # the folder trust is the person's step; headless runs take it (conftest) by
        # GEMINI_CLI_TRUST_WORKSPACE=true, as docs/AGENTS.md says
        assert "todo: Gemini CLI applies" in out


def _line(bench: Bench, n: int) -> str:
    return (bench.bob / "core.py").read_text().splitlines()[n - 1]


def test_colliding_edit_is_denied_with_our_reason_and_the_file_is_unchanged(bench: Bench) -> None:
    _install_as_documented(bench)
    run = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "deny")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "would collide with another agent's work" in run.after_call
    assert "Resolution Advisory with alice" in run.after_call
    assert "radar ack alice" in run.after_call
    # when to ask again: alice's last change (her file's mtime) plus the parked time
    assert "Ask again after " in run.after_call
    assert "if alice changes nothing before then" in run.after_call
    assert _line(bench, 22) == "line 22"


@pytest.mark.parametrize("mainline", ["master"], indirect=True)
def test_a_repository_on_master_is_seen_without_any_base_configured(bench: Bench) -> None:
    """No ``[radar] base``: the mainline is detected (``master`` here), so alice is seen. Before,
    an unset base meant ``main``, every read failed, and this edit went through."""
    assert not (bench.bob / ".radar.toml").exists()
    _install_as_documented(bench)
    run = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "deny on master")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Resolution Advisory with alice" in run.after_call
    assert _line(bench, 22) == "line 22"


def test_far_edit_goes_through_with_no_output(bench: Bench) -> None:
    # First without our hooks: the harness's own wall time, the baseline of the figures.
    bare = bench.run(bench.edit_call("line 50\n", "bob 50\n"), "far edit, no hooks (baseline)")
    assert bare.returncode == 0, bare.stderr[-2000:]
    assert _line(bench, 50) == "bob 50"
    bench.repo.git("checkout", "--", "core.py", worktree="bob")
    _install_as_documented(bench)
    run = bench.run(bench.edit_call("line 50\n", "bob 50\n"), "far edit")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.after_call  # the tool result went back
    assert "Overlap Radar" not in run.after_call
    assert _line(bench, 50) == "bob 50"


def test_after_ack_the_edit_goes_through_and_our_context_reaches_the_model(bench: Bench) -> None:
    _install_as_documented(bench)
    denied = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "deny")
    assert "Resolution Advisory with alice" in denied.after_call
    assert bench.radar("ack", "alice", "--note", "agreed with alice").returncode == 0
    run = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "after ack")
    assert run.returncode == 0, run.stderr[-2000:]
    assert _line(bench, 22) == "bob 22"
    assert CONTEXT in run.after_call
    assert "alice" in run.after_call.split(CONTEXT, 1)[1]


def test_the_warm_daemon_answers_the_same(bench: Bench) -> None:
    bench.daemon = True
    _install_as_documented(bench)
    # The first hook of a session starts the daemon and answers itself; a harness that calls
    # one hook per edit (Codex) would otherwise race the daemon's start on a loaded machine.
    _start_daemon(bench)
    denied = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "deny")
    assert "Resolution Advisory with alice" in denied.after_call
    assert _line(bench, 22) == "line 22"
    status = bench.radar("daemon", "status")
    assert status.stdout.startswith("running:"), status.stdout + status.stderr
    served = int(status.stdout.split(", ")[1].split()[0])
    assert served >= 1  # the harness's hooks were answered by the daemon
    assert bench.radar("ack", "alice").returncode == 0
    run = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "after ack")
    assert _line(bench, 22) == "bob 22"
    assert CONTEXT in run.after_call


def test_the_repository_s_parked_time_decides_who_holds_an_idle_branch_s_lines(
    bench: Bench,
) -> None:
    """alice's change is nine days old. At the default parked time (a week) her branch is
    parked: bob's edit goes through and the model hears alice yields. With ``[radar]
    parked_hours = 0`` in the repository's ``.radar.toml`` she never parks: the same edit is
    denied, with no time to ask again. So it is at the default once she has committed and
    pushed her line: the model hears her work is published."""
    old = time.time() - 9 * 86400
    os.utime(bench.alice / "core.py", (old, old))
    _install_as_documented(bench)
    parked = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "idle holder, default")
    assert parked.returncode == 0, parked.stderr[-2000:]
    assert _line(bench, 22) == "bob 22"
    assert "alice is parked" in parked.after_call
    bench.repo.git("checkout", "--", "core.py", worktree="bob")
    (bench.bob / ".radar.toml").write_text("[radar]\nparked_hours = 0\n")
    held = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "idle holder, never parked")
    assert held.returncode == 0, held.stderr[-2000:]
    assert "Resolution Advisory with alice" in held.after_call
    assert "Ask again after " not in held.after_call
    assert _line(bench, 22) == "line 22"
    # the setting removed, alice's line committed nine days ago and pushed: published work,
    # waiting on review, never parks (docs/DECISIONS.md, "Published work waits on review")
    (bench.bob / ".radar.toml").unlink()
    stamp = f"@{int(old)} +0000"
    run_git(bench.alice, "commit", "-qam", "alice 22",
            env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})  # fmt: skip
    bench.repo.push("alice")
    pushed = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "idle holder, published")
    assert pushed.returncode == 0, pushed.stderr[-2000:]
    assert "Resolution Advisory with alice" in pushed.after_call
    assert "alice's work is published" in pushed.after_call
    assert _line(bench, 22) == "line 22"


def _start_daemon(bench: Bench) -> None:
    subprocess.run([RADAR, "hook", "claude"], input="{}", cwd=bench.bob, env=bench.env(),
                   capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    deadline = time.monotonic() + 60
    while not bench.radar("daemon", "status").stdout.startswith("running:"):
        assert time.monotonic() < deadline, "the daemon did not start within 60 s"
        time.sleep(0.2)


def test_a_hook_that_crashes_lets_the_edit_through_and_nothing_reaches_the_model(
    bench: Bench,
) -> None:
    # What "on failure" means in each harness: a hook process that dies (exit 1, a message on
    # stderr) instead of answering. radar's own failures end in exit 0 and no output (fail
    # open) unless the repository chose on_error = "closed", which answers with a denial.
    _install_as_documented(bench)
    crash = "/bin/sh -c 'cat >/dev/null; echo radar-crashed >&2; exit 1'"
    settings = {
        "claude": bench.bob / ".claude" / "settings.json",
        "codex": bench.repo.root / ".codex" / "hooks.json",
        "gemini": bench.bob / ".gemini" / "settings.json",
    }[bench.harness]
    data = json.loads(settings.read_text())
    for groups in data["hooks"].values():
        for group in groups if isinstance(groups, list) else ():
            for handler in group.get("hooks", []):
                handler["command"] = crash
    settings.write_text(json.dumps(data))
    if bench.harness == "codex":  # the changed command lost its trust: this run bypasses it
        bench.codex_flags.append("--dangerously-bypass-hook-trust")
    run = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "hook crash")
    assert _line(bench, 22) == "bob 22"
    assert "radar-crashed" not in bench.model.sent_text()
    assert run.after_call


def test_doctor_says_healthy_exactly_when_the_real_harness_runs_our_hooks(bench: Bench) -> None:
    if bench.harness == "codex":
        # The layout an earlier install wrote: bob's own .codex/hooks.json, which Codex never
        # reads from a linked worktree; doctor must not call it healthy.
        stray = bench.bob / ".codex" / "hooks.json"
        stray.parent.mkdir()
        command = f"{RADAR} hook codex"
        group = {"hooks": [{"type": "command", "command": command, "timeout": 10}]}
        stray.write_text(
            json.dumps({"hooks": {"PreToolUse": [{**group, "matcher": "^apply_patch$"}]}})
        )
        landed = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "earlier layout")
        assert "Overlap Radar" not in landed.after_call
        assert _line(bench, 22) == "bob 22"  # the colliding patch landed: no hook ran
        doctor = bench.radar("hooks", "doctor", "--harness", "codex")
        assert doctor.returncode == 1
        assert "Codex never reads it" in doctor.stderr
        stray.unlink()
        bench.repo.git("checkout", "--", "core.py", worktree="bob")
    if bench.harness == "gemini":
        bench.extra_env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"  # the headless folder trust
    _install_as_documented(bench)
    denied = bench.run(bench.edit_call("line 22\n", "bob 22\n"), "deny")
    assert "Resolution Advisory with alice" in denied.after_call
    doctor = bench.radar("hooks", "doctor", "--harness", bench.harness)
    assert (doctor.returncode, doctor.stderr) == (0, ""), doctor.stdout
    assert doctor.stdout.rstrip().endswith("healthy")
