"""Issue 30, point 3: a repository's tests run with the environment they need, and nothing of
the server's. Real small repositories: a ``src/`` layout package whose worktree has its own
virtualenv (with an installed copy of the package that must not be imported), a repository
whose pytest configuration turns warnings into errors, a JavaScript repository with a
``node:test`` suite, and a test needing a package no environment has ("could not start")."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from proximity.sources.jsruns import js_runner, run_js_tests, select_js_tests
from proximity.sources.limits import Limits
from proximity.sources.testenv import _pytest_distributions, choose_python, system_python
from proximity.sources.testruns import materialise, run_pytest
from tests.sources.gitrepo import ScriptedRepo

LIMITS = Limits(cpu_seconds=60)


def venv_with_pytest(where: Path, extra: dict[str, str]) -> Path:
    """A virtualenv of the system's python3 with pytest (copied from this environment's
    distributions: nothing downloads) and the ``extra`` files in its site-packages."""
    subprocess.run([system_python(), "-m", "venv", "--without-pip", str(where)], check=True)
    site = next(where.glob("lib/python3*/site-packages"))
    for dist in _pytest_distributions():
        for file in dist.files or ():
            source = Path(str(dist.locate_file(file)))
            if ".." in file.parts or not source.is_file():
                continue
            (site / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, site / file)
    for rel, text in extra.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    return where


def _tree_of(repo: ScriptedRepo, tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    materialise(repo.root, {}, "HEAD^{tree}", tree, LIMITS)
    return tree


def test_a_src_layout_imports_the_tree_under_test_with_the_worktrees_own_venv(
    tmp_path: Path,
) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("src/shop/__init__.py", "WHERE = 'the tree'\n")
    repo.write(
        "tests/test_shop.py",
        "import only_in_the_venv\nimport shop\n\n\n"
        "def test_the_tree_is_imported():\n    assert shop.WHERE == 'the tree'\n\n\n"
        "def test_the_venv_is_used():\n    assert only_in_the_venv.OK\n",
    )
    repo.commit("a src layout")
    venv_with_pytest(
        repo.root / ".venv",
        {"shop/__init__.py": "WHERE = 'an installed copy'\n", "only_in_the_venv.py": "OK = 1\n"},
    )
    python = choose_python(configured="", worktrees=[str(repo.root)], plain=system_python())
    assert python.origin == f"the worktree's virtualenv {repo.root / '.venv'}"
    run = run_pytest(
        _tree_of(repo, tmp_path), ["tests/test_shop.py"], python=python, timeout=60, limits=LIMITS
    )
    assert run.status == "ran", run.reason
    got = {k.split("::")[-1]: v.outcome for k, v in run.outcomes.items()}
    assert got == {
        "test_the_tree_is_imported": "passed",
        "test_the_venv_is_used": "passed",
        "<collect>": "passed",
    }, run.outcomes


def test_warnings_as_errors_in_the_repositorys_config_meet_none_of_the_servers_plugins(
    tmp_path: Path,
) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("pytest.ini", "[pytest]\nfilterwarnings =\n    error\naddopts = -ra\n")
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
    repo.write(
        "test_calc.py",
        "import importlib.util\nimport sys\n\nfrom calc import add\n\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_nothing_of_the_server_is_loaded_or_importable():\n"
        "    assert not [m for m in sys.modules if m.startswith(('pytest_django', 'django'))]\n"
        "    assert importlib.util.find_spec('django') is None\n",
    )
    repo.commit("strict warnings")
    python = choose_python(configured="", worktrees=[str(repo.root)], plain=system_python())
    assert python.plain
    run = run_pytest(
        _tree_of(repo, tmp_path), ["test_calc.py"], python=python, timeout=60, limits=LIMITS
    )
    assert run.status == "ran", run.reason
    assert {v.outcome for v in run.outcomes.values()} == {"passed"}, run.outcomes
    assert len(run.outcomes) == 3


def test_a_dependency_no_environment_has_is_could_not_start_never_a_pass(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app.py", "X = 1\n")
    repo.write("test_app.py", "import yaml_extra_probe\nimport app\n\n\ndef test_x():\n    pass\n")
    repo.commit("an optional dependency")
    python = choose_python(configured="", worktrees=[str(repo.root)], plain=system_python())
    run = run_pytest(
        _tree_of(repo, tmp_path), ["test_app.py"], python=python, timeout=60, limits=LIMITS
    )
    assert run.status == "error"
    assert run.reason == (
        f"could not start: test_app.py needs 'yaml_extra_probe', not installed in {python.origin}"
    )


NODE_PRICE = "export function price(amount) {\n  return amount * 100;\n}\n"
NODE_TEST = (
    "import test from 'node:test';\nimport assert from 'node:assert';\n"
    "import { price } from '../lib/price.mjs';\n\n"
    "test('price is in cents', () => {\n  assert.strictEqual(price(2), 200);\n});\n"
    "test('price is a number', () => {\n  assert.strictEqual(typeof price(2), 'number');\n});\n"
)


def test_a_javascript_suite_runs_with_the_repositorys_own_runner(tmp_path: Path) -> None:
    repo = ScriptedRepo.create(tmp_path)
    package = '{"name": "shop", "type": "module", "scripts": {"test": "node --test test/"}}\n'
    repo.write("package.json", package)
    repo.write("lib/price.mjs", NODE_PRICE.replace("* 100", "* 10"))
    repo.write("lib/other.mjs", "export const OTHER = 1;\n")
    repo.write("test/price.test.mjs", NODE_TEST)
    repo.commit("a node:test suite")
    tree = _tree_of(repo, tmp_path)
    assert js_runner(tree, None) == ("node", "")
    picked = select_js_tests(tree, ["lib/price.mjs"], ["lib/price.mjs", "lib/other.mjs"])
    assert picked == ("test/price.test.mjs",)
    assert select_js_tests(tree, ["lib/price.mjs"], ["lib/other.mjs"]) == ()
    run = run_js_tests(tree, list(picked), node_modules=None, timeout=60, limits=LIMITS)
    assert run.status == "ran", run.reason
    got = {k: v.outcome for k, v in run.outcomes.items()}
    assert got == {
        "test/price.test.mjs::price is in cents": "failed",
        "test/price.test.mjs::price is a number": "passed",
        "test/price.test.mjs::<collect>": "passed",
    }
    assert "20 !== 200" in run.outcomes["test/price.test.mjs::price is in cents"].message


def test_a_javascript_suite_without_its_dependencies_or_runner_could_not_start(
    tmp_path: Path,
) -> None:
    (tmp_path / "t.test.mjs").write_text("import 'vitest';\n")
    (tmp_path / "package.json").write_text(
        '{"scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3.0.0"}}'
    )
    run = run_js_tests(tmp_path, ["t.test.mjs"], node_modules=None, timeout=30, limits=LIMITS)
    assert (run.status, run.reason) == (
        "error",
        "could not start: package.json lists dependencies and no worktree has node_modules",
    )
    (tmp_path / "node_modules").mkdir()
    run = run_js_tests(
        tmp_path, ["t.test.mjs"], node_modules=str(tmp_path / "node_modules"), timeout=30,
        limits=LIMITS,
    )  # fmt: skip
    assert run.status == "error"
    assert "(vitest) is not one radar runs yet" in run.reason


def test_a_configured_interpreter_comes_before_the_worktrees_venv_and_runs_as_it_is(
    tmp_path: Path,
) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("test_where.py", "import sys\n\n\ndef test_where():\n    print(sys.prefix)\n")
    repo.commit("one test")
    venv_with_pytest(repo.root / ".venv", {})
    configured = venv_with_pytest(tmp_path / "configured", {"marker_of_configured.py": ""})
    python = choose_python(
        configured=str(configured / "bin" / "python"),
        worktrees=[str(repo.root)],
        plain=system_python(),
    )
    assert python.origin == f"the configured interpreter {configured / 'bin' / 'python'}"
    assert not python.plain
    assert [(b.outside, b.inside) for b in python.binds] == [(str(configured), str(configured))]
    tree = _tree_of(repo, tmp_path)
    (tree / "test_where.py").write_text(
        "import marker_of_configured\n\n\ndef test_where():\n    pass\n"
    )
    run = run_pytest(tree, ["test_where.py"], python=python, timeout=60, limits=LIMITS)
    assert run.status == "ran", run.reason
    assert run.outcomes["test_where.py::test_where"].outcome == "passed"
