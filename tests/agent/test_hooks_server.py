"""`radar hook` against a live server: the check, acknowledgements and messages go over HTTP.

alice works on another machine: her working set reaches the server only through the API, so
a denial of bob's edit proves the server answered (bob's machine has no worktree of hers).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proximity.models import EditAcknowledgement, WorkingSetSnapshot
from tests.agent.conftest import Scene
from tests.agent.payloads import load
from tests.factories import file_entry, make_caller, make_repository, working_set
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def remote(tmp_path: Path, _state_dir: Path, live_server, in_process_tasks):
    """bob's worktree here; alice only on the server, editing core.py line 22."""
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    bob = repo.add_worktree("feature/bob")
    make_repository("web", scope="team-a")
    alice = make_caller("alice", scopes=["team-a"], kind="agent", creates_agents=True)
    bob_caller = make_caller("bob", scopes=["team-a"], kind="agent", creates_agents=True)
    token = tmp_path / "bob.token"
    token.write_text(bob_caller.token)
    flags = ["--server", live_server.url, "--token-file", str(token), "--repository", "web"]
    return Scene(repo, tmp_path / "nowhere", bob, _state_dir), alice, flags


def _report_alice(client, alice, *, lines=((22, 22),), intent=()) -> None:
    entry = file_entry("core.py", [list(r) for r in lines], excerpt="-line 22\n+alice 22")
    body = working_set(
        "web", "alice", [entry], label="Fix rounding", intent=[{"path": p} for p in intent]
    )
    response = client.post(
        "/api/working-sets", json.dumps(body), content_type="application/json", **alice.headers
    )
    assert response.status_code == 201


def _edit(scene: Scene, old: str) -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(
        file_path=str(scene.bob / "core.py"), old_string=old, new_string="changed\n"
    )
    return payload


def test_the_server_denies_an_edit_of_the_lines_a_remote_agent_changed(remote, client) -> None:
    scene, alice, flags = remote
    _report_alice(client, alice)
    run = scene.hook("claude", _edit(scene, "line 22\n"), *flags)
    assert run.returncode == 0, run.stderr
    decision = json.loads(run.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "alice" in decision["permissionDecisionReason"]
    assert "Fix rounding" in decision["permissionDecisionReason"]
    assert "+alice 22" in decision["permissionDecisionReason"]
    assert scene.hook("claude", _edit(scene, "line 50\n"), *flags).stdout == ""


def test_declared_intent_is_passed_as_context_without_a_decision(remote, client) -> None:
    scene, alice, flags = remote
    _report_alice(client, alice, intent=("core.py",))
    decision = json.loads(scene.hook("claude", _edit(scene, "line 50\n"), *flags).stdout)
    context = decision["hookSpecificOutput"]
    assert "permissionDecision" not in context
    assert "Traffic Advisory with alice" in context["additionalContext"]


def test_acknowledging_on_the_server_allows_the_same_edit(remote, client) -> None:
    scene, alice, flags = remote
    _report_alice(client, alice)
    payload = _edit(scene, "line 22\n")
    scene.hook("claude", payload, *flags)
    ack = scene.radar("ack", "alice", *flags)
    assert ack.returncode == 0, ack.stderr
    stored = EditAcknowledgement.objects.get()
    assert (stored.agent.agent_id, stored.other.agent_id) == ("feature/bob", "alice")
    decision = json.loads(scene.hook("claude", payload, *flags).stdout)["hookSpecificOutput"]
    assert "permissionDecision" not in decision


def test_after_an_edit_the_working_set_is_reported_and_messages_delivered_once(
    remote, client
) -> None:
    scene, alice, flags = remote
    _report_alice(client, alice)
    scene.repo.replace_lines("core.py", 22, 22, worktree="feature/bob", tag="bob")
    post = load("claude_post_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    post["tool_input"]["file_path"] = str(scene.bob / "core.py")
    first = scene.hook("claude", post, *flags)
    assert first.returncode == 0, first.stderr
    snapshot = WorkingSetSnapshot.objects.get(agent__agent_id="feature/bob")
    assert snapshot.files[0]["path"] == "core.py"
    context = json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "alice" in context  # the scan's trigger message, delivered at once
    second = scene.hook("claude", post, *flags)
    assert second.stdout == ""  # nothing new: delivered once


def test_a_prompt_declares_the_sessions_task_where_the_policy_allows_it(
    remote, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proximity.models import TaskVersion

    monkeypatch.setenv("RADAR_HOOK_BUDGET", "120")  # the policy's 60 s below, not capped at 8 s
    scene, _, flags = remote
    prompt = load("claude_user_prompt", WORKTREE=str(scene.bob))
    prompt.update(cwd=str(scene.bob), prompt="Add CSV export to the report page\nwith tests")
    assert scene.hook("claude", prompt, *flags).stdout == ""  # policy off by default
    assert not TaskVersion.objects.exists()
    # Without a broker the overlap run (and the model load) happens inside the request.
    (scene.bob / ".radar.toml").write_text("[policy]\ndeclare_tasks = true\ntimeout_seconds = 60\n")
    first = scene.hook("claude", prompt, *flags)
    context = json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    version = TaskVersion.objects.get()
    assert version.objective == "Add CSV export to the report page"
    assert version.scope == "team-a"
    assert version.record.task_id in context
    prompt["prompt"] = "now also PDF"
    assert scene.hook("claude", prompt, *flags).stdout == ""  # one task per session
    assert TaskVersion.objects.count() == 1


def test_cursor_post_tool_use_reports_and_passes_messages_as_additional_context(
    remote, client
) -> None:
    scene, alice, flags = remote
    _report_alice(client, alice)
    scene.repo.replace_lines("core.py", 22, 22, worktree="feature/bob", tag="bob")
    post = load("cursor_post_tool_use", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    run = scene.hook("cursor", post, *flags)
    assert run.returncode == 0, run.stderr
    context = json.loads(run.stdout)["additional_context"]
    assert context.startswith("Overlap Radar messages:")
    assert "alice" in context
    assert WorkingSetSnapshot.objects.filter(agent__agent_id="feature/bob").exists()


def test_with_a_server_the_mainline_is_still_read_from_this_clone(remote, client) -> None:
    scene, alice, flags = remote
    _report_alice(client, alice)
    scene.repo.replace_lines("core.py", 40, 40, tag="mainline")
    scene.repo.commit("Rename the flag")
    run = scene.hook("claude", _edit(scene, "line 40\n"), *flags)
    reason = json.loads(run.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "work already on main" in reason
    assert "Rename the flag" in reason
    assert "alice" not in reason  # the server found nobody on line 40
    ack = scene.radar("ack", "main", *flags)
    assert ack.returncode == 0
    assert "(local," in ack.stdout
    assert not EditAcknowledgement.objects.exists()
    decision = json.loads(scene.hook("claude", _edit(scene, "line 40\n"), *flags).stdout)
    assert "permissionDecision" not in decision["hookSpecificOutput"]
