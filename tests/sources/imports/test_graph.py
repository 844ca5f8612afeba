from __future__ import annotations

from pathlib import Path

import pytest

from proximity.engine.imports import EdgeFlags, ParsedImports
from proximity.sources.git import GitError
from proximity.sources.imports import build_import_graph, merge_graphs
from tests.sources.gitrepo import ScriptedRepo

FILES = {
    "src/shop/__init__.py": "",
    "src/shop/models.py": "from .db import session\n",
    "src/shop/db.py": "import os\n",
    "src/shop/api.py": (
        "from typing import TYPE_CHECKING\n"
        "from shop import models\n"
        "if TYPE_CHECKING:\n    from shop.views import View\n"
        "# from shop import secret\n"
        "def later():\n    from . import db\n"
    ),
    "src/shop/views.py": "x = 'import shop.api'\n",
    "tests/test_api.py": "from shop.api import later\n",
    "web/tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}',
    "web/src/main.ts": (
        "import { api } from '@/api';\n"
        "import type { Model } from './model';\n"
        "// import { x } from './dead';\n"
        "export * as util from './util/index.js';\n"
    ),
    "web/src/api.ts": "export const api = () => import('./model');\n",
    "web/src/model.ts": "export interface Model {}\n",
    "web/src/util/index.ts": "export const u = 1;\n",
    "web/src/dead.ts": "export const dead = 1;\n",
    "README.md": "import nothing from here\n",
}
EXPECTED = {
    "src/shop/__init__.py": [],
    "src/shop/api.py": ["src/shop/db.py", "src/shop/models.py", "src/shop/views.py"],
    "src/shop/db.py": [],
    "src/shop/models.py": ["src/shop/db.py"],
    "src/shop/views.py": [],
    "tests/test_api.py": ["src/shop/api.py"],
    "web/src/api.ts": ["web/src/model.ts"],
    "web/src/dead.ts": [],
    "web/src/main.ts": ["web/src/api.ts", "web/src/model.ts", "web/src/util/index.ts"],
    "web/src/model.ts": [],
    "web/src/util/index.ts": [],
}


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    for path, text in FILES.items():
        repo.write(path, text)
    repo.commit("base")
    return repo


def test_whole_repository_graph_with_flags(repo: ScriptedRepo) -> None:
    graph = build_import_graph(repo.root)
    assert graph.adjacency == EXPECTED
    assert graph.edges["src/shop/api.py"] == {
        "src/shop/models.py": EdgeFlags(),
        "src/shop/views.py": EdgeFlags(type_only=True),
        "src/shop/db.py": EdgeFlags(conditional=True),
    }
    assert graph.edges["web/src/main.ts"]["web/src/model.ts"] == EdgeFlags(type_only=True)
    # inside an arrow function: runs only when called
    assert graph.edges["web/src/api.ts"]["web/src/model.ts"] == EdgeFlags(
        conditional=True, dynamic=True
    )
    assert graph.errors == ()
    assert graph.to_json()["adjacency"] == EXPECTED


def test_rescan_after_one_edit_parses_only_that_file(repo: ScriptedRepo) -> None:
    cache: dict[str, ParsedImports] = {}
    first = build_import_graph(repo.root, cache=cache)
    assert len(first.parsed) + len(first.reused) == len(EXPECTED)
    repo.write("src/shop/db.py", "import os\nfrom shop import views\n")  # uncommitted edit
    second = build_import_graph(repo.root, cache=cache, previous=first)
    assert second.parsed == ("src/shop/db.py",)
    assert second.adjacency["src/shop/db.py"] == ["src/shop/views.py"]
    assert {k: v for k, v in second.adjacency.items() if k != "src/shop/db.py"} == {
        k: v for k, v in EXPECTED.items() if k != "src/shop/db.py"
    }


def test_untracked_file_joins_the_graph_and_deleted_file_leaves_it(repo: ScriptedRepo) -> None:
    repo.write("src/shop/extra.py", "from shop import db\n")
    (repo.root / "web/src/dead.ts").unlink()
    graph = build_import_graph(repo.root)
    assert graph.adjacency["src/shop/extra.py"] == ["src/shop/db.py"]
    assert "web/src/dead.ts" not in graph.adjacency


def test_cache_is_keyed_by_blob_so_identical_content_parses_once(repo: ScriptedRepo) -> None:
    cache: dict[str, ParsedImports] = {}
    build_import_graph(repo.root, cache=cache)
    blob = repo.git("rev-parse", "HEAD:src/shop/db.py").strip()
    assert f"{blob}:python:v1" in cache
    other = ScriptedRepo.create(repo.root.parent, name="clone")
    for path, text in FILES.items():
        other.write(path, text)
    other.commit("same content")
    assert build_import_graph(other.root, cache=cache).parsed == ()


def test_syntax_error_is_reported_and_the_rest_is_built(repo: ScriptedRepo) -> None:
    repo.write("src/shop/broken.py", "def (:\n")
    graph = build_import_graph(repo.root)
    assert any(e.startswith("src/shop/broken.py: line 1") for e in graph.errors)
    assert graph.adjacency["src/shop/models.py"] == ["src/shop/db.py"]


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        build_import_graph(tmp_path)


def test_worktree_graphs_merge_into_a_union(repo: ScriptedRepo) -> None:
    repo.add_worktree("feature")
    repo.write("src/shop/new.py", "from shop import models\n", worktree="feature")
    merged = merge_graphs([build_import_graph(repo.root), build_import_graph(repo.path("feature"))])
    assert merged.adjacency["src/shop/new.py"] == ["src/shop/models.py"]
    assert merged.adjacency["tests/test_api.py"] == ["src/shop/api.py"]
