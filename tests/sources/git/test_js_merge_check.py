"""The merge check's JavaScript and TypeScript part, on real worktrees merged by git.

Each case: alpha and beta each build alone, git merges them cleanly, and the merge either
breaks an import (reported) or does not (controls: packages, CommonJS, star re-exports).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.engine.mergecheck import MergeCheckResult
from proximity.sources.git import read_working_sets
from proximity.sources.git.mergecheck import run_merge_check
from tests.sources.gitrepo import ScriptedRepo, repo_state

MONEY = "export function formatPrice(cents: number): string {\n  return `${cents / 100}`;\n}\n"
CHECKOUT = "import { formatPrice } from './money';\n\nexport const total = formatPrice(250);\n"
UTIL = "export function slug(s) {\n  return s.toLowerCase();\n}\n"
PAGE = "import { slug } from './util.js';\n\nexport const page = slug('Home');\n"


def _merged(
    tmp_path: Path, base: dict[str, str], alpha: dict[str, str | None], beta: dict[str, str]
) -> MergeCheckResult:
    repo = ScriptedRepo.create(tmp_path)
    for path, text in base.items():
        repo.write(path, text)
    repo.commit("base")
    for name, changes in (("alpha", alpha), ("beta", beta)):
        repo.add_worktree(name)
        for path, text in changes.items():
            if text is None:
                repo.git("rm", "-q", path, worktree=name)
            else:
                repo.write(path, text, worktree=name)
    before = repo_state(repo)
    sets = {ws.agent_id: ws for ws in read_working_sets(repo.root, base="main")}
    run = run_merge_check(sets["alpha"], sets["beta"], cache={})
    assert repo_state(repo) == before
    assert run.status == "done"
    assert run.result is not None
    return run.result


def test_a_renamed_export_against_a_new_named_import_is_found(tmp_path: Path) -> None:
    renamed = MONEY.replace("formatPrice", "formatAmount")
    result = _merged(
        tmp_path,
        {"src/money.ts": MONEY, "src/checkout.ts": CHECKOUT},
        {
            "src/money.ts": renamed,
            "src/checkout.ts": CHECKOUT.replace("formatPrice", "formatAmount"),
        },
        {"src/cart.ts": "import { formatPrice } from './money';\n\nexport const line = 1;\n"},
    )
    assert [(p.kind, p.path, p.name) for p in result.problems] == [
        ("unresolved-name", "src/cart.ts", "./money:formatPrice")
    ]
    assert "'formatPrice' is not defined or exported by src/money.ts" in result.problems[0].message
    assert (result.counts["js:merged"], result.counts["js:a"]) == (1, 0)


def test_a_moved_module_against_a_new_relative_import_is_found(tmp_path: Path) -> None:
    result = _merged(
        tmp_path,
        {"web/util.js": UTIL, "web/page.js": PAGE},
        {
            "web/util.js": None,
            "web/lib/util.js": UTIL,
            "web/page.js": PAGE.replace("./util", "./lib/util"),
        },
        {"web/nav.jsx": "import { slug } from './util';\n\nexport const Nav = slug;\n"},
    )
    assert [(p.kind, p.path, p.name) for p in result.problems] == [
        ("unresolved-module", "web/nav.jsx", "./util")
    ]


@pytest.mark.parametrize(
    ("base", "alpha", "beta"),
    [
        pytest.param(  # packages are outside the tree: never judged
            {"src/a.ts": "import { useState } from 'react';\nexport const a = useState;\n"},
            {"src/a.ts": "import { useState } from 'react';\nexport const a = 1;\n"},
            {"src/b.ts": "import { nothingHere } from 'react';\nexport const b = nothingHere;\n"},
            id="package-imports",
        ),
        pytest.param(  # CommonJS: names are dynamic, the module is open
            {"lib/legacy.js": "module.exports = { old: 1 };\n"},
            {"lib/legacy.js": "module.exports = { renamed: 1 };\n"},
            {"lib/use.js": "import { old } from './legacy';\nexport const x = old;\n"},
            id="commonjs-open",
        ),
        pytest.param(  # the definition moves behind a star re-export: still reachable
            {"src/money.ts": MONEY},
            {"src/money.ts": "export * from './impl/money';\n", "src/impl/money.ts": MONEY},
            {"src/cart.ts": "import { formatPrice } from './money';\nexport const c = 1;\n"},
            id="star-re-export",
        ),
        pytest.param(  # both sides' own, unrelated edits
            {"src/money.ts": MONEY, "src/checkout.ts": CHECKOUT},
            {"src/money.ts": MONEY + "\nexport const CURRENCY = 'EUR';\n"},
            {"src/checkout.ts": CHECKOUT + "\nexport const shipping = formatPrice(500);\n"},
            id="unrelated-edits",
        ),
    ],
)
def test_controls_report_nothing(
    tmp_path: Path, base: dict[str, str], alpha: dict[str, str], beta: dict[str, str]
) -> None:
    assert _merged(tmp_path, base, alpha, beta).problems == ()


def test_a_tree_without_javascript_costs_no_extraction(tmp_path: Path) -> None:
    result = _merged(tmp_path, {"app.py": "X = 1\n"}, {"app.py": "X = 2\n"}, {"b.py": "Y = 1\n"})
    assert result.problems == ()
    assert not any(k.startswith("js:") for k in result.counts)
