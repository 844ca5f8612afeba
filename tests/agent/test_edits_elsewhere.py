"""An edit into another agent's worktree is checked as the asking agent, never as the owner.

bob's session runs in bob's worktree (the payload's ``cwd``); the file it edits lies in alice's.
Checked as alice, the edit would be alice "changing her own lines" and pass; it is bob's edit,
so it is held back by the repository's ``resolution`` policy. An edit outside every worktree of
the repository passes with a note that the radar did not check it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.conftest import Scene
from tests.agent.payloads import load
from tests.sources.gitrepo import ScriptedRepo, numbered


def _edit(scene: Scene, target: Path, old: str, *, harness: str = "claude") -> dict:
    name = {"claude": "claude_pre_edit", "cursor": "cursor_pre_strreplace"}[harness]
    payload = load(name, WORKTREE=str(scene.bob), FILE=str(target))
    data = payload["tool_input"]
    data.update(file_path=str(target), old_string=old, new_string="changed\n")
    data.pop("replace_all", None)
    return payload


def _answer(run) -> dict:  # type: ignore[no-untyped-def]
    assert run.returncode == 0
    return json.loads(run.stdout)["hookSpecificOutput"]


@pytest.mark.parametrize(
    ("path", "old"),
    [("util.py", "line 5\n"), ("core.py", "line 22\n")],
    ids=["a file alice has not touched", "alice's own changed line"],
)
def test_an_edit_into_another_agents_worktree_is_denied_naming_it(
    scene: Scene, path: str, old: str
) -> None:
    target = scene.alice / path
    before = target.read_text()
    if path == "core.py":
        old = scene.repo.read("core.py", worktree="alice").splitlines(keepends=True)[21]

    answer = _answer(scene.hook("claude", _edit(scene, target, old)))

    assert answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    assert "lands in another agent's worktree, not in yours (bob in" in reason
    assert f'"{target}" is in the worktree of alice' in reason
    assert target.read_text() == before


def test_cursor_checks_an_edit_outside_its_workspace_roots_as_the_workspace(
    scene: Scene,
) -> None:
    payload = _edit(scene, scene.alice / "util.py", "line 5\n", harness="cursor")

    answer = json.loads(scene.hook("cursor", payload).stdout)

    assert answer["permission"] == "deny"
    assert "worktree of alice" in answer["agent_message"]


def test_the_repository_policy_can_make_it_a_warning(scene: Scene) -> None:
    (scene.bob / ".radar.toml").write_text('[policy]\nresolution = "warn"\n')

    answer = _answer(scene.hook("claude", _edit(scene, scene.alice / "util.py", "line 5\n")))

    assert "permissionDecision" not in answer
    assert "worktree of alice" in answer["additionalContext"]


def test_an_edit_outside_every_worktree_of_the_repository_passes_with_a_note(
    scene: Scene, tmp_path: Path
) -> None:
    other = ScriptedRepo.create(tmp_path / "elsewhere", name="other")
    other.write("core.py", numbered(30))
    other.commit("base")
    scratch = tmp_path / "scratch.txt"
    scratch.write_text("line 1\n")

    for target in (scratch, other.path() / "core.py"):
        answer = _answer(scene.hook("claude", _edit(scene, target, "line 1\n")))

        assert "permissionDecision" not in answer
        assert "outside every worktree of this repository" in answer["additionalContext"]


def test_radar_check_of_a_path_in_another_worktree_answers_as_this_worktree(
    scene: Scene,
) -> None:
    run = scene.radar("check", "../alice/util.py", "--lines", "5")

    assert run.returncode == 2
    assert "worktree of alice" in run.stdout
    assert "not in yours (bob in" in run.stdout


def test_an_edit_in_the_own_worktree_is_still_checked_as_usual(scene: Scene) -> None:
    answer = _answer(scene.hook("claude", _edit(scene, scene.bob / "core.py", "line 22\n")))

    assert answer["permissionDecision"] == "deny"
    assert "Resolution Advisory with alice" in answer["permissionDecisionReason"]
