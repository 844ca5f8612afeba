"""Two agents in real worktrees of one real repository, and the `radar` command to run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.sources.gitrepo import ScriptedRepo, numbered

RADAR = str(Path(sys.executable).parent / "radar")

#: The agent tests that need the server or mcp extras; the light-core run (RADAR_LIGHT_CORE=1,
#: scripts/light-core-tests: only numpy and scipy installed) leaves exactly these out.
NEEDS_EXTRAS = ("test_hooks_server.py", "test_mcp_server.py")
LIGHT_CORE = os.environ.get("RADAR_LIGHT_CORE") == "1"
if LIGHT_CORE:
    collect_ignore = list(NEEDS_EXTRAS)


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Acknowledgements and the hook log of each test live in its own folder, and the user's
    own config (``$XDG_CONFIG_HOME/radar/config.toml``) is the test's: none unless it writes one.
    """
    state = tmp_path / "radar-state"
    monkeypatch.setenv("RADAR_STATE_DIR", str(state))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    for name in ("RADAR_SERVER", "RADAR_TOKEN", "RADAR_TOKEN_FILE", "RADAR_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    return state


@dataclass
class Scene:
    repo: ScriptedRepo
    alice: Path
    bob: Path
    state: Path

    def radar(
        self, *args: str, stdin: str = "", cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run the installed console script in a fresh process, as a harness does."""
        return subprocess.run(
            [RADAR, *args],
            input=stdin,
            cwd=cwd or self.bob,
            env={**os.environ, "RADAR_STATE_DIR": str(self.state)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def hook(self, harness: str, payload: object, *flags: str) -> subprocess.CompletedProcess[str]:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return self.radar("hook", harness, *flags, stdin=text)


def two_worktrees(tmp_path: Path, state: Path) -> Scene:
    """core.py (60 lines) and util.py (10) on main; alice and bob forked from it, untouched."""
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.write("util.py", numbered(10))
    repo.commit("base")
    alice = repo.add_worktree("alice")
    bob = repo.add_worktree("bob")
    return Scene(repo, alice, bob, state)


@pytest.fixture
def scene(tmp_path: Path, _state_dir: Path) -> Scene:
    """alice has an uncommitted edit of core.py line 22; bob has not started yet."""
    made = two_worktrees(tmp_path, _state_dir)
    made.repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    return made
