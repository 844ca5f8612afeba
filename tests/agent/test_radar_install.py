"""The `radar` command as a user installs it: the light core on any Python 3.11+, its version,
and one line naming the extra a subcommand needs when it is missing.

scripts/light-core-tests runs this file (and every agent test that needs no extra) in fresh
venvs on Python 3.11, 3.12 and 3.13 with only `pip install <checkout>` done.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import metadata, requires, version
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.agent.conftest import LIGHT_CORE, RADAR

CHECKOUT = Path(__file__).resolve().parents[2]


def test_radar_version_is_the_installed_distributions() -> None:
    run = subprocess.run([RADAR, "--version"], capture_output=True, text=True, check=False)

    assert run.returncode == 0
    assert run.stdout.startswith(f"radar {version('overlap-radar')} (Python 3.")


def test_the_light_core_needs_only_numpy_scipy_and_watchdog_on_python_3_11_and_later() -> None:
    core = [r for r in requires("overlap-radar") or () if "extra ==" not in r]

    # watchdog: the daemon's file notifications (pure Python, its inotify binding is ctypes)
    assert sorted(r.split("==")[0] for r in core) == ["numpy", "scipy", "watchdog"]
    assert metadata("overlap-radar")["Requires-Python"] == ">=3.11"


def test_radar_mcp_without_the_mcp_extra_is_one_line_naming_it() -> None:
    if find_spec("mcp") is None:  # the light core: the installed command itself
        argv = [RADAR, "mcp"]
    else:  # the same code with no site-packages, so no mcp either
        code = (
            f"import sys; sys.path.insert(0, {str(CHECKOUT)!r}); "
            "from proximity.agent.cli import main; raise SystemExit(main(['mcp']))"
        )
        argv = [sys.executable, "-S", "-c", code]

    run = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)

    assert (run.returncode, run.stdout) == (1, "")
    [line] = run.stderr.splitlines()
    assert line.startswith("radar: `radar mcp` needs the mcp extra, which is not installed")


@pytest.mark.skipif(not LIGHT_CORE, reason="checks the light-core venvs (scripts/light-core-tests)")
def test_the_light_core_venv_has_no_server_or_mcp_library() -> None:
    assert [m for m in ("django", "celery", "torch", "mcp") if find_spec(m) is not None] == []
