"""Real git worktrees to an advisory with its symbol evidence, end to end, read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proximity.agent.config import Policy
from proximity.agent.decide import decide
from proximity.engine.airspace import scan
from proximity.engine.findings import CheckResult, findings_from_advisories
from proximity.sources.git import read_working_sets
from proximity.sources.symbols import (
    BoundedCache,
    build_symbol_index,
    clear_index_cache,
    read_symbol_data,
)
from tests.sources.gitrepo import ScriptedRepo, repo_state

UTIL = (
    '"""Helpers."""\n\n\n'
    "def normalise(name):\n"
    "    cleaned = name.strip().lower()\n"
    "    return cleaned\n\n\n"
    "def parse(text):\n"
    '    key, _, value = text.partition("=")\n'
    '    return {"key": key, "value": value}\n'
)
VIEWS = (
    "from app.util import normalise\n\n\n"
    "def index(request):\n"
    "    return normalise(request)\n\n\n"
    "def about(request):\n"
    '    return "about"\n'
)
CART = (
    "class Cart:\n"
    "    def __init__(self):\n"
    "        self.items = []\n\n"
    "    def describe(self):\n"
    '        return "a cart"\n\n'
    "    def summary(self):\n"
    '        return {"count": len(self.items)}\n'
)


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    clear_index_cache()
    scripted = ScriptedRepo.create(tmp_path)
    scripted.write("app/__init__.py", "")
    scripted.write("app/util.py", UTIL)
    scripted.write("app/views.py", VIEWS)
    scripted.write("app/cart.py", CART)
    scripted.write("web/text.ts", "export function format(v: string) {\n  return v.trim();\n}\n")
    scripted.write("web/view.ts", "export function show(v: string) {\n  return v;\n}\n")
    scripted.commit("base")
    scripted.add_worktree("alpha")
    scripted.add_worktree("beta")
    return scripted


def _scan(repo: ScriptedRepo, profile: str = "radar-v1-symbols") -> dict[str, Any]:
    read = read_symbol_data(repo.root, agents=["alpha", "beta"])
    assert read.problems == ()
    agents = [ws.to_agent_json() for ws in read_working_sets(repo.root) if ws.agent_id != "main"]
    result: dict[str, Any] = scan({"agents": agents}, profile=profile, symbols=read.data)
    return result


def _pair(result: dict[str, Any]) -> dict[str, Any]:
    (advisory,) = result["advisories"]
    found: dict[str, Any] = advisory
    return found


def test_a_rename_against_a_new_caller_reaches_an_advisory_with_both_sides(
    repo: ScriptedRepo,
) -> None:
    repo.write("app/util.py", UTIL.replace("def normalise", "def canonical"), worktree="alpha")
    repo.write("app/views.py", VIEWS.replace("normalise", "canonical"), worktree="alpha")
    repo.commit("alpha: rename", worktree="alpha")
    # committed at the scripted (2023) time, alpha holds by its start; still at work (a file
    # changed now), it is not parked (docs/DECISIONS.md, "A parked branch yields")
    repo.write("notes.txt", "alpha's notes\n", worktree="alpha")
    repo.write("app/views.py", VIEWS.replace('return "about"', "return normalise(request)"),
               worktree="beta")  # fmt: skip  # uncommitted work counts too
    before = repo_state(repo)
    advisory = _pair(_scan(repo))
    assert repo_state(repo) == before  # nothing written: refs, HEADs, statuses, indexes
    assert advisory["level"] == "resolution"
    top = advisory["symbols"][0]
    assert (top["reason"], top["a"]["agent"], top["b"]["agent"]) == ("renamed", "alpha", "beta")
    assert top["a"]["renamedTo"] == "app/util.py::canonical"
    assert (top["b"]["path"], top["b"]["lines"]) == ("app/views.py", [9, 9])
    # the hook's reason names the evidence (proximity/agent/decide.py)
    findings = findings_from_advisories(
        [advisory], asker="beta", others={"alpha": {"files": []}}, planned=["app/views.py"]
    )
    decision = decide(CheckResult("beta", "repo", tuple(findings)), Policy())
    assert decision.kind == "deny"
    assert 'Symbols: "alpha renames normalise (app/util.py) to canonical' in decision.text


def test_a_return_shape_change_in_one_class_against_a_new_consumer_is_traffic(
    repo: ScriptedRepo,
) -> None:
    """The issue's report: different methods of one class; radar-v1 says nothing."""
    repo.write(
        "app/cart.py",
        CART.replace('{"count": len(self.items)}', "len(self.items), 0"),
        worktree="alpha",
    )
    repo.write(
        "app/cart.py",
        CART.replace('return "a cart"', 'return self.summary()["count"]'),
        worktree="beta",
    )
    assert _scan(repo, "radar-v1")["advisories"] == []
    advisory = _pair(_scan(repo))
    assert advisory["level"] == "advisory"
    assert advisory["symbols"][0]["reason"] == "returns"
    assert advisory["symbols"][0]["a"]["returns"]["after"] == ["tuple/2"]


def test_a_removed_typescript_export_against_a_new_import(repo: ScriptedRepo) -> None:
    (repo.path("alpha") / "web/text.ts").write_text("export const VERSION = 1;\n")
    repo.write(
        "web/view.ts",
        "import { format } from './text';\n\nexport function show(v: string)"
        " {\n  return format(v);\n}\n",
        worktree="beta",
    )
    advisory = _pair(_scan(repo))
    assert advisory["level"] == "resolution"
    assert {(e["reason"], e["b"]["use"]) for e in advisory["symbols"]} >= {("removed", "import")}
    assert advisory["symbols"][0]["a"]["symbol"] == "web/text.ts::format"


def test_the_index_of_a_new_commit_extracts_only_what_changed(repo: ScriptedRepo) -> None:
    cache = BoundedCache()
    first = build_symbol_index(repo.root, repo.git("rev-parse", "HEAD").strip(), cache=cache)
    assert set(first.extracted) == {
        "app/__init__.py",
        "app/util.py",
        "app/views.py",
        "app/cart.py",
        "web/text.ts",
        "web/view.ts",
    }
    repo.write("app/cart.py", CART.replace('"a cart"', '"the cart"'))
    second = build_symbol_index(repo.root, repo.commit("main: edit"), cache=cache, previous=first)
    assert second.extracted == ("app/cart.py",)
    assert second.relinked == ("app/cart.py",)
    assert second.uses("app/views.py::index") == first.uses("app/views.py::index")
