"""Report mode carries what each side changed: ``radar report`` sends bounded diff excerpts, the
server stores them, and its check's deny reasons and the advisory's card quote them (issue 27,
point 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proximity.models import Agent, ProximityAdvisory, WorkingSetSnapshot
from proximity.sources.diff_excerpts import with_report_excerpts
from proximity.sources.git import read_working_sets
from tests.agent.conftest import reporting_worktrees
from tests.agent.payloads import load
from tests.sources.gitrepo import ScriptedRepo, numbered


def _repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    return repo


def test_excerpts_cover_changed_and_new_files_and_stay_bounded(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    bob = repo.add_worktree("bob")
    repo.replace_lines("core.py", 22, 40, worktree="bob", tag="bob")
    repo.write("new.py", "".join(f"new {n}\n" for n in range(1, 50)), worktree="bob")
    repo.write("blob.bin", b"\0\1\2" * 10, worktree="bob")
    for n in range(5):
        repo.write(f"zz/m{n}.py", f"m {n}\n", worktree="bob")
    ws = next(w for w in read_working_sets(repo.root) if w.agent_id == "bob")
    untracked = [f.path for f in ws.files if f.untracked]
    files = with_report_excerpts(
        ws.to_agent_json()["files"], bob, ws.merge_base, untracked=untracked, limit=4
    )
    excerpts = {f["path"]: f.get("excerpt") for f in files}
    assert excerpts["core.py"].splitlines()[0].startswith("@@")
    assert "+bob 22" in excerpts["core.py"]
    assert len(excerpts["core.py"].splitlines()) <= 8
    assert excerpts["new.py"].splitlines() == [f"+new {n}" for n in range(1, 9)]
    assert excerpts["blob.bin"] is None  # binary: nothing to quote
    assert [p for p, e in excerpts.items() if e and p.startswith("zz/")] == ["zz/m0.py"]  # bound
    assert all(len(e) <= 600 for e in excerpts.values() if e)


@pytest.fixture
def remote(tmp_path: Path, _state_dir: Path, live_server, in_process_tasks):
    """alice and bob in worktrees of one repository, reporting to a live server."""
    return reporting_worktrees(tmp_path, _state_dir, live_server.url)


@pytest.mark.django_db(transaction=True)
def test_a_report_carries_excerpts_the_server_quotes_in_deny_reasons_and_cards(remote) -> None:
    scene, flags = remote
    scene.repo.replace_lines("core.py", 22, 23, worktree="alice", tag="alice")
    sent = scene.radar("report", *flags["alice"], cwd=scene.alice)
    assert sent.returncode == 0, sent.stderr
    stored = WorkingSetSnapshot.objects.get(agent__agent_id="alice").files
    assert "+alice 22" in stored[0]["excerpt"]
    # bob asks the server before editing line 22: the reason quotes alice's change
    answer = scene.radar("check", "core.py", "--lines", "22", *flags["bob"], cwd=scene.bob)
    assert answer.returncode == 2, answer.stdout + answer.stderr
    assert "+alice 22" in answer.stdout
    # once bob has changed the same lines and reported, the pair's card shows both sides
    scene.repo.replace_lines("core.py", 22, 22, worktree="bob", tag="bob")
    assert scene.radar("report", *flags["bob"], cwd=scene.bob).returncode == 0
    advisory = ProximityAdvisory.objects.get()
    shared = {f["path"]: f for f in advisory.detail["sharedFiles"]}["core.py"]
    sides = json.dumps(shared)
    assert "+alice 22" in sides
    assert "+bob 22" in sides


@pytest.mark.django_db(transaction=True)
def test_the_server_check_records_a_wait_and_a_report_carries_the_local_hook_s(remote) -> None:
    """Waiting on the radar is not idleness (docs/DECISIONS.md): bob, told by the server's own
    check to steer, has his ask recorded there; his later denial by his local hook reaches the
    server with his next `radar report` (``askedAt``). alice, who holds, has none."""
    scene, flags = remote
    scene.repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    scene.repo.replace_lines("core.py", 40, 40, worktree="bob", tag="bob")
    for who in ("alice", "bob"):
        assert scene.radar("report", *flags[who], cwd=getattr(scene, who)).returncode == 0
    answer = scene.radar("check", "core.py", "--lines", "22", *flags["bob"], cwd=scene.bob)
    assert answer.returncode == 2, answer.stdout + answer.stderr
    assert "alice holds course; you steer" in answer.stdout
    by_check = Agent.objects.get(agent_id="bob").asked_at
    assert by_check is not None
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(scene.bob / "core.py"))
    payload["tool_input"].update(old_string="line 22\n", new_string="bob 22\n")
    run = scene.hook("claude", payload)
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert scene.radar("report", *flags["bob"], cwd=scene.bob).returncode == 0
    by_report = Agent.objects.get(agent_id="bob").asked_at
    assert by_report is not None
    assert by_report > by_check
    assert Agent.objects.get(agent_id="alice").asked_at is None


@pytest.mark.django_db(transaction=True)
def test_a_report_says_when_the_work_is_published(remote) -> None:
    """`radar report` sends ``published`` from its own reading of git (every change committed,
    the head pushed as it is), so the server keeps that agent from parking as the hooks do
    (docs/DECISIONS.md, "Published work waits on review"); a commit after the push unsets it."""
    scene, flags = remote
    scene.repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    scene.repo.commit("alice: 22", worktree="alice")
    assert scene.radar("report", *flags["alice"], cwd=scene.alice).returncode == 0
    assert not Agent.objects.get(agent_id="alice").published
    scene.repo.push("alice")
    assert scene.radar("report", *flags["alice"], cwd=scene.alice).returncode == 0
    assert Agent.objects.get(agent_id="alice").published
    scene.repo.replace_lines("core.py", 30, 30, worktree="alice", tag="later")
    scene.repo.commit("alice: 30", worktree="alice")
    assert scene.radar("report", *flags["alice"], cwd=scene.alice).returncode == 0
    assert not Agent.objects.get(agent_id="alice").published
