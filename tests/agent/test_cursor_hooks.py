"""Cursor's documented payloads through ``run_hook("cursor", ...)`` against two real worktrees.

alice has an uncommitted edit of core.py line 22; bob is the agent asking. Cursor's answer is
its own flat JSON (https://cursor.com/docs/hooks.md): a denial carries ``permission``,
``user_message`` and ``agent_message``, both with the whole reason (the documentation gives the
model ``agent_message``, field reports say it reads ``user_message``), never Claude's
``hookSpecificOutput`` wrapper, which Cursor ignores; a clear check prints nothing at all, so the
person's own approval still runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proximity.agent.decide import Decision
from proximity.agent.hook import run_hook
from proximity.agent.payloads import POST, parse_payload
from proximity.agent.render import render
from tests.agent.payloads import load
from tests.sources.gitrepo import ScriptedRepo, numbered

EDITS = ["cursor_pre_edit", "cursor_pre_strreplace"]


@pytest.fixture
def bob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """bob's worktree; alice's, beside it, has core.py line 22 changed and not committed."""
    monkeypatch.setenv("RADAR_STATE_DIR", str(tmp_path / "radar-state"))
    for name in ("RADAR_SERVER", "RADAR_TOKEN", "RADAR_TOKEN_FILE", "RADAR_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(80))
    repo.commit("base")
    repo.add_worktree("alice")
    repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    return repo.add_worktree("bob")


def _hook(bob: Path, name: str, *, file: str = "core.py", **changes: object) -> str:
    payload = load(name, WORKTREE=str(bob), FILE=str(bob / file))
    for key, value in changes.items():
        if key in payload:
            payload[key] = value
        else:
            payload["tool_input"][key] = value
    outcome = run_hook("cursor", json.dumps(payload))
    assert outcome.exit_code == 0
    return outcome.stdout


def _denial(stdout: str) -> dict[str, str]:
    answer = json.loads(stdout)
    assert set(answer) == {"permission", "user_message", "agent_message"}
    assert answer["permission"] == "deny"
    assert answer["user_message"] == answer["agent_message"]  # whichever one reaches the model
    return answer


@pytest.mark.parametrize("name", EDITS)
def test_edit_of_the_line_alice_changed_is_denied_naming_alice(bob: Path, name: str) -> None:
    answer = _denial(_hook(bob, name))
    assert "alice" in answer["agent_message"]
    assert "core.py line 22" in answer["agent_message"]
    assert "radar ack alice" in answer["agent_message"]
    assert "radar ack alice" in answer["user_message"]


@pytest.mark.parametrize("name", EDITS)
def test_edit_of_a_line_nobody_changed_gives_no_output(bob: Path, name: str) -> None:
    assert _hook(bob, name, old_string="line 50\n", new_string="bob 50\n") == ""


def test_writing_alices_file_whole_is_denied_and_a_new_file_is_clear(bob: Path) -> None:
    assert "alice" in _denial(_hook(bob, "cursor_pre_write"))["agent_message"]
    assert _hook(bob, "cursor_pre_write", file="new_module.py") == ""


def test_deleting_alices_file_is_denied(bob: Path) -> None:
    assert "alice" in _denial(_hook(bob, "cursor_pre_delete"))["agent_message"]


@pytest.mark.parametrize("cwd", ["{worktree}", ""])
def test_shell_command_rewriting_alices_file_is_denied(bob: Path, cwd: str) -> None:
    # An empty cwd (seen from beforeShellExecution) falls back to the workspace root.
    stdout = _hook(bob, "cursor_before_shell", cwd=cwd.format(worktree=bob))
    assert "alice" in _denial(stdout)["agent_message"]


def test_shell_command_that_writes_nothing_gives_no_output(bob: Path) -> None:
    assert (
        _hook(bob, "cursor_before_shell", command="git diff --stat && grep -n line core.py") == ""
    )


def test_shell_tool_in_pre_tool_use_reads_its_working_directory(bob: Path) -> None:
    assert "alice" in _denial(_hook(bob, "cursor_pre_shell"))["agent_message"]


def test_session_start_names_alice_as_context(bob: Path) -> None:
    answer = json.loads(_hook(bob, "cursor_session_start"))
    assert list(answer) == ["additional_context"]
    assert "you are bob" in answer["additional_context"]
    assert "alice" in answer["additional_context"]


@pytest.mark.parametrize(
    "name", ["cursor_post_tool_use", "cursor_after_file_edit", "cursor_before_submit_prompt"]
)
def test_after_edit_and_prompt_give_no_output_without_a_server(bob: Path, name: str) -> None:
    assert _hook(bob, name) == ""


# postToolUse is what `radar hooks install` hooks after an edit: its answer reaches the model.
@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Write", {"file_path": "{file}", "old_string": "line 22\n", "new_string": "x\n"}),
        ("StrReplace", {"path": "{file}", "old_string": "line 22\n", "new_string": "x\n"}),
        ("Write", {"file_path": "{file}", "content": "whole\n"}),
        ("Delete", {"path": "{file}"}),
        ("Edit", {"file_path": "core.py", "old_string": "line 22\n", "new_string": "x\n"}),
    ],
)
def test_post_tool_use_is_a_post_edit_of_the_edited_file(
    bob: Path, tool: str, tool_input: dict[str, str]
) -> None:
    payload = load("cursor_post_tool_use", WORKTREE=str(bob), FILE=str(bob / "core.py"))
    payload["tool_name"] = tool
    payload["tool_input"] = {k: v.format(file=bob / "core.py") for k, v in tool_input.items()}
    event = parse_payload("cursor", payload)
    assert (event.event, event.event_name, event.cwd) == (POST, "postToolUse", str(bob))
    assert [e.path for e in event.edits] == [str(bob / "core.py")]
    assert event.anchor == str(bob / "core.py")


def test_post_tool_use_without_cwd_reads_the_workspace_root(bob: Path) -> None:
    payload = load("cursor_post_tool_use", WORKTREE=str(bob), FILE="core.py")
    del payload["cwd"]
    event = parse_payload("cursor", payload)
    assert (event.cwd, [e.path for e in event.edits]) == (str(bob), [str(bob / "core.py")])


MALFORMED = [
    "",
    "{not json",
    "[]",
    '{"hook_event_name": "preToolUse"}',
    '{"hook_event_name": "preToolUse", "cwd": "relative", "workspace_roots": ["also/relative"]}',
]


@pytest.mark.parametrize("stdin", MALFORMED)
def test_malformed_stdin_gives_no_output(bob: Path, stdin: str) -> None:
    outcome = run_hook("cursor", stdin)
    assert (outcome.stdout, outcome.exit_code) == ("", 0)


def test_relative_paths_are_read_against_the_workspace_root(bob: Path) -> None:
    payload = load("cursor_pre_edit", WORKTREE=str(bob), FILE="core.py")
    del payload["cwd"]
    assert "alice" in _denial(run_hook("cursor", json.dumps(payload)).stdout)["agent_message"]


# The answer shapes, for decisions the local check rarely produces on its own.
ADVISORY = "Overlap Radar: other agents are working close to this edit.\n- Traffic Advisory ..."


@pytest.mark.parametrize("event", ["preToolUse", "beforeShellExecution"])
def test_traffic_advisory_passes_messages_without_a_permission(event: str) -> None:
    answer = json.loads(render("cursor", Decision("context", ADVISORY), event))
    assert answer == {"user_message": ADVISORY, "agent_message": ADVISORY}


def test_ask_is_held_back_where_cursor_cannot_ask_and_asked_where_it_can() -> None:
    ask = Decision("ask", "Overlap Radar: this edit of core.py would collide.\nWays forward ...")
    assert json.loads(render("cursor", ask, "preToolUse"))["permission"] == "deny"
    assert json.loads(render("cursor", ask, "beforeShellExecution"))["permission"] == "ask"


def test_clear_check_prints_nothing_and_no_answer_ever_allows() -> None:
    assert render("cursor", Decision("none"), "preToolUse") == ""
    for kind in ("deny", "ask", "context"):
        for event in ("preToolUse", "beforeShellExecution", "sessionStart", "afterFileEdit"):
            out = render("cursor", Decision(kind, "Overlap Radar: x"), event)
            assert json.loads(out or "{}").get("permission") != "allow"


def test_events_without_a_model_facing_field_print_nothing() -> None:
    assert render("cursor", Decision("context", "messages"), "afterFileEdit") == ""
    post = render("cursor", Decision("context", "messages"), "postToolUse")
    assert json.loads(post) == {"additional_context": "messages"}


def test_install_never_sets_fail_closed_nor_a_claude_wrapper(tmp_path: Path, bob: Path) -> None:
    # failClosed would turn our silent "no decision" into a failure that blocks every clear edit.
    from proximity.agent.cli import main

    assert main(["hooks", "install", "--harness", "cursor", "--path", str(bob)]) == 0
    hooks = json.loads((bob / ".cursor" / "hooks.json").read_text())["hooks"]
    entries = [entry for event in hooks.values() for entry in event]
    assert entries
    assert not any("failClosed" in entry for entry in entries)
    deny = render("cursor", Decision("deny", "Overlap Radar: no.\nWays forward"), "preToolUse")
    assert "hookSpecificOutput" not in json.loads(deny)
