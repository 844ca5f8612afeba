"""pytest runs of a repository's tests: ids, outcomes, a clean environment, a hard wall clock;
each in the sandbox, with the plain interpreter unless the test says otherwise."""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path

import pytest

from proximity.sources.limits import Limits
from proximity.sources.testenv import Interpreter, choose_python, system_python
from proximity.sources.testruns import COLLECT, materialise, run_pytest
from tests.sources.gitrepo import ScriptedRepo

LIMITS = Limits(cpu_seconds=60)
PLAIN = choose_python(configured="", worktrees=(), plain=system_python())


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_outcomes_by_test_id_with_classes_and_collection_failures(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "tests/test_mix.py": (
                "import pytest\n\n"
                "def test_ok():\n    pass\n\n"
                "def test_bad():\n    assert 1 == 2\n\n"
                "@pytest.mark.skip\ndef test_skip():\n    pass\n\n"
                "class TestGroup:\n    def test_in_class(self):\n        pass\n"
            ),
            # a module of the tree that is not there: the merge's problem, not the environment's
            "tests/test_broken.py": "import tests.gone\n\ndef test_x():\n    pass\n",
        },
    )
    run = run_pytest(
        root, ["tests/test_mix.py", "tests/test_broken.py", "tests/test_gone.py"],
        python=PLAIN, timeout=60, limits=LIMITS,
    )  # fmt: skip
    assert run.status == "ran", run.reason
    got = {k: v.outcome for k, v in run.outcomes.items()}
    assert got == {
        "tests/test_mix.py::test_ok": "passed",
        "tests/test_mix.py::test_bad": "failed",
        "tests/test_mix.py::test_skip": "skipped",
        "tests/test_mix.py::TestGroup::test_in_class": "passed",
        f"tests/test_mix.py::{COLLECT}": "passed",
        f"tests/test_broken.py::{COLLECT}": "error",
    }
    assert "assert 1 == 2" in run.outcomes["tests/test_mix.py::test_bad"].message
    assert "tests.gone" in run.outcomes[f"tests/test_broken.py::{COLLECT}"].message


def test_the_worker_environment_never_reaches_the_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RADAR_SECRET_PROBE", "do-not-leak")
    root = _tree(
        tmp_path / "tree",
        {
            "test_env.py": (
                "import os\n\ndef test_env():\n"
                "    assert 'RADAR_SECRET_PROBE' not in os.environ\n"
                "    assert 'DJANGO_SETTINGS_MODULE' not in os.environ\n"
                "    assert os.environ['HOME'] != os.path.expanduser('~root')\n"
            )
        },
    )
    run = run_pytest(root, ["test_env.py"], python=PLAIN, timeout=60, limits=LIMITS)
    assert run.outcomes["test_env.py::test_env"].outcome == "passed", run.outcomes


def running(marker: str) -> list[int]:
    """Processes of this machine whose command line holds ``marker``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if marker.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_run_over_its_wall_clock_is_killed_with_what_it_started(tmp_path: Path) -> None:
    marker = f"radar-hang-{uuid.uuid4().hex}"
    root = _tree(
        tmp_path / "tree",
        {
            "test_hang.py": (
                "import subprocess, sys, time\n\ndef test_hang():\n"
                f"    sleeper = [sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}]\n"
                "    subprocess.Popen(sleeper)\n"
                "    time.sleep(60)\n"
            )
        },
    )
    started = time.monotonic()
    run = run_pytest(root, ["test_hang.py"], python=PLAIN, timeout=10, limits=LIMITS)
    assert (run.status, run.reason) == ("timeout", "over 10 s")
    assert time.monotonic() - started < 30
    for _ in range(50):  # the namespace's processes are killed with its init, shortly after
        if not running(marker):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the test's child outlived the run: {running(marker)}")


def test_an_interpreter_that_cannot_run_is_an_error_not_a_pass(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"test_a.py": "def test_a():\n    pass\n"})
    run = run_pytest(
        root,
        ["test_a.py"],
        python=Interpreter("/nonexistent/python", "a missing one"),
        timeout=10,
        limits=LIMITS,
    )
    assert run.status == "error"
    assert run.reason.startswith("could not start: ")
    assert "/nonexistent/python" in run.reason
    no_pytest = run_pytest(
        root, ["test_a.py"], python=Interpreter("/bin/false", "false"), timeout=10, limits=LIMITS
    )
    assert no_pytest.status == "error"


def test_a_tree_is_written_from_the_object_store_without_touching_the_repository(
    tmp_path: Path,
) -> None:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("pkg/mod.py", "X = 1\n")
    repo.commit("base")
    before = repo.git("status", "--porcelain"), repo.git("for-each-ref")
    dest = tmp_path / "out"
    materialise(repo.root, {}, "HEAD^{tree}", dest, LIMITS)
    assert (dest / "pkg/mod.py").read_text() == "X = 1\n"
    assert (repo.git("status", "--porcelain"), repo.git("for-each-ref")) == before


def test_a_timed_out_or_unstartable_run_leaves_no_scratch_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 31, item 8 (also on main): the timeout path returned before the folder was removed.
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    root = _tree(tmp_path / "tree", {"test_hang.py": "import time\n\ndef test_hang():\n"
                                     "    time.sleep(60)\n"})  # fmt: skip
    run = run_pytest(root, ["test_hang.py"], python=PLAIN, timeout=3, limits=LIMITS)
    assert run.status == "timeout"
    assert list(temp.iterdir()) == []
    missing = run_pytest(
        root, ["test_hang.py"], python=Interpreter("/nonexistent/py", "none"), timeout=3,
        limits=LIMITS,
    )  # fmt: skip
    assert missing.status == "error"
    assert list(temp.iterdir()) == []
