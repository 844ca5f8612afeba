"""Run a repository's own tests on a tree, in a scratch folder, under limits.

A tree is materialised from a git object store with a temporary index (``read-tree`` and
``checkout-index --prefix``): nothing of the repository (index, refs, worktrees) is written
and no agent's worktree is read. pytest runs in that folder with ``python -m pytest`` (the
folder is the import root, as for a developer at the top of a checkout), in its own process
group, with :class:`~proximity.sources.limits.Limits` on memory, CPU and processes and a wall
clock after which the whole group is killed. Its environment is built from nothing (a PATH,
a home and a temporary folder inside the scratch folder, a fixed hash seed): the worker's
secrets, settings and database addresses never reach the repository's code.

Outcomes come from pytest's JUnit XML (``junit_family=xunit1``, which names each test's file),
read with ``defusedxml`` (the report is written by the repository's code: untrusted).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

from defusedxml import ElementTree as SafeET

from proximity.engine.mergecheck.testconflicts import TestOutcome
from proximity.sources.git._run import git
from proximity.sources.limits import Limits

__all__ = ["COLLECT", "TestRun", "materialise", "parse_junit", "run_pytest"]

COLLECT = "<collect>"
"""The pseudo-test of a file's collection: a merge that cannot import a test module the sides
import fails it, though none of the module's tests ran."""

_OUTPUT_TAIL = 2000


def materialise(
    cwd: str | Path, env: Mapping[str, str], tree: str, dest: Path, limits: Limits
) -> None:
    """Write ``tree``'s files under ``dest`` (created), reading objects through ``env``."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="radar-index-") as folder:
        index_env = {**env, "GIT_INDEX_FILE": str(Path(folder) / "index")}
        git(cwd, ["read-tree", tree], env=index_env, preexec=limits.preexec())
        prefix = str(dest).rstrip("/") + "/"
        git(
            cwd,
            ["checkout-index", "-a", f"--prefix={prefix}"],
            env=index_env,
            preexec=limits.preexec(),
        )


@dataclass(frozen=True)
class TestRun:
    """One pytest run: ``status`` is ``ran`` (``outcomes`` by test id), ``timeout`` or
    ``error`` (pytest could not run: ``reason``)."""

    __test__ = False

    status: str
    outcomes: Mapping[str, TestOutcome] = field(default_factory=dict)
    seconds: float = 0.0
    exit_code: int | None = None
    reason: str = ""


def _clean_env(scratch: Path) -> dict[str, str]:
    home, tmp = scratch / "home", scratch / "tmp"
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def _test_id(case: Element) -> tuple[str, str]:
    """``(test id, file)``: ``file::Class::name`` or ``file::name`` (``file::<collect>`` for a
    collection failure)."""
    path = case.get("file") or ""
    name = case.get("name") or ""
    classname = case.get("classname") or ""
    if not classname:  # a collection failure names the module, not a test
        return f"{path}::{COLLECT}", path
    module = path[:-3].replace("/", ".") if path.endswith(".py") else ""
    rest = classname[len(module) + 1 :] if module and classname.startswith(module + ".") else ""
    return "::".join(x for x in (path, rest, name) if x), path


def _outcome(case: Element, path: str) -> TestOutcome:
    for tag, outcome in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        found = case.find(tag)
        if found is not None:
            text = (found.get("message") or "") + " " + (found.text or "")[-_OUTPUT_TAIL:]
            return TestOutcome(outcome, path, " ".join(text.split())[:_OUTPUT_TAIL])
    return TestOutcome("passed", path)


def parse_junit(report: Path) -> dict[str, TestOutcome]:
    """Outcomes by test id; each file that collected gets a passed ``<collect>`` pseudo-test."""
    out: dict[str, TestOutcome] = {}
    collected: set[str] = set()
    for case in SafeET.parse(report).getroot().iter("testcase"):
        test_id, path = _test_id(case)
        out[test_id] = _outcome(case, path)
        if not test_id.endswith(COLLECT):
            collected.add(path)
    for path in collected:
        out.setdefault(f"{path}::{COLLECT}", TestOutcome("passed", path))
    return out


def run_pytest(
    root: Path,
    tests: Sequence[str],
    *,
    python: str,
    timeout: float,
    limits: Limits,
) -> TestRun:
    """Run the test files ``tests`` (paths relative to ``root``) with ``python -m pytest``."""
    present = [t for t in tests if (root / t).is_file()]
    if not present:
        return TestRun("ran")
    # Removed on every way out: a timed-out or unstartable run left its folder behind.
    scratch = Path(tempfile.mkdtemp(prefix="radar-pytest-"))
    try:
        return _run_in(scratch, root, present, python=python, timeout=timeout, limits=limits)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_in(
    scratch: Path,
    root: Path,
    present: Sequence[str],
    *,
    python: str,
    timeout: float,
    limits: Limits,
) -> TestRun:
    report = scratch / "junit.xml"
    args = [
        python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
        "-o", "junit_family=xunit1", f"--junitxml={report}", f"--rootdir={root}", "--", *present,
    ]  # fmt: skip
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            args,
            cwd=root,
            env=_clean_env(scratch),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: a timeout kills what the tests started too
            preexec_fn=limits.preexec(),
        )
    except OSError as exc:
        return TestRun("error", reason=f"{python}: {exc.strerror or exc}")
    try:
        output, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return TestRun("timeout", seconds=timeout, reason=f"over {timeout:g} s")
    finally:
        seconds = round(time.monotonic() - started, 3)
    if not report.exists():
        tail = output.decode("utf-8", "replace")[-300:]
        return TestRun(
            "error", seconds=seconds, exit_code=child.returncode, reason=" ".join(tail.split())
        )
    return TestRun("ran", parse_junit(report), seconds, child.returncode)
