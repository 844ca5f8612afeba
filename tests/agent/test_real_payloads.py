"""The payloads the real harness programs sent (recorded by tests/harness/record_payloads.py).

Each harness's own pre-edit payload of core.py line 22, which alice holds, is denied in its
own answer shape; its other events pass through the hook and exit 0.
"""

from __future__ import annotations

import json

import pytest

from tests.agent.conftest import Scene
from tests.agent.payloads import NAMES, load

REAL = [name for name in NAMES if "_real_" in name]
PRE_EDITS = {
    "claude_real_pretooluse_edit": ("hookSpecificOutput", "permissionDecisionReason"),
    "codex_real_pretooluse_apply_patch": ("hookSpecificOutput", "permissionDecisionReason"),
    "gemini_real_beforetool_replace": (None, "reason"),
}


def _fill(scene: Scene, name: str) -> dict:
    return load(
        name,
        WORKTREE=str(scene.bob),
        FILE=str(scene.bob / "core.py"),
        MAIN=str(scene.repo.root),
        HOME=str(scene.state.parent),
    )


def test_every_harness_has_recorded_payloads() -> None:
    assert {name.split("_")[0] for name in REAL} == {"claude", "codex", "gemini"}
    assert set(PRE_EDITS) <= set(REAL)


@pytest.mark.parametrize("name", sorted(PRE_EDITS))
def test_a_real_pre_edit_payload_of_alices_line_is_denied_naming_her(
    scene: Scene, name: str
) -> None:
    harness = name.split("_")[0]
    run = scene.hook(harness, _fill(scene, name))
    assert run.returncode == 0
    wrapper, field = PRE_EDITS[name]
    answer = json.loads(run.stdout)
    answer = answer[wrapper] if wrapper else answer
    assert "Resolution Advisory with alice" in answer[field]


@pytest.mark.parametrize("name", sorted(set(REAL) - set(PRE_EDITS)))
def test_the_other_real_payloads_pass_through_the_hook(scene: Scene, name: str) -> None:
    run = scene.hook(name.split("_")[0], _fill(scene, name))
    assert run.returncode == 0
    assert run.stderr == ""
    assert not run.stdout or json.loads(run.stdout)
