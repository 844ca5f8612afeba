from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from proximity.engine.airspace import DEFAULT_PROFILE
from tests.sources.gitrepo import ScriptedRepo, build_scenario, repo_state

NOW = "2023-11-15T01:10:00Z"  # ten minutes after the scenario's uncommitted edits


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> ScriptedRepo:
    return build_scenario(tmp_path_factory.mktemp("scene"))


@pytest.fixture
def in_worktree(scenario: ScriptedRepo) -> Iterator[Path]:
    before = Path.cwd()
    os.chdir(scenario.path("delta"))
    try:
        yield scenario.path("delta")
    finally:
        os.chdir(before)


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("radar", *args, stdout=out, stderr=err)
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def test_scan_prints_dry_run_conflicts_as_resolutions(scenario: ScriptedRepo) -> None:
    code, out, _ = _run("scan", "--repo", str(scenario.root), "--now", NOW)
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:-1]]
    assert [(r[0], r[2], r[3], r[-1]) for r in rows] == [
        ("resolution", "alpha", "beta", "app/core.py"),
        ("resolution", "beta", "detached:delta", "app/core.py"),
    ]
    assert out.splitlines()[-1].startswith("5 agents, 2 advisories, 2 resolutions")


def test_scan_json_is_the_engine_result_with_conflict_flags(scenario: ScriptedRepo) -> None:
    code, out, _ = _run("scan", "--repo", str(scenario.root), "--now", NOW, "--json")
    result = json.loads(out)
    assert code == 0
    assert result["profile"] == DEFAULT_PROFILE == "radar-v1-symbols"
    pairs = {(a["a"], a["b"]): a["conflict"] for a in result["advisories"]}
    assert pairs[("alpha", "beta")] is True
    assert pairs[("beta", "detached:delta")] is True
    assert result["counts"]["agents"] == 5


def test_check_names_the_other_agent_and_its_lines(
    scenario: ScriptedRepo, in_worktree: Path
) -> None:
    code, out, _ = _run("check", "app/core.py", "--now", NOW)
    assert code == 2
    # alpha's committed lines 3-5 are old but unmerged: they still conflict (no decay)
    first, second = out.splitlines()
    assert first.startswith(
        "app/core.py: resolution with alpha (intent: alpha), which edits lines 3-5"
    )
    assert second.startswith(
        "app/core.py: resolution with beta (intent: beta), which edits lines 4-6"
    )


def test_check_is_clear_for_a_file_nobody_touches(
    scenario: ScriptedRepo, in_worktree: Path
) -> None:
    code, out, _ = _run("check", "docs/guide.md", "--now", NOW, "--agent", "detached:delta")
    assert (code, out.strip()) == (0, "docs/guide.md: clear")


def test_check_accepts_an_absolute_path_in_another_worktree(scenario: ScriptedRepo) -> None:
    target = scenario.path("alpha") / "app" / "core.py"
    code, out, _ = _run("check", str(target), "--repo", str(scenario.root), "--now", NOW)
    assert code == 2
    assert out.startswith("app/core.py: resolution with beta")


def test_commands_change_nothing_in_the_repository(
    scenario: ScriptedRepo, in_worktree: Path
) -> None:
    before = repo_state(scenario)
    _run("scan", "--repo", str(scenario.root), "--now", NOW)
    _run("check", "app/core.py", "--now", NOW)
    assert repo_state(scenario) == before


def test_not_a_repository_is_a_command_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a git repository"):
        call_command("radar", "scan", "--repo", str(tmp_path), stdout=io.StringIO())


def test_unknown_agent_is_a_command_error(scenario: ScriptedRepo) -> None:
    with pytest.raises(CommandError, match="no such worktree agent"):
        call_command(
            "radar", "check", "x.py", "--repo", str(scenario.root), "--agent", "ghost",
            stdout=io.StringIO(),
        )  # fmt: skip
