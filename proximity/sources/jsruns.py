"""Run a JavaScript/TypeScript repository's own tests on a tree, in the sandbox.

The runner is the repository's: its ``package.json`` ``scripts.test``. Node's built-in test
runner (``node --test``) is run per test file with its JUnit reporter, so every outcome is
named ``file::suite::test`` like pytest's. Other runners (vitest, jest, mocha) are not run yet:
the run then "could not start" and says which runner, never clean. A ``package.json`` that
lists dependencies needs a worktree's ``node_modules`` (bound read-only into the tree);
without one the run could not start either.

Which test files: a test file (``*.test.*``, ``*.spec.*``, or under ``test/``, ``tests/`` or
``__tests__/``) whose relative imports, followed through the tree, reach a file side A changed
and one side B changed.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from xml.etree.ElementTree import Element

from defusedxml import ElementTree as SafeET

from proximity.engine.mergecheck.testconflicts import TestOutcome
from proximity.sources.limits import Limits
from proximity.sources.sandbox import Bind, Sandbox
from proximity.sources.testruns import COLLECT, SCRATCH, TREE, TestRun, run_sandboxed

__all__ = [
    "JS_SUFFIXES", "is_js_test", "js_runner", "merge_outcomes", "node_modules_of", "run_js_tests",
    "select_js_tests",
]  # fmt: skip

JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}/[^"'\n]+)["']"""
)
_PROBES = ("", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", "/index.js", "/index.ts")
_MAX_BYTES = 512 * 1024


def is_js_test(path: str) -> bool:
    """The common test-file conventions of node's runner, vitest and jest."""
    if not path.endswith(JS_SUFFIXES) or "node_modules/" in path:
        return False
    name = path.rsplit("/", 1)[-1]
    folders = path.split("/")[:-1]
    return (
        ".test." in name or ".spec." in name or bool({"test", "tests", "__tests__"} & set(folders))
    )


def _package(root: Path) -> dict[str, object]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def js_runner(root: Path, node_modules: str | None) -> tuple[str, str]:
    """``("node", "")`` when the tree's tests can run here, else ``("", why not)``;
    ``("", "")`` when the tree has no test script."""
    package = _package(root)
    scripts = package.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(script, str) or not script.strip():
        return "", ""
    deps = [package.get(k) for k in ("dependencies", "devDependencies")]
    if any(isinstance(d, dict) and d for d in deps) and node_modules is None:
        return "", "package.json lists dependencies and no worktree has node_modules"
    if re.search(r"(^|[\s;&|])node\s+(?:[^;&|]*\s)?--test\b", script):
        return "node", ""
    runner = script.split()[0]
    return "", f"the test script's runner ({runner}) is not one radar runs yet (node --test)"


def _edges(root: Path, path: str) -> list[str]:
    try:
        text = (root / path).read_text(encoding="utf-8", errors="replace")[:_MAX_BYTES]
    except OSError:
        return []
    out = []
    folder = PurePosixPath(path).parent
    for spec in _IMPORT.findall(text):
        base = str(PurePosixPath(folder, spec))
        parts: list[str] = []
        for part in base.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        target = "/".join(parts)
        out += [target + p for p in _PROBES if (root / (target + p)).is_file()][:1]
    return out


def select_js_tests(
    root: Path, changed_a: Iterable[str], changed_b: Iterable[str], *, limit: int = 20
) -> tuple[str, ...]:
    """Test files of the tree at ``root`` whose relative imports reach both sides' changes."""
    side_a = {p for p in changed_a if p.endswith(JS_SUFFIXES)}
    side_b = {p for p in changed_b if p.endswith(JS_SUFFIXES)}
    if not side_a or not side_b:
        return ()
    tests = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and is_js_test(str(p.relative_to(root)))
    )
    picked = []
    for test in tests:
        seen = {test}
        queue = deque([test])
        while queue:
            for there in _edges(root, queue.popleft()):
                if there not in seen:
                    seen.add(there)
                    queue.append(there)
        if seen & side_a and seen & side_b:
            picked.append(test)
    return tuple(picked[:limit])


def _outcomes(report: Path, path: str) -> dict[str, TestOutcome]:
    out: dict[str, TestOutcome] = {}

    def visit(node: Element, trail: tuple[str, ...]) -> None:
        for child in node:
            name = child.get("name") or ""
            if child.tag == "testsuite":
                visit(child, (*trail, name))
            elif child.tag == "testcase":
                failed = child.find("failure")
                if failed is None and child.find("error") is not None:
                    failed = child.find("error")
                skipped = child.find("skipped") is not None
                said = (
                    "" if failed is None else f"{failed.get('message') or ''} {failed.text or ''}"
                )
                message = " ".join(said.split())[:2000]
                outcome = "failed" if failed is not None else "skipped" if skipped else "passed"
                if not trail and name.endswith(path):  # the file itself did not load
                    out[f"{path}::{COLLECT}"] = TestOutcome("error", path, message)
                    continue
                out["::".join((path, *trail, name))] = TestOutcome(outcome, path, message)

    visit(SafeET.parse(report).getroot(), ())
    out.setdefault(f"{path}::{COLLECT}", TestOutcome("passed", path))
    return out


def run_js_tests(
    root: Path,
    tests: Sequence[str],
    *,
    node_modules: str | None,
    timeout: float,
    limits: Limits,
    sandbox: Sandbox | None = None,
) -> TestRun:
    """Run ``tests`` (paths relative to ``root``) with the tree's own runner, one file a run."""
    present = [t for t in tests if (root / t).is_file()]
    if not present:
        return TestRun("ran")
    kind, why = js_runner(root, node_modules)
    sandbox = sandbox or Sandbox()
    why = why or ("" if kind else "package.json has no test script")
    refused = why or sandbox.unavailable()
    if refused:
        return TestRun("error", reason=f"could not start: {refused}")
    node = shutil.which("node")
    if node is None:
        return TestRun("error", reason="could not start: node is not installed on the worker")
    binds: list[Bind] = []
    if node_modules is not None:
        (root / "node_modules").mkdir(exist_ok=True)  # the mount point, in the tree
        binds.append(Bind(node_modules, f"{TREE}/node_modules"))
    outcomes: dict[str, TestOutcome] = {}
    seconds, code = 0.0, 0
    for test in present:
        scratch = Path(tempfile.mkdtemp(prefix="radar-node-"))
        try:
            args = [
                node, "--test", "--test-reporter=junit",
                f"--test-reporter-destination={SCRATCH}/junit.xml", test,
            ]  # fmt: skip
            done = run_sandboxed(
                args, tree=root, scratch=scratch, env={"NODE_ENV": "test"}, binds=binds,
                timeout=max(1.0, timeout - seconds), limits=limits, sandbox=sandbox,
            )  # fmt: skip
            seconds += done.seconds
            if done.status == "timeout":
                return TestRun("timeout", seconds=timeout, reason=f"over {timeout:g} s")
            report = scratch / "junit.xml"
            if not report.is_file() or report.stat().st_size == 0:
                said = " ".join(done.output[-300:].split()) or f"exit {done.exit_code}"
                return TestRun("error", seconds=seconds, reason=f"could not start: {said}")
            outcomes.update(_outcomes(report, test))
            code = code or (done.exit_code or 0)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return TestRun("ran", outcomes, round(seconds, 3), code)


def node_modules_of(worktrees: Sequence[str]) -> str | None:
    """The first worktree's ``node_modules`` folder (side A first), if any."""
    for worktree in worktrees:
        folder = Path(worktree) / "node_modules"
        if folder.is_dir():
            return str(folder)
    return None


def merge_outcomes(runs: Mapping[str, TestRun]) -> TestRun:
    """One run of a tree's Python and JavaScript parts: the first that did not run wins."""
    for run in runs.values():
        if run.status != "ran":
            return run
    outcomes: dict[str, TestOutcome] = {}
    for run in runs.values():
        outcomes.update(run.outcomes)
    seconds = round(sum(r.seconds for r in runs.values()), 3)
    return TestRun("ran", outcomes, seconds)
