"""Test conflicts: which of a repository's tests to run on two sides and their merge, and what
the three runs' outcomes mean.

A **test conflict** is a test that fails (or errors) on the merge while passing on every side
that has it: each side alone is green, so the failure is made by the two changes meeting.
A test present on one side only (a side adds it) counts when it passes there: the other
side's change is then what breaks it. A test failing on a side alone is that side's own
problem, never a conflict.

Selection reads the merged tree's import graph: a test file is run when what it imports,
directly or through other in-tree modules (its folder's and ancestors' ``conftest.py``
included, as pytest loads them), reaches a Python file side A changed *and* one side B
changed. Tests that can see only one side's change cannot be broken by the meeting of both.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from proximity.engine.imports import build_resolver, parse_python_imports, resolve_file
from proximity.engine.mergecheck.model import Problem, trim

__all__ = [
    "FAILED",
    "PASSED",
    "TestOutcome",
    "TestSelection",
    "is_test_file",
    "select_tests",
    "test_conflicts",
]

PASSED = "passed"
FAILED = ("failed", "error")


def is_test_file(path: str) -> bool:
    """pytest's default collection pattern: ``test_*.py`` or ``*_test.py``."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _conftests(path: str, files: Mapping[str, str]) -> list[str]:
    parts = path.split("/")[:-1]
    found = []
    for k in range(len(parts) + 1):
        candidate = "/".join([*parts[:k], "conftest.py"])
        if candidate in files:
            found.append(candidate)
    return found


@dataclass(frozen=True, slots=True)
class TestSelection:
    """The test files to run (sorted), and how many others also qualified beyond the limit."""

    __test__ = False  # not a pytest class, whatever its name

    files: tuple[str, ...]
    held_back: int = 0


def select_tests(
    files: Mapping[str, str],
    changed_a: Iterable[str],
    changed_b: Iterable[str],
    *,
    limit: int = 20,
) -> TestSelection:
    """Test files of the merged tree ``files`` (``{path: text}``) that reach both sides' changes.

    Files changed by both sides count for both. Up to ``limit`` are kept, those nearest to both
    changes first (fewest import hops, then path), so a cap drops the most distant tests.
    """
    python = {p: t for p, t in files.items() if p.endswith(".py")}
    resolver = build_resolver(python, {})
    edges = {
        p: tuple(resolve_file(resolver, p, parse_python_imports(t))) for p, t in python.items()
    }
    side_a = {p for p in changed_a if p in python}
    side_b = {p for p in changed_b if p in python}
    if not side_a or not side_b:
        return TestSelection(())
    ranked = []
    for test in sorted(p for p in python if is_test_file(p)):
        hops = _hops(test, edges, python)
        to_a = min((hops[p] for p in side_a if p in hops), default=None)
        to_b = min((hops[p] for p in side_b if p in hops), default=None)
        if to_a is not None and to_b is not None:
            ranked.append((max(to_a, to_b), to_a + to_b, test))
    ranked.sort()
    kept = tuple(sorted(t for *_, t in ranked[:limit]))
    return TestSelection(kept, max(0, len(ranked) - limit))


def _hops(
    test: str, edges: Mapping[str, tuple[str, ...]], files: Mapping[str, str]
) -> dict[str, int]:
    """Import distance from ``test`` to every file it reaches (its conftests at distance 1)."""
    seen = {test: 0}
    queue = deque([test])
    for conftest in _conftests(test, files):
        if conftest not in seen:
            seen[conftest] = 1
            queue.append(conftest)
    while queue:
        here = queue.popleft()
        for there in edges.get(here, ()):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One test's result in one run: ``outcome`` is passed, failed, error or skipped."""

    __test__ = False

    outcome: str
    path: str = ""
    message: str = ""


def test_conflicts(
    a: Mapping[str, TestOutcome],
    b: Mapping[str, TestOutcome],
    merged: Mapping[str, TestOutcome],
) -> list[Problem]:
    """The merge's failures that no side has alone, keyed by test id (``path::name``)."""
    out = []
    for test_id in sorted(merged):
        result = merged[test_id]
        if result.outcome not in FAILED:
            continue
        sides = [s[test_id] for s in (a, b) if test_id in s]
        if sides and all(s.outcome == PASSED for s in sides):
            alone = "passes on both sides alone" if len(sides) == 2 else "passes on its side"
            name = test_id.split("::", 1)[-1]
            message = f"{name} {alone} and {result.outcome} on the merge: {result.message}"
            out.append(Problem("test-conflict", result.path, test_id, trim(message, 1000)))
    return out


test_conflicts.__test__ = False  # type: ignore[attr-defined]
