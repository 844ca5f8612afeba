from __future__ import annotations

import pytest

from proximity.engine.airspace import scan
from proximity.sources.git.airspace import read_repository_airspace
from tests.sources.gitrepo import ScriptedRepo, build_scenario


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> ScriptedRepo:
    repo = build_scenario(tmp_path_factory.mktemp("scene"))
    repo.write("app/uses_core.py", "from app import core\n", worktree="gamma")
    return repo


def test_airspace_has_agents_union_graph_and_conflicts(scenario: ScriptedRepo) -> None:
    read = read_repository_airspace(scenario.root)
    airspace = read.to_airspace(now="2023-11-15T01:10:00Z")
    assert [a["agentId"] for a in airspace["agents"]] == [
        "alpha", "beta", "detached:delta", "gamma", "main",
    ]  # fmt: skip
    # gamma's untracked module joins the union graph with its edge
    assert airspace["graph"]["adjacency"]["app/uses_core.py"] == ["app/core.py"]
    assert airspace["options"]["conflicts"] == [
        {"a": "alpha", "b": "beta", "files": ["app/core.py"]},
        {"a": "beta", "b": "detached:delta", "files": ["app/core.py"]},
    ]
    assert read.problems == ()
    result = scan(airspace)
    conflicted = {(a["a"], a["b"]) for a in result["advisories"] if a["conflict"]}
    assert conflicted == {("alpha", "beta"), ("beta", "detached:delta")}


def test_slow_readers_can_be_switched_off(scenario: ScriptedRepo) -> None:
    read = read_repository_airspace(scenario.root, graph=False, conflicts=False)
    airspace = read.to_airspace()
    assert airspace["graph"] == {"adjacency": {}}
    assert "conflicts" not in airspace["options"]
