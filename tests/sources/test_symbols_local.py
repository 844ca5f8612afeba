"""The agent side's symbol reader: the server's answer from a bounded index, cached by blob."""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.engine.symbols import symbol_data_to_json
from proximity.sources.git import read_working_sets
from proximity.sources.limits import MAX_READ_BYTES
from proximity.sources.symbols import BoundedCache, clear_index_cache, read_symbol_data
from proximity.sources.symbols import local as local_module
from proximity.sources.symbols.local import clear_local_cache, local_symbols
from tests.sources.gitrepo import ScriptedRepo, repo_state
from tests.sources.test_symbols_worktrees import CART, UTIL, VIEWS


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    clear_index_cache()
    scripted = ScriptedRepo.create(tmp_path)
    scripted.write("app/__init__.py", "")
    scripted.write("app/util.py", UTIL)
    scripted.write("app/views.py", VIEWS)
    scripted.write("app/cart.py", CART)
    for k in range(30):  # files the channel cannot use: the bounded index leaves them out
        scripted.write(f"lib/m{k}.py", f"def unrelated_{k}(x):\n    return x + {k}\n")
    scripted.write("web/text.ts", "export function format(v: string) {\n  return v.trim();\n}\n")
    scripted.write("web/view.ts", "export function show(v: string) {\n  return v;\n}\n")
    scripted.commit("base")
    scripted.add_worktree("alpha")
    scripted.add_worktree("beta")
    return scripted


def _both(repo: ScriptedRepo, **kwargs: object) -> tuple[dict[str, object], dict[str, object]]:
    sets = [ws for ws in read_working_sets(repo.root) if ws.agent_id in ("alpha", "beta")]
    local = local_symbols(repo.root, sets, cache=BoundedCache(), **kwargs)  # type: ignore[arg-type]
    server = read_symbol_data(repo.root, agents=["alpha", "beta"], cache=BoundedCache())
    return symbol_data_to_json(local.data), symbol_data_to_json(server.data)


def _signature_change(repo: ScriptedRepo) -> None:
    new = UTIL.replace("def normalise(name)", "def normalise(name, *, lower)")
    repo.write("app/util.py", new, worktree="alpha")
    repo.commit("alpha: normalise takes lower", worktree="alpha")
    repo.write("app/views.py", VIEWS.replace('return "about"', "return normalise(request)"),
               worktree="beta")  # fmt: skip


def test_the_bounded_index_gives_the_full_index_answer(repo: ScriptedRepo) -> None:
    _signature_change(repo)
    before = repo_state(repo)
    local, server = _both(repo)
    assert repo_state(repo) == before  # read-only
    assert local == server
    assert local["agents"]["alpha"]["changes"][0]["changes"] == ["signature"]  # type: ignore[index]


def test_a_return_shape_change_in_one_class_reads_the_same(repo: ScriptedRepo) -> None:
    repo.write("app/cart.py", CART.replace('{"count": len(self.items)}', "len(self.items), 0"),
               worktree="alpha")  # fmt: skip
    repo.write("app/cart.py", CART.replace('return "a cart"', 'return self.summary()["count"]'),
               worktree="beta")  # fmt: skip
    local, server = _both(repo)
    assert local == server
    assert local["agents"]["beta"]["uses"]  # type: ignore[index]


def test_only_the_changed_files_their_imports_and_mentions_are_indexed(repo: ScriptedRepo) -> None:
    _signature_change(repo)
    sets = read_working_sets(repo.root)
    read = local_symbols(repo.root, sets, cache=BoundedCache())
    # util.py and views.py changed; views.py imports util.py and mentions normalise
    assert read.indexed == ("app/util.py", "app/views.py")
    capped = local_symbols(repo.root, sets, cache=BoundedCache(), max_files=1)
    assert capped.indexed is not None
    assert len(capped.indexed) == 1


def test_a_repeated_read_is_lookups(repo: ScriptedRepo) -> None:
    _signature_change(repo)
    sets = read_working_sets(repo.root)
    cache = BoundedCache()
    first = local_symbols(repo.root, sets, cache=cache)
    filled = dict.fromkeys(cache)
    assert filled  # base and worktree versions, detailed, and the index's files, by blob
    second = local_symbols(repo.root, sets, cache=cache)
    assert dict.fromkeys(cache) == filled  # nothing extracted again
    assert symbol_data_to_json(second.data) == symbol_data_to_json(first.data)
    # the memos forgotten, the blob cache alone answers: cached blobs are not read from git,
    # and their extractions are used, not taken for missing base versions
    clear_local_cache()
    third = local_symbols(repo.root, sets, cache=cache)
    assert dict.fromkeys(cache) == filled
    assert symbol_data_to_json(third.data) == symbol_data_to_json(first.data)
    assert third.data.sides["alpha"].changes[0].changes == ("signature",)


def test_without_tree_sitter_javascript_is_left_out_silently(
    repo: ScriptedRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo.path("alpha") / "web/text.ts").write_text("export const VERSION = 1;\n")
    repo.write("web/view.ts", "import { format } from './text';\n\nexport function show(v: string)"
               " {\n  return format(v);\n}\n", worktree="beta")  # fmt: skip
    sets = read_working_sets(repo.root)
    with_ts = local_symbols(repo.root, sets, cache=BoundedCache())
    assert symbol_data_to_json(with_ts.data)["agents"]["alpha"]["changes"]
    monkeypatch.setattr(local_module, "_LANGUAGES", frozenset({"python"}))
    without = local_symbols(repo.root, sets, cache=BoundedCache())
    assert without.problems == ()
    agents = symbol_data_to_json(without.data)["agents"]
    assert agents["alpha"] == {"changes": [], "uses": []}
    assert agents["beta"] == {"changes": [], "uses": []}


def test_a_worktree_file_over_the_read_limit_is_left_out_with_a_problem(
    repo: ScriptedRepo,
) -> None:
    _signature_change(repo)
    huge = VIEWS + "#" * (MAX_READ_BYTES + 1) + "\n"
    repo.write("app/views.py", huge, worktree="beta")
    read = local_symbols(repo.root, read_working_sets(repo.root), cache=BoundedCache())
    assert any("app/views.py not read" in p for p in read.problems)
    assert symbol_data_to_json(read.data)["agents"]["beta"] == {"changes": [], "uses": []}
