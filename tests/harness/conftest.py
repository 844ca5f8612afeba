"""The harness tier: the real Claude Code, Codex CLI and Gemini CLI, headless, in bob's worktree.

Each test builds a repository with a main checkout and two linked worktrees, alice's (holding
uncommitted lines) and bob's, gives the harness a home of its own, installs our hooks exactly as
docs/AGENTS.md tells a person (``radar hooks install --harness H`` plus the one trust step the
person takes), points the harness at the scripted model (tests/harness/model_server.py) and
reads what the harness sent back to the model after the scripted edit.

Like the browser tier: when node/npm or the programs are missing the tier skips locally and
fails when ``CI`` is set (.ci/run installs node and npm through scripts/prerequisites).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import IN_CI
from tests.harness.model_server import ModelServer, ToolCall
from tests.harness.programs import Program, ensure_programs, missing_tools
from tests.sources.gitrepo import ScriptedRepo, numbered

RADAR = str(Path(sys.executable).parent / "radar")
PROMPT = "Change core.py as planned."
# What each run took, printed at the end of the session (tests/harness/README in the report).
WALL_TIMES: list[tuple[str, str, str, float]] = []


@pytest.fixture(scope="session")
def programs() -> dict[str, Program]:
    missing = missing_tools()
    problem = f"harness test needs {' and '.join(missing)} (apt-get install -y nodejs npm)"
    if not missing:
        try:
            return ensure_programs()
        except (subprocess.SubprocessError, RuntimeError, OSError) as exc:
            problem = f"harness test could not install the pinned programs from npm: {exc}"
    if IN_CI:
        pytest.fail(problem)  # CI installs node and npm (.ci/run): missing ones are a failure
    pytest.skip(problem)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not WALL_TIMES:
        return
    terminalreporter.write_line("harness runs (wall time of one headless run):")
    for harness, version, case, wall in WALL_TIMES:
        terminalreporter.write_line(f"  {harness} {version} {case}: {wall:.1f} s")


@dataclass
class Run:
    """One headless run: what it printed, how long it took, what the model got back."""

    returncode: int
    stdout: str
    stderr: str
    wall: float
    after_call: str  # the harness's next request after the scripted edit, from the result on


@dataclass
class Bench:
    """alice holds core.py line 22 uncommitted; bob's harness is about to edit core.py."""

    program: Program
    repo: ScriptedRepo
    alice: Path
    bob: Path
    home: Path
    state: Path
    model: ModelServer
    url: str
    daemon: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)
    codex_flags: list[str] = field(default_factory=list)

    @property
    def harness(self) -> str:
        return self.program.harness

    def env(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "RADAR_STATE_DIR": str(self.state),
            "RADAR_DAEMON": "1" if self.daemon else "0",
            "NO_COLOR": "1",
            **self.extra_env,
        }
        return env

    def radar(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [RADAR, *args],
            cwd=self.bob,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    # -- the person's steps, as docs/AGENTS.md gives them -------------------------------------

    def install(self, *flags: str) -> subprocess.CompletedProcess[str]:
        done = self.radar("hooks", "install", "--harness", self.harness, *flags)
        assert done.returncode == 0, done.stderr
        return done

    # -- one headless run ------------------------------------------------------------------------

    def edit_call(self, old: str, new: str) -> list[ToolCall]:
        """The scripted model's tool calls for replacing ``old`` by ``new`` in core.py."""
        path = str(self.bob / "core.py")
        if self.harness == "claude":  # Claude Code edits only a file it has read
            return [
                ToolCall("Read", {"file_path": path}),
                ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new}),
            ]
        if self.harness == "codex":
            removed = "".join(f"-{line}\n" for line in old.splitlines())
            added = "".join(f"+{line}\n" for line in new.splitlines())
            patch = (
                f"*** Begin Patch\n*** Update File: core.py\n@@\n{removed}{added}*** End Patch\n"
            )
            return [ToolCall("apply_patch", patch)]
        return [
            ToolCall(
                "replace",
                {
                    "file_path": path,
                    "old_string": old,
                    "new_string": new,
                    "instruction": "change these lines as planned",
                },
            )
        ]

    def _command(self) -> tuple[list[str], dict[str, str]]:
        exe = str(self.program.executable)
        if self.harness == "claude":
            return (
                [
                    exe,
                    "-p",
                    PROMPT,
                    "--output-format",
                    "json",
                    "--permission-mode",
                    "acceptEdits",
                    "--model",
                    "claude-sonnet-4-5",
                ],
                {
                    "ANTHROPIC_BASE_URL": self.url,
                    "ANTHROPIC_API_KEY": "sk-scripted",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "DISABLE_AUTOUPDATER": "1",
                },
            )
        if self.harness == "codex":
            return (
                [
                    exe,
                    "exec",
                    "--json",
                    "--trust",
                    "-s",
                    "workspace-write",
                    *self.codex_flags,
                    PROMPT,
                ],
                {"SCRIPTED_KEY": "scripted"},
            )
        return (
            [exe, "-p", PROMPT, "--output-format", "json", "--approval-mode", "yolo"],
            # The folder trust a headless run takes (docs/AGENTS.md); --skip-trust runs too, but
            # Gemini CLI 0.61.0 then applies no project hooks at all.
            {
                "GOOGLE_GEMINI_BASE_URL": self.url,
                "GEMINI_API_KEY": "scripted",
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
            },
        )

    def run(self, calls: list[ToolCall], case: str) -> Run:
        self.model.script[:] = calls
        self.model.requests.clear()
        argv, extra = self._command()
        started = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=self.bob,
            env={**self.env(), **extra},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        wall = time.monotonic() - started
        mode = "daemon" if self.daemon else "no daemon"
        WALL_TIMES.append((self.harness, self.program.version, f"{case} ({mode})", wall))
        return Run(done.returncode, done.stdout, done.stderr, wall, self._after_call(calls))

    def _after_call(self, calls: list[ToolCall]) -> str:
        """The model-facing part of the last main request after the scripted edit's call."""
        name = calls[-1].name
        for path, body in reversed(self.model.requests):
            items, is_call = _conversation(path, body, name)
            marks = [k for k, item in enumerate(items) if is_call(item)]
            if marks and body.get("tools"):
                return json.dumps(items[marks[-1] + 1 :], ensure_ascii=False)
        return ""


def _conversation(path: str, body: dict[str, Any], name: str) -> tuple[list[Any], Any]:
    if "/v1/messages" in path:

        def claude_call(message: Any) -> bool:
            content = message.get("content") if isinstance(message, dict) else None
            return isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == name
                for b in content
            )

        return list(body.get("messages") or []), claude_call
    if path.rstrip("/").endswith("/responses"):

        def codex_call(item: Any) -> bool:
            return (
                isinstance(item, dict)
                and item.get("name") == name
                and "call_id" in item
                and (item.get("type") in {"custom_tool_call", "function_call"})
            )

        return list(body.get("input") or []), codex_call

    def gemini_call(content: Any) -> bool:
        parts = content.get("parts") if isinstance(content, dict) else None
        return isinstance(parts, list) and any(
            isinstance(p, dict) and (p.get("functionCall") or {}).get("name") == name for p in parts
        )

    return list(body.get("contents") or []), gemini_call


def codex_home(home: Path) -> Path:
    return home / ".codex-home"


def _configure(harness: str, home: Path, url: str) -> None:
    """The harness's own account settings: which model server, which sign-in (not our hooks)."""
    if harness == "codex":
        folder = codex_home(home)
        folder.mkdir()
        (folder / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\n'
            f'name = "scripted"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
            'env_key = "SCRIPTED_KEY"\n'
        )
    elif harness == "gemini":
        folder = home / ".gemini"
        folder.mkdir()
        (folder / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
        )


@pytest.fixture
def model() -> Iterator[tuple[ModelServer, str]]:
    server = ModelServer()
    url = server.start()
    try:
        yield server, url
    finally:
        server.stop()


@pytest.fixture
def mainline(request: pytest.FixtureRequest) -> str:
    """The repository's mainline branch: ``main`` unless a test asks for another (indirect)."""
    return str(getattr(request, "param", "main"))


@pytest.fixture(params=["claude", "codex", "gemini"])
def bench(
    request: pytest.FixtureRequest,
    programs: dict[str, Program],
    model: tuple[ModelServer, str],
    tmp_path: Path,
    mainline: str,
) -> Iterator[Bench]:
    harness = request.param
    repo = ScriptedRepo.create(tmp_path, base=mainline)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    alice = repo.add_worktree("alice")
    bob = repo.add_worktree("bob")
    repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    home = tmp_path / "home"
    home.mkdir()
    # A short state folder: the daemon's socket path must fit a Unix socket address.
    state = Path(tempfile.mkdtemp(prefix="rs-", dir="/tmp"))
    server, url = model
    _configure(harness, home, url)
    made = Bench(programs[harness], repo, alice, bob, home, state, server, url)
    if harness == "codex":  # the person's shell: radar and codex see the same CODEX_HOME
        made.extra_env["CODEX_HOME"] = str(codex_home(home))
    try:
        yield made
    finally:
        made.radar("daemon", "stop")
        shutil.rmtree(state, ignore_errors=True)
