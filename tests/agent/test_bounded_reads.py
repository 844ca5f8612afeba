"""Before deciding, the hook reads at most MAX_READ_BYTES of any file, and never a device or FIFO.

An edit's planned lines come from the file as it is now; a path that is a FIFO (opening it
blocks until a writer comes), a device (``/dev/zero`` never ends) or a huge file is planned as
a whole-file edit without reading it, and a `.radar.toml` that is one fails the hook open.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from proximity.agent.edits import PlannedEdit, parse_apply_patch, patch_edit, planned_replacement
from proximity.sources.limits import MAX_READ_BYTES, read_bounded
from tests.agent.conftest import Scene
from tests.agent.payloads import load


def _edit(scene: Scene, target: Path) -> dict:
    payload = load("claude_pre_edit", WORKTREE=str(scene.bob), FILE=str(target))
    payload["tool_input"].update(file_path=str(target), old_string="line 1\n", new_string="x\n")
    return payload


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    """A FIFO, a link to /dev/zero and a sparse file one byte past the bound."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.py"
    zero.symlink_to("/dev/zero")
    huge = tmp_path / "huge.py"
    with huge.open("wb") as handle:
        handle.write(b"line 1\n")
        handle.truncate(MAX_READ_BYTES + 1)
    return {"fifo": fifo, "device": zero, "huge": huge}


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_an_edit_of_a_special_or_huge_file_is_whole_file_and_nothing_is_read(
    specials: dict[str, Path], kind: str
) -> None:
    path = str(specials[kind])

    assert read_bounded(path, follow=True) is None  # the edit planner follows links
    assert planned_replacement(path, [("line 1\n", False, "x\n")]) == PlannedEdit(
        path, None, "edit", "line 1\n"
    )
    patch = f"*** Begin Patch\n*** Update File: {specials[kind].name}\n@@\n-line 1\n+x\n"
    [planned] = patch_edit(str(specials[kind].parent), parse_apply_patch(patch)[0])
    assert planned.lines is None


def test_a_file_within_the_bound_is_read_and_a_missing_one_is_a_creation(tmp_path: Path) -> None:
    inside = tmp_path / "ok.py"
    inside.write_text("a\nline 1\nb\n")

    assert planned_replacement(str(inside), [("line 1\n", False, "x\n")]).lines == ((2, 2),)
    assert read_bounded(inside, limit=5) is None
    missing = planned_replacement(str(tmp_path / "new.py"), [("line 1\n", False, "x\n")])
    assert (missing.lines, missing.kind) == (None, "create")


def test_the_hook_answers_an_edit_of_a_fifo_in_the_worktree_without_waiting_for_a_writer(
    scene: Scene,
) -> None:
    fifo = scene.bob / "pipe.py"
    os.mkfifo(fifo)

    started = time.monotonic()
    run = scene.hook("claude", _edit(scene, fifo))

    assert (run.returncode, run.stdout) == (0, "")  # whole-file edit of a file nobody has
    assert time.monotonic() - started < 8.0  # the start deadline is 10 s: no blocked open
    log = scene.state / "hooks.log"
    assert not log.exists() or "fail open" not in log.read_text()


def test_a_radar_toml_that_is_a_device_fails_the_hook_open_with_one_log_line(
    scene: Scene,
) -> None:
    (scene.bob / ".radar.toml").symlink_to("/dev/zero")

    started = time.monotonic()
    run = scene.hook("claude", _edit(scene, scene.bob / "core.py"))

    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert time.monotonic() - started < 8.0
    log = (scene.state / "hooks.log").read_text()
    assert "fail open" in log
    assert f"not a readable file of at most {MAX_READ_BYTES} bytes" in log
    assert json.dumps(log)  # one readable log, nothing of /dev/zero in it
