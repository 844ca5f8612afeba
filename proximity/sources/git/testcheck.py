"""The test part of a speculative merge check (opt-in per repository): run the repository's
tests that can see both sides' changes on the merge, then on each side alone.

The merge runs first: when every selected test passes merged, no test conflict is possible
and the sides are never run. Otherwise only the files with a failing test are run on side A
and side B, and a test that fails merged but passes on each side having it is a conflict once
it fails again on a second merged run (a test that passes then is counted flaky and dropped).
Every tree is materialised in a scratch folder of its own (:mod:`proximity.sources.testruns`).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proximity.engine.mergecheck.model import Problem
from proximity.engine.mergecheck.testconflicts import FAILED, select_tests, test_conflicts
from proximity.sources.git._run import git
from proximity.sources.jsruns import (
    JS_SUFFIXES,
    merge_outcomes,
    node_modules_of,
    run_js_tests,
    select_js_tests,
)
from proximity.sources.limits import Limits
from proximity.sources.sandbox import Sandbox
from proximity.sources.testenv import Interpreter, choose_python, system_python
from proximity.sources.testruns import TestRun, materialise, run_pytest

__all__ = ["TestCheck", "TestOptions", "changed_paths", "run_test_check"]


@dataclass(frozen=True)
class TestOptions:
    """How to run a repository's tests: a configured interpreter ("" for none: the worktree's
    own virtualenv, else ``plain_python``; :mod:`proximity.sources.testenv`), one run's wall
    clock, how many test files at most, the limits and the sandbox."""

    __test__ = False

    python: str = ""
    plain_python: str = field(default_factory=system_python)
    sandbox: Sandbox = field(default_factory=Sandbox)
    timeout: float = 60.0
    max_files: int = 20
    limits: Limits = field(default_factory=lambda: Limits(cpu_seconds=120))


@dataclass(frozen=True)
class TestCheck:
    """``state``: ``clean`` (selected tests ran, no conflict), ``conflicts`` (``problems``),
    ``none selected`` (no test reaches both sides' changes), ``timeout`` or ``error``
    (unknown: ``reason``; never read as clean)."""

    __test__ = False

    state: str
    selected: tuple[str, ...] = ()
    held_back: int = 0
    problems: tuple[Problem, ...] = ()
    flaky: int = 0
    runs: Mapping[str, float] = field(default_factory=dict)
    reason: str = ""

    def summary(self) -> dict[str, Any]:
        """What the stored check and the API show of the test part."""
        out: dict[str, Any] = {
            "state": self.state,
            "selected": list(self.selected),
            "heldBack": self.held_back,
            "conflicts": len(self.problems),
            "flaky": self.flaky,
            "seconds": dict(self.runs),
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def changed_paths(
    cwd: str | Path, env: Mapping[str, str], base: str, commit: str, limits: Limits
) -> list[str]:
    """Paths ``commit`` changed since ``base`` (a rename lists both its paths)."""
    _, out = git(
        cwd,
        ["diff", "--name-only", "--no-renames", "-z", base, commit, "--"],
        env=env,
        preexec=limits.preexec(),
    )
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def _run(
    root: Path,
    files: list[str] | tuple[str, ...],
    options: TestOptions,
    python: Interpreter,
    node_modules: str | None,
) -> TestRun:
    """The tree's Python test files through pytest, its JavaScript ones through its runner."""
    py = [f for f in files if f.endswith(".py")]
    js = [f for f in files if f.endswith(JS_SUFFIXES)]
    runs = {}
    if py:
        runs["py"] = run_pytest(
            root, py, python=python, timeout=options.timeout, limits=options.limits,
            sandbox=options.sandbox,
        )  # fmt: skip
    if js and all(r.status == "ran" for r in runs.values()):
        runs["js"] = run_js_tests(
            root, js, node_modules=node_modules, timeout=options.timeout,
            limits=options.limits, sandbox=options.sandbox,
        )  # fmt: skip
    return merge_outcomes(runs) if runs else TestRun("ran")


def run_test_check(
    cwd: str | Path,
    env: Mapping[str, str],
    *,
    base: str,
    sides: tuple[str, str],
    merged: str,
    merged_files: Mapping[str, str],
    options: TestOptions,
    worktrees: tuple[str, ...] = (),
) -> TestCheck:
    """Run the tests for commits ``sides`` and their merged tree ``merged`` (ids readable
    through ``env``); ``merged_files`` is the merged tree's Python text by path;
    ``worktrees`` the sides' worktrees (side A first), whose own environment the runs use."""
    limits = options.limits
    python = choose_python(
        configured=options.python, worktrees=worktrees, plain=options.plain_python
    )
    node_modules = node_modules_of(worktrees)
    changed = [changed_paths(cwd, env, base, side, limits) for side in sides]
    selection = select_tests(merged_files, *changed, limit=options.max_files)
    seconds: dict[str, float] = {}
    selected = selection.files

    def outcome(state: str, **found: Any) -> TestCheck:
        seconds["total"] = round(time.monotonic() - started, 3)
        return TestCheck(state, selected, selection.held_back, runs=seconds, **found)

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="radar-tests-") as folder:
        trees = {"merged": merged, "a": sides[0], "b": sides[1]}

        def tree(name: str) -> Path:
            root = Path(folder) / name
            if not root.exists():
                materialise(cwd, env, trees[name], root, limits)
            return root

        def run(name: str, files: list[str] | tuple[str, ...]) -> TestRun:
            result = _run(tree(name), files, options, python, node_modules)
            seconds[name] = round(seconds.get(name, 0.0) + result.seconds, 3)
            return result

        if all(any(p.endswith(JS_SUFFIXES) for p in side) for side in changed):
            js = select_js_tests(tree("merged"), *changed, limit=options.max_files)
            selected = tuple(sorted((*selection.files, *js)))
        if not selected:
            return TestCheck("none selected", held_back=selection.held_back)
        first = run("merged", selected)
        if first.status != "ran":
            return outcome(first.status, reason=f"merge: {first.reason}")
        failing = sorted({o.path for o in first.outcomes.values() if o.outcome in FAILED})
        if not failing:
            return outcome("clean")
        alone = {}
        for name in ("a", "b"):
            result = run(name, failing)
            if result.status != "ran":
                reason = f"side {name.upper()}: {result.reason}"
                return outcome(result.status, reason=reason)
            alone[name] = result.outcomes
        found = test_conflicts(alone["a"], alone["b"], first.outcomes)
        if not found:
            return outcome("clean")
        again = run("merged", sorted({p.path for p in found}))
        if again.status != "ran":
            return outcome(again.status, reason=f"merge: {again.reason}")
        confirmed = tuple(
            p for p in found if again.outcomes.get(p.name, first.outcomes[p.name]).outcome in FAILED
        )
    state = "conflicts" if confirmed else "clean"
    return outcome(state, problems=confirmed, flaky=len(found) - len(confirmed))
