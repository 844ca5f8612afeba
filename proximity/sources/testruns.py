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
import re
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
from proximity.sources.sandbox import INSIDE, Bind, Sandbox
from proximity.sources.testenv import RUNNER, Interpreter

__all__ = [
    "COLLECT", "SCRATCH", "TREE", "Finished", "TestRun", "materialise", "parse_junit",
    "run_pytest", "run_sandboxed",
]  # fmt: skip

COLLECT = "<collect>"
"""The pseudo-test of a file's collection: a merge that cannot import a test module the sides
import fails it, though none of the module's tests ran."""

_OUTPUT_TAIL = 2000
TREE = f"{INSIDE}/tree"
SCRATCH = f"{INSIDE}/scratch"
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


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


def _clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    """Built from nothing: the worker's secrets, settings and addresses never reach the tests."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": f"{SCRATCH}/home",
        "TMPDIR": f"{SCRATCH}/tmp",  # noqa: S108 - the scratch folder, in the sandbox
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONNOUSERSITE": "1",
        **extra,
    }


@dataclass(frozen=True)
class Finished:
    """How a sandboxed command ended: ``status`` ``ran`` or ``timeout``, its output's tail."""

    status: str
    exit_code: int | None
    seconds: float
    output: str = ""


def run_sandboxed(
    argv: Sequence[str],
    *,
    tree: Path,
    scratch: Path,
    env: Mapping[str, str],
    binds: Sequence[Bind],
    timeout: float,
    limits: Limits,
    sandbox: Sandbox,
) -> Finished:
    """Run ``argv`` in ``sandbox`` with ``tree`` read-only at :data:`TREE` (the working
    folder) and ``scratch`` writable at :data:`SCRATCH`; its process group is killed at
    ``timeout``, and the PID namespace ends with the command either way."""
    for sub in ("home", "tmp"):
        (scratch / sub).mkdir(exist_ok=True)
    sandbox.give(scratch)
    if sandbox.identity() is not None:  # another user: its folder readable by it (files are)
        tree.chmod(tree.stat().st_mode | 0o055)
    command = sandbox.command(
        argv,
        cwd=TREE,
        env=_clean_env(env),
        binds=[Bind(str(tree), TREE), Bind(str(scratch), SCRATCH, True), *binds],
    )
    started = time.monotonic()
    child = subprocess.Popen(
        command,
        env={"PATH": os.defpath, "LANG": "C.UTF-8"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group: a timeout kills unshare and the namespace's init
        preexec_fn=limits.preexec(),
    )
    try:
        output, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return Finished("timeout", None, timeout)
    seconds = round(time.monotonic() - started, 3)
    return Finished("ran", child.returncode, seconds, output.decode("utf-8", "replace")[-4000:])


def _missing_dependency(root: Path, outcomes: Mapping[str, TestOutcome]) -> str:
    """A test file that could not import a module the tree does not have: the environment
    lacks a dependency, so the run says it could not start (the first such file)."""
    for test_id, outcome in sorted(outcomes.items()):
        if not test_id.endswith(COLLECT) or outcome.outcome not in ("error", "failed"):
            continue
        found = _NO_MODULE.search(outcome.message)
        if found is None:
            continue
        top = found.group(1).split(".")[0]
        if not any(
            (base / top).exists() or (base / f"{top}.py").exists() for base in (root, root / "src")
        ):
            return f"{outcome.path} needs {found.group(1)!r}"
    return ""


def run_pytest(
    root: Path,
    tests: Sequence[str],
    *,
    python: Interpreter,
    timeout: float,
    limits: Limits,
    sandbox: Sandbox | None = None,
) -> TestRun:
    """Run the test files ``tests`` (paths relative to ``root``) with ``python -m pytest`` in
    the sandbox; ``error`` with "could not start: ..." when pytest, the interpreter, the
    sandbox or a dependency of the tests is missing."""
    present = [t for t in tests if (root / t).is_file()]
    if not present:
        return TestRun("ran")
    sandbox = sandbox or Sandbox()
    refused = sandbox.unavailable()
    if refused:
        return TestRun("error", reason=f"could not start: {refused}")
    scratch = Path(tempfile.mkdtemp(prefix="radar-pytest-"))
    path = [f"{TREE}/src"] if (root / "src").is_dir() else []
    path.append(TREE)
    env = {"PYTHONPATH": ":".join([*path, *([RUNNER] if python.plain else [])])}
    if python.plain:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    args = [
        python.python, *(["-S"] if python.plain else ["-s"]), "-m", "pytest", "-q",
        "-p", "no:cacheprovider", "--continue-on-collection-errors", "-o", "junit_family=xunit1",
        f"--junitxml={SCRATCH}/junit.xml", f"--rootdir={TREE}", "--", *present,
    ]  # fmt: skip
    try:
        done = run_sandboxed(
            args, tree=root, scratch=scratch, env=env, binds=python.binds,
            timeout=timeout, limits=limits, sandbox=sandbox,
        )  # fmt: skip
        if done.status == "timeout":
            return TestRun("timeout", seconds=timeout, reason=f"over {timeout:g} s")
        report = scratch / "junit.xml"
        if not report.is_file():
            said = " ".join(done.output[-300:].split()) or f"exit {done.exit_code}"
            return TestRun(
                "error", seconds=done.seconds, exit_code=done.exit_code,
                reason=f"could not start: {said} ({python.origin})",
            )  # fmt: skip
        outcomes = parse_junit(report)
        missing = _missing_dependency(root, outcomes)
        if missing:
            reason = f"could not start: {missing}, not installed in {python.origin}"
            return TestRun("error", outcomes, done.seconds, done.exit_code, reason)
        return TestRun("ran", outcomes, done.seconds, done.exit_code)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
