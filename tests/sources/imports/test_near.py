"""The hook's import edges (``near_graph``) against the whole graph of every worktree.

The dependency channel needs the distances, up to the profile's cap of 2, between files the
working sets changed; ``near_graph`` reads only the edges that touch those files. Each test
builds real worktrees and compares those distances with the union graph a scan builds
(``read_repository_airspace``), which parses every file.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from proximity.engine.imports import ImportGraph
from proximity.sources.git import read_working_sets
from proximity.sources.git.airspace import read_repository_airspace
from proximity.sources.imports.near import clear_near_cache, near_graph, warm_near_graph
from tests.sources.gitrepo import ScriptedRepo


def _seeds(root: Path) -> tuple[list, set[str]]:
    sets = read_working_sets(root)
    kept = [ws for ws in sets if ws.merge_base]
    paths = {f.path for ws in kept for f in ws.files}
    paths |= {f.old_path for ws in kept for f in ws.files if f.old_path}
    return list(sets), paths


def _compare(repo: ScriptedRepo) -> tuple[dict[tuple[str, str], int], ImportGraph]:
    clear_near_cache()
    sets, seeds = _seeds(repo.root)
    whole = read_repository_airspace(repo.root, conflicts=False).graph
    assert whole is not None
    mine = near_graph(repo.root, sets)
    expected = whole.distances(seeds)
    assert mine.distances(seeds) == expected
    return expected, mine


SHOP = {
    "shop/__init__.py": '"""Shop."""\nVERSION = 1\n',
    "shop/db.py": "import json\n\n\ndef connect():\n    return json\n",
    "shop/orders.py": "from shop.db import connect\n\n\ndef order():\n    return connect()\n",
    "shop/cart.py": "from shop import (\n    db,\n)\n\n\ndef cart():\n    return db\n",
    "shop/util/__init__.py": "def fmt(x):\n    return str(x)\n",
    "shop/util/money.py": "from . import fmt\n\n\ndef cents(x):\n    return fmt(x)\n",
    "shop/views.py": "from .util import fmt\n# the db and the orders are prose here\n",
    "shop/report.py": "import importlib\n\nmod = importlib.import_module('shop.orders')\n",
    "shop/pricing.py": "RATE = 2\n",
    "shop/checkout.py": "from shop import db\nfrom shop.pricing import RATE\n",
    "tools/lonely.py": '"""Mentions db, orders and cart in prose only."""\n',
    "ui/lib/index.ts": "export const x = 1;\n",
    "ui/lib/inner.ts": "import { x } from '.';\nexport const y = x;\n",
    "ui/app.ts": "import { x } from './lib';\nimport { y } from './lib/inner';\n",
    "ui/tsconfig.json": '{"compilerOptions": {}}\n',
    "ui/other.ts": "// lib is a word here, './lib/inner' too in prose\nexport const z = 2;\n",
    "go.mod": "module example.com/m\n\ngo 1.22\n",
    "pkg/store/store.go": "package store\n\nfunc Get() int { return 1 }\n",
    "cmd/main.go": (
        'package main\n\nimport "example.com/m/pkg/store"\n\nfunc main() { store.Get() }\n'
    ),
}


@pytest.fixture
def shop(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    for path, text in SHOP.items():
        repo.write(path, text)
    repo.commit("base")
    return repo


def test_every_import_form_is_found_as_the_whole_graph_finds_it(shop: ScriptedRepo) -> None:
    """Absolute, parenthesised from-imports, relative with dots alone, dynamic, TypeScript
    folders and '.', Go packages: each changed file's distances are the whole graph's."""
    edits = {
        "a": ("shop/db.py", "# a\n"),
        "b": ("shop/util/__init__.py", "# b\n"),
        "c": ("ui/lib/index.ts", "// c\n"),
        "d": ("pkg/store/store.go", "// d\n"),
        "e": ("shop/orders.py", "# e\n"),
    }
    for name, (path, tail) in edits.items():
        shop.add_worktree(name)
        shop.write(path, SHOP[path] + tail, worktree=name)
    expected, graph = _compare(shop)
    # the forms are really there: each at distance 1 from the file importing it
    assert expected[("shop/db.py", "shop/orders.py")] == 1
    assert "shop/db.py" in graph.edges["shop/cart.py"]
    assert "shop/util/__init__.py" in graph.edges["shop/util/money.py"]
    assert "shop/orders.py" in graph.edges["shop/report.py"]
    assert "ui/lib/index.ts" in graph.edges["ui/lib/inner.ts"]
    assert "pkg/store/store.go" in graph.edges["cmd/main.go"]
    # prose never makes a candidate an edge
    assert "tools/lonely.py" not in graph.files
    assert "ui/other.ts" not in graph.files


def test_a_planned_file_no_worktree_changed_meets_the_changed_files_as_in_the_whole_graph(
    shop: ScriptedRepo,
) -> None:
    """A planned edit of a file nobody changed yet: its distances to every changed file, for
    each file of the repository in turn (directly, and through a file both import or that
    imports both)."""
    for name, path in (("a", "shop/db.py"), ("b", "shop/util/money.py"), ("c", "ui/app.ts")):
        shop.add_worktree(name)
        shop.write(
            path, SHOP[path] + ("// x\n" if path.endswith(".ts") else "# x\n"), worktree=name
        )
    sets, changed = _seeds(shop.root)
    whole = read_repository_airspace(shop.root, conflicts=False).graph
    assert whole is not None
    clear_near_cache()
    warm_near_graph(shop.root, sets)  # the changed files' part first, as the daemon keeps it
    met = 0
    for planned in sorted(set(SHOP) - changed):
        wanted = changed | {planned}
        expected = {k: d for k, d in whole.distances(wanted).items() if planned in k}
        got = near_graph(shop.root, sets, [planned]).distances(wanted)
        assert {k: d for k, d in got.items() if planned in k} == expected, planned
        met += bool(expected)
    assert met >= 5  # views, orders, cart, report, util/__init__, inner.ts, lib/index.ts ...


def test_added_deleted_and_renamed_files_resolve_as_their_worktree_does(
    shop: ScriptedRepo,
) -> None:
    shop.add_worktree("adder")
    shop.write("shop/coupons.py", "from shop import orders\n", worktree="adder")
    shop.write("shop/orders.py", SHOP["shop/orders.py"] + "from shop import coupons\n",
               worktree="adder")  # fmt: skip
    shop.add_worktree("remover")
    shop.git("rm", "-q", "shop/db.py", worktree="remover")
    shop.add_worktree("mover")
    shop.git("mv", "shop/cart.py", "shop/basket.py", worktree="mover")
    shop.commit("move the cart", worktree="mover")
    shop.add_worktree("configured")
    shop.write("ui/tsconfig.json", '{"compilerOptions": {"baseUrl": "."}}\n', worktree="configured")
    shop.write("ui/other.ts", "import { y } from 'lib/inner';\n", worktree="configured")
    expected, graph = _compare(shop)
    assert expected[("shop/coupons.py", "shop/orders.py")] == 1
    assert "shop/db.py" in graph.edges["shop/basket.py"]
    assert "ui/lib/inner.ts" in graph.edges["ui/other.ts"]  # through the changed baseUrl


def test_the_current_version_of_a_changed_file_counts(shop: ScriptedRepo) -> None:
    """An import one worktree adds couples its file from then on; freshness is exact: a file
    changed after the last read is read again (its state on disk is part of the key)."""
    shop.add_worktree("a")
    shop.add_worktree("b")
    shop.write("tools/lonely.py", "# nothing yet\n", worktree="a")
    shop.write("shop/cart.py", SHOP["shop/cart.py"] + "# b\n", worktree="b")
    sets, seeds = _seeds(shop.root)
    before = near_graph(shop.root, sets).distances(seeds)
    assert ("tools/lonely.py", "shop/cart.py") not in before
    shop.write("tools/lonely.py", "from shop.cart import cart\n", worktree="a")
    after = near_graph(shop.root, sets).distances(seeds)  # the same working-set objects
    assert after[("tools/lonely.py", "shop/cart.py")] == 1
    _compare(shop)


def test_a_cut_is_reported_and_never_raises(shop: ScriptedRepo) -> None:
    shop.add_worktree("a")
    shop.write("shop/db.py", SHOP["shop/db.py"] + "# a\n", worktree="a")
    sets, _ = _seeds(shop.root)
    clear_near_cache()
    graph = near_graph(shop.root, sets, max_files=1)
    assert any("1 read; coupling through the rest is unknown" in e for e in graph.errors)
    broken = [ws for ws in sets if ws.merge_base]
    from dataclasses import replace

    bad = [replace(ws, merge_base="0" * 40) for ws in broken]
    graph = near_graph(shop.root, bad)
    assert graph.errors
    assert "imports not read" in graph.errors[0]


MODULES = [f"pkg/m{i}.py" for i in range(4)] + [f"pkg/sub/s{i}.py" for i in range(4)]
MODULES += [f"lib/l{i}.py" for i in range(3)]
PACKAGES = ["pkg/__init__.py", "pkg/sub/__init__.py", "lib/__init__.py"]


def _dotted(path: str) -> str:
    return path.removesuffix("/__init__.py").removesuffix(".py").replace("/", ".")


def _import_of(rng: random.Random, importer: str, target: str) -> str:
    """One random way for ``importer`` to import ``target`` (a module or a package)."""
    folder, _, name = target.removesuffix("/__init__.py").rpartition("/")
    stem = name.removesuffix(".py")
    forms = [f"import {_dotted(target)}\n", f"from {_dotted(target)} import thing\n"]
    if folder:
        parent = folder.replace("/", ".")
        forms += [f"from {parent} import {stem}\n", f"from {parent} import (\n    {stem},\n)\n"]
    if importer.rpartition("/")[0] == folder:
        forms += [f"from . import {stem}\n", f"from .{stem} import thing\n"]
    if target.endswith("__init__.py") and importer.startswith(target.removesuffix("__init__.py")):
        forms.append("from . import thing\n")
    forms.append(f"x = __import__('{_dotted(target)}')\n")
    return rng.choice(forms)


def _module_text(rng: random.Random, path: str, pool: list[str]) -> str:
    lines = [f'"""{path}: mentions {" ".join(p.rsplit("/", 1)[-1] for p in pool[:3])}."""\n']
    targets = rng.sample(pool, k=rng.randint(0, 3))
    lines += [_import_of(rng, path, target) for target in targets if target != path]
    lines.append("thing = 1\n")
    return "".join(lines)


@pytest.mark.parametrize("seed", range(6))
def test_random_histories_give_the_whole_graphs_distances(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    repo = ScriptedRepo.create(tmp_path)
    every = MODULES + PACKAGES
    for path in every:
        repo.write(path, _module_text(rng, path, every))
    repo.commit("base")
    for k in range(4):
        name = f"w{k}"
        repo.add_worktree(name)
        for _ in range(rng.randint(1, 3)):
            op = rng.random()
            target = rng.choice(MODULES)
            if not repo.path(name).joinpath(target).exists():
                continue
            if op < 0.6:
                repo.write(target, _module_text(rng, target, every), worktree=name)
            elif op < 0.75:
                fresh = f"pkg/new{k}.py"
                repo.write(fresh, _module_text(rng, fresh, every), worktree=name)
            elif op < 0.9:
                repo.git("rm", "-q", target, worktree=name)
            else:
                moved = target.replace(".py", f"_moved{k}.py")
                repo.git("mv", target, moved, worktree=name)
        if rng.random() < 0.5:
            repo.git("add", "-A", worktree=name)
            repo.commit(f"{name} wip", worktree=name)
    expected, _ = _compare(repo)
    assert expected  # the history couples some changed files (checked for each seed)
