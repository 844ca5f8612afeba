"""scripts/prerequisites: what `make test` and `make demo` need, checked with PATH under control."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "prerequisites"
BASH = "/bin/bash"  # absolute: PATH below holds only the shims

TEST_PACKAGES = ("python3", "python3-venv", "python3-dev", "git")
TEST_PACKAGES += (
    "util-linux",
    "postgresql",
    "redis-server",
    "chromium",
    "docker-compose",
    "nodejs",
    "npm",
)


def _shim(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A PATH with only an apt-get that records its arguments (and installs nothing)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    _shim(folder, "apt-get", f'echo "$@" >> {tmp_path / "apt-get.log"}')
    return folder


def _run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": str(bin_dir),
        "HOME": str(bin_dir.parent),
        # Debian keeps pg_ctl off PATH under /usr/lib/postgresql; point that look-up away too.
        "PREREQUISITES_PG_LIB": str(bin_dir.parent / "no-postgresql"),
    }
    return subprocess.run(
        [BASH, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60
    )


def _apt_calls(bin_dir: Path) -> list[str]:
    log = bin_dir.parent / "apt-get.log"
    return log.read_text().splitlines() if log.exists() else []


def test_check_names_the_install_command_of_every_missing_package(bin_dir: Path) -> None:
    result = _run(bin_dir, "--check", "test")
    assert result.returncode == 1
    missing = [line for line in result.stdout.splitlines() if " missing " in line]
    assert len(missing) == len(TEST_PACKAGES)
    for line, package in zip(missing, TEST_PACKAGES, strict=True):
        assert line.endswith(f"apt-get install -y {package}`"), line
    assert _apt_calls(bin_dir) == []  # --check never installs, even as root


def test_the_environment_variable_also_means_check_only(bin_dir: Path) -> None:
    env_run = subprocess.run(
        [BASH, str(SCRIPT), "test"],
        env={"PATH": str(bin_dir), "PREREQUISITES_CHECK": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert env_run.returncode == 1
    assert _apt_calls(bin_dir) == []


def test_demo_needs_only_python_and_git(bin_dir: Path) -> None:
    result = _run(bin_dir, "--check", "demo")
    assert result.returncode == 1
    assert "git" in result.stdout
    assert "python3" in result.stdout
    for server in ("postgresql", "redis-server", "chromium", "docker-compose"):
        assert server not in result.stdout


def test_an_old_git_is_reported_in_one_line(bin_dir: Path) -> None:
    _shim(bin_dir, "git", 'echo "git version 2.30.2"')
    result = _run(bin_dir, "--check", "demo")
    assert result.returncode == 1
    git_lines = [line for line in result.stdout.splitlines() if "git" in line]
    assert git_lines == [
        "prerequisites: git 2.30.2 is too old: 2.38 or newer is needed for "
        "`git merge-tree --write-tree`; install git 2.38+ (Debian 12 ships 2.39: "
        f"`{'' if os.geteuid() == 0 else 'sudo '}apt-get install -y git`)"
    ]


def test_a_node_older_than_20_is_reported_in_one_line_for_the_harness_tier(bin_dir: Path) -> None:
    _shim(bin_dir, "node", "echo 18")  # answers `node -p process.versions...`
    _shim(bin_dir, "npm", "echo 9.2.0")
    result = _run(bin_dir, "--check", "test")
    node_lines = [line for line in result.stdout.splitlines() if "Node.js" in line]
    assert node_lines == [
        "prerequisites: Node.js 18 is too old: 20 or newer runs the harness tier's programs; "
        "install Node.js 20+ (e.g. from NodeSource) and npm"
    ]
    assert "Node.js" not in _run(bin_dir, "--check", "demo").stdout


def test_a_recent_git_and_python_311_pass_the_demo_check(bin_dir: Path) -> None:
    _shim(bin_dir, "git", 'echo "git version 2.39.5"')
    _shim(bin_dir, "python3.11", "echo 3.11.9")  # answers the version probe and `import venv`
    result = _run(bin_dir, "--check", "demo")
    assert (result.returncode, result.stdout) == (0, "")


def test_a_python_other_than_311_is_reported_in_one_line(bin_dir: Path) -> None:
    _shim(bin_dir, "git", 'echo "git version 2.39.5"')
    _shim(bin_dir, "python3", "echo 3.9.18")
    result = _run(bin_dir, "--check", "demo")
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "prerequisites: Python 3.11 is required, python3 is 3.9.18: "
        "install python3.11 and put it on PATH"
    )


def test_without_check_root_installs_with_apt_get_and_others_are_told(bin_dir: Path) -> None:
    result = _run(bin_dir, "test")
    assert result.returncode == 1  # the apt-get shim installs nothing, so all is still missing
    if os.geteuid() == 0:
        assert _apt_calls(bin_dir) == ["update -qq", f"install -y -qq {' '.join(TEST_PACKAGES)}"]
        assert result.stdout.startswith(f"prerequisites: installing {' '.join(TEST_PACKAGES)}\n")
    else:
        assert _apt_calls(bin_dir) == []
        assert "`sudo apt-get install -y postgresql`" in result.stdout


@pytest.mark.parametrize("target", ["test", "demo"])
def test_make_runs_the_prerequisites_script_before_building_the_venv(target: str) -> None:
    # Run as a top-level make even inside `make test` (CI), where MAKELEVEL and MAKEFLAGS make a
    # nested make print "Entering directory" lines.
    env = {k: v for k, v in os.environ.items() if k not in {"MAKELEVEL", "MAKEFLAGS", "MFLAGS"}}
    result = subprocess.run(
        ["make", "-n", "--no-print-directory", target],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    commands = [c for c in result.stdout.splitlines() if not c.startswith("make[")]
    assert commands[0] == f"scripts/prerequisites {target}"
    assert "install" in commands[1]  # the venv (make install) comes after the check


def test_ci_installs_through_the_same_script() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    call = "\nscripts/prerequisites test\n"
    assert "apt-get install" not in ci  # no second copy of the package list
    assert ci.index("\nexport CI=true\n") < ci.index(call) < ci.index("\nmake test\n")
