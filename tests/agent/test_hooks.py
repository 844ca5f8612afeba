"""`radar hook` fed each harness's documented payloads, against real worktrees.

The payload fixtures (tests/agent/payloads/) follow each harness's documentation; a test fills
in the paths and the text of the edit it is about. Every run is a fresh `radar` process, and
every run must exit 0: decisions travel as JSON on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.conftest import Scene
from tests.agent.payloads import load
from tests.sources.gitrepo import repo_state


def _edit(scene: Scene, old: str, *, name: str = "claude_pre_edit", path: str = "core.py") -> dict:
    payload = load(name, WORKTREE=str(scene.bob), FILE=str(scene.bob / path))
    payload["tool_input"].update(
        file_path=str(scene.bob / path), old_string=old, new_string="changed\n"
    )
    payload["tool_input"].pop("replace_all", None)
    return payload


def _decision(out: str) -> dict:
    return json.loads(out)["hookSpecificOutput"]


def test_same_line_edit_is_denied_naming_the_other_agent_and_its_lines(scene: Scene) -> None:
    run = scene.hook("claude", _edit(scene, "line 22\n"))
    assert run.returncode == 0
    assert run.stderr == ""
    decision = _decision(run.stdout)
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "deny"
    reason = decision["permissionDecisionReason"]
    assert "alice" in reason
    assert "core.py line 22" in reason
    assert "+alice 22" in reason  # the other side's diff excerpt
    assert "radar ack alice" in reason
    assert "Right of way" in reason


def test_disjoint_edit_of_the_same_file_is_silent(scene: Scene) -> None:
    run = scene.hook("claude", _edit(scene, "line 50\nline 51\nline 52\n"))
    assert (run.returncode, run.stdout) == (0, "")


def test_write_of_a_whole_shared_file_is_denied(scene: Scene) -> None:
    payload = load("claude_pre_write", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(file_path=str(scene.bob / "core.py"), content="new\n")
    assert _decision(scene.hook("claude", payload).stdout)["permissionDecision"] == "deny"


def test_write_of_a_file_nobody_touches_is_silent(scene: Scene) -> None:
    payload = load("claude_pre_write", WORKTREE=str(scene.bob), FILE=str(scene.bob / "new.py"))
    payload["tool_input"].update(file_path=str(scene.bob / "new.py"), content="x = 1\n")
    assert scene.hook("claude", payload).stdout == ""


def test_sed_in_place_on_a_shared_file_is_denied(scene: Scene) -> None:
    payload = load("claude_pre_bash", WORKTREE=str(scene.bob))
    payload["tool_input"]["command"] = "sed -i 's/line/LINE/' core.py"
    payload["cwd"] = str(scene.bob)
    assert _decision(scene.hook("claude", payload).stdout)["permissionDecision"] == "deny"


def test_a_read_only_shell_command_is_silent(scene: Scene) -> None:
    payload = load("claude_pre_bash", WORKTREE=str(scene.bob))
    payload["tool_input"]["command"] = "grep -n line core.py | head"
    payload["cwd"] = str(scene.bob)
    assert scene.hook("claude", payload).stdout == ""


def test_multiedit_is_checked_on_the_union_of_its_edits(scene: Scene) -> None:
    payload = load("claude_pre_multiedit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"]["file_path"] = str(scene.bob / "core.py")
    payload["tool_input"]["edits"] = [
        {"old_string": "line 50\n", "new_string": "x\n"},
        {"old_string": "line 22\n", "new_string": "y\n"},
    ]
    assert _decision(scene.hook("claude", payload).stdout)["permissionDecision"] == "deny"
    payload["tool_input"]["edits"][1]["old_string"] = "line 40\n"
    assert scene.hook("claude", payload).stdout == ""


def test_codex_apply_patch_over_two_files_is_denied_on_the_shared_lines(scene: Scene) -> None:
    payload = load("codex_pre_apply_patch", WORKTREE=str(scene.bob))
    payload["cwd"] = str(scene.bob)
    payload["tool_input"]["command"] = (
        "*** Begin Patch\n*** Update File: util.py\n@@\n-line 3\n+LINE 3\n"
        "*** Update File: core.py\n@@\n line 21\n-line 22\n+LINE 22\n*** End Patch\n"
    )
    run = scene.hook("codex", payload)
    assert run.returncode == 0
    decision = _decision(run.stdout)
    assert decision["permissionDecision"] == "deny"
    assert "alice" in decision["permissionDecisionReason"]
    far = payload["tool_input"]["command"].replace(
        "line 21\n-line 22\n+LINE 22", "line 44\n-line 45\n+LINE 45"
    )
    payload["tool_input"]["command"] = far
    assert scene.hook("codex", payload).stdout == ""


def test_gemini_replace_is_denied_in_gemini_s_own_shape(scene: Scene) -> None:
    payload = load(
        "gemini_before_replace", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py")
    )
    payload["tool_input"].update(
        file_path=str(scene.bob / "core.py"), old_string="line 22\n", new_string="x\n"
    )
    answer = json.loads(scene.hook("gemini", payload).stdout)
    assert answer["decision"] == "deny"
    assert "alice" in answer["reason"]
    payload["tool_input"]["old_string"] = "line 55\n"
    assert scene.hook("gemini", payload).stdout == ""


def test_gemini_context_travels_from_before_tool_to_the_after_tool_result(scene: Scene) -> None:
    # Gemini CLI ignores BeforeTool's additionalContext; AfterTool's is appended to the result.
    files = {"WORKTREE": str(scene.bob), "FILE": str(scene.bob / "core.py")}
    before = load("gemini_before_replace", **files)
    before["tool_input"].update(old_string="line 22\n", new_string="x\n")
    after = load("gemini_after_tool", **files)
    after["session_id"] = before["session_id"]
    assert scene.radar("ack", "alice").returncode == 0
    answer = json.loads(scene.hook("gemini", before).stdout)
    assert set(answer) == {"systemMessage"}  # the person sees it; the model cannot here
    assert answer["systemMessage"].startswith("Overlap Radar")
    carried = json.loads(scene.hook("gemini", after).stdout)["hookSpecificOutput"]
    assert carried["hookEventName"] == "AfterTool"
    assert "alice" in carried["additionalContext"]
    assert scene.hook("gemini", after).stdout == ""  # handed over once
    other = {**after, "session_id": "another-session"}
    assert scene.hook("gemini", before).stdout
    assert scene.hook("gemini", other).stdout == ""  # never into another session's result


def test_gemini_write_file_of_a_shared_file_is_denied(scene: Scene) -> None:
    payload = load(
        "gemini_before_write_file", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py")
    )
    payload["tool_input"].update(file_path=str(scene.bob / "core.py"), content="x\n")
    assert json.loads(scene.hook("gemini", payload).stdout)["decision"] == "deny"


MALFORMED = [
    "{not json",
    "",
    "[]",
    '{"hook_event_name": "PreToolUse"}',
    '{"cwd": "relative", "hook_event_name": "PreToolUse"}',
]


@pytest.mark.parametrize("harness", ["claude", "codex", "gemini", "cursor"])
@pytest.mark.parametrize("stdin", MALFORMED)
def test_malformed_stdin_fails_open_with_one_log_line(
    scene: Scene, harness: str, stdin: str
) -> None:
    run = scene.hook(harness, stdin)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "fail open" in (scene.state / "hooks.log").read_text()


def test_acknowledging_allows_the_same_edit_with_context(scene: Scene) -> None:
    payload = _edit(scene, "line 22\n")
    assert _decision(scene.hook("claude", payload).stdout)["permissionDecision"] == "deny"
    ack = scene.radar("ack", "alice", "--note", "agreed: I take line 22")
    assert ack.returncode == 0
    assert "acknowledged alice" in ack.stdout
    decision = _decision(scene.hook("claude", payload).stdout)
    assert "permissionDecision" not in decision
    assert "alice" in decision["additionalContext"]


def test_ask_policy_sends_the_decision_to_the_person(scene: Scene) -> None:
    (scene.bob / ".radar.toml").write_text('[policy]\nresolution = "ask"\n')
    decision = _decision(scene.hook("claude", _edit(scene, "line 22\n")).stdout)
    assert decision["permissionDecision"] == "ask"


def test_an_unreachable_server_fails_open(scene: Scene, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("orad_not-a-real-token")
    flags = ["--server", "http://127.0.0.1:9", "--token-file", str(token), "--repository", "web"]
    run = scene.hook("claude", _edit(scene, "line 22\n"), *flags)
    assert (run.returncode, run.stdout) == (0, "")
    assert "cannot reach" in (scene.state / "hooks.log").read_text()


def test_a_repository_may_choose_to_fail_closed(scene: Scene, tmp_path: Path) -> None:
    (scene.bob / ".radar.toml").write_text('[policy]\non_error = "closed"\n')
    token = tmp_path / "token"
    token.write_text("orad_x")
    flags = ["--server", "http://127.0.0.1:9", "--token-file", str(token), "--repository", "web"]
    decision = _decision(scene.hook("claude", _edit(scene, "line 50\n"), *flags).stdout)
    assert decision["permissionDecision"] == "deny"
    assert "could not check" in decision["permissionDecisionReason"]


def test_session_start_gives_the_airspace_in_a_few_lines(scene: Scene) -> None:
    payload = load("claude_session_start", WORKTREE=str(scene.bob))
    payload["cwd"] = str(scene.bob)
    context = _decision(scene.hook("claude", payload).stdout)["additionalContext"]
    assert "you are bob" in context
    assert "alice" in context
    assert "core.py" in context
    assert len(context.splitlines()) <= 10


def test_no_hook_changes_the_git_state_of_any_worktree(scene: Scene) -> None:
    before = repo_state(scene.repo)
    scene.hook("claude", _edit(scene, "line 22\n"))
    scene.hook("claude", _edit(scene, "line 50\n"))
    scene.radar("ack", "alice")
    scene.hook("claude", load("claude_session_start", WORKTREE=str(scene.bob)))
    patch = load("codex_pre_apply_patch", WORKTREE=str(scene.bob))
    patch["cwd"] = str(scene.bob)
    scene.hook("codex", patch)
    assert repo_state(scene.repo) == before


def test_the_hook_path_loads_no_server_side_library(scene: Scene) -> None:
    probe = (
        "import json, sys\n"
        "from proximity.agent.hook import run_hook\n"
        "out = run_hook('claude', sys.stdin.read())\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'django', 'celery', 'torch', "
        "'sentence_transformers', 'requests', 'mcp', 'ninja', 'dash', 'bm25s', 'tree_sitter'})\n"
        "print(json.dumps({'stdout': out.stdout, 'heavy': heavy}))\n"
    )
    import subprocess
    import sys

    stdin = json.dumps(_edit(scene, "line 22\n"))
    run = subprocess.run(
        [sys.executable, "-c", probe],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=scene.bob,
        timeout=60,
        check=True,
    )
    result = json.loads(run.stdout)
    assert result["heavy"] == []
    assert "deny" in result["stdout"]


def test_codex_cannot_ask_so_an_ask_policy_holds_the_edit_back(scene: Scene) -> None:
    (scene.bob / ".radar.toml").write_text('[policy]\nresolution = "ask"\n')
    payload = load("codex_pre_apply_patch", WORKTREE=str(scene.bob))
    payload["cwd"] = str(scene.bob)
    payload["tool_input"]["command"] = (
        "*** Begin Patch\n*** Update File: core.py\n@@\n line 21\n-line 22\n+LINE 22\n"
        "*** End Patch\n"
    )
    assert _decision(scene.hook("codex", payload).stdout)["permissionDecision"] == "deny"


def test_a_local_acknowledgement_lands_in_the_pairs_trail(scene: Scene) -> None:
    from proximity.engine.trail import verify_shadow_trail

    scene.hook("claude", _edit(scene, "line 22\n"))  # denied: remembers core.py
    ack = scene.radar("ack", "alice")
    assert "receipt in trail" in ack.stdout, ack.stdout
    [path] = scene.state.glob("*/trails/*.json")
    document = json.loads(path.read_text())
    verify_shadow_trail(document)
    kinds = [r["kind"] for r in document["receipts"]]
    assert kinds == ["observation", "advisory", "acknowledgement"]
    bob_obs = next(
        o for o in document["receipts"][0]["payload"]["observations"] if o["agentId"] == "bob"
    )
    assert bob_obs["writePaths"] == ["core.py"]


def test_one_ack_names_every_agent_a_denial_named(scene: Scene) -> None:
    scene.repo.add_worktree("carol")
    scene.repo.replace_lines("core.py", 21, 23, worktree="carol", tag="carol")
    # Committed at the scripted (old) time, carol's start is older than bob's: bob steers from
    # both. Left uncommitted, carol would be dated by its creation, after bob's, and hold only
    # when the two fell in one second.
    scene.repo.commit("carol's lines", worktree="carol")
    # ... and still at work: an agent whose every change is days old is parked and yields
    scene.repo.write("notes.txt", "carol's notes\n", worktree="carol")
    reason = _decision(scene.hook("claude", _edit(scene, "line 22\n")).stdout)
    assert "radar ack alice carol" in reason["permissionDecisionReason"]
    ack = scene.radar("ack", "alice", "carol")
    assert ack.returncode == 0
    assert ack.stdout.count("acknowledged") == 2
    assert "permissionDecision" not in _decision(
        scene.hook("claude", _edit(scene, "line 22\n")).stdout
    )
