"""`radar hooks install|uninstall|doctor` against real settings files in a real repository.

Each harness's file starts with hooks and settings of the person's own; everything here checks
that they survive install and uninstall as JSON, and that ours come and go exactly.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from proximity.agent.cli import main
from proximity.agent.harness_places import place
from proximity.agent.install import SPECS, is_ours
from tests.sources.gitrepo import ScriptedRepo, numbered

THEIRS = {
    "claude": {
        "model": "opus",
        "permissions": {"allow": ["Bash(git status:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-bash"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
        },
    },
    "codex": {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 policy.py"}]}
            ]
        }
    },
    "gemini": {
        "general": {"vimMode": True},
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "write_file",
                    "hooks": [{"name": "scan", "type": "command", "command": "./scan.sh"}],
                }
            ],
            "disabled": ["auto-test"],
        },
    },
    "cursor": {
        "version": 1,
        "hooks": {
            "afterFileEdit": [{"command": ".cursor/hooks/format.sh"}],
            "stop": [{"command": "./audit.sh", "loop_limit": 10}],
        },
    },
}
HARNESSES = sorted(THEIRS)


@pytest.fixture
def worktree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """bob's worktree of a real repository; $HOME and the radar state are the test's own."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RADAR_STATE_DIR", str(tmp_path / "radar-state"))
    (tmp_path / "home").mkdir()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    repo.add_worktree("alice")
    return repo.add_worktree("bob")


def _settings(
    worktree: Path, harness: str, content: object | None = None, scope: str = "project"
) -> Path:
    path = place(SPECS[harness], scope, worktree).path
    if content is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content, indent=4))
    return path


def _hooks(worktree: Path, action: str, harness: str, *flags: str) -> int:
    return main(["hooks", action, "--harness", harness, "--path", str(worktree), *flags])


def _ours(data: dict, harness: str) -> dict[str, list[str]]:
    """Our commands per event of a settings object."""
    spec = SPECS[harness]
    out: dict[str, list[str]] = {}
    for event, entries in data["hooks"].items():
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict):
                continue  # Gemini CLI's "hooks.disabled" names
            handlers = [entry] if spec.flat else entry["hooks"]
            out.setdefault(event, []).extend(
                h["command"] for h in handlers if is_ours(h.get("command"), harness)
            )
    return {event: commands for event, commands in out.items() if commands}


def _backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.radar-backup-*"))


@pytest.mark.parametrize("harness", HARNESSES)
def test_install_keeps_their_hooks_and_keys_and_backs_the_file_up(
    worktree: Path, harness: str
) -> None:
    path = _settings(worktree, harness, THEIRS[harness])
    original = path.read_text()
    assert _hooks(worktree, "install", harness) == 0
    data = json.loads(path.read_text())
    for key, value in THEIRS[harness].items():
        if key != "hooks":
            assert data[key] == value
    for event, entries in THEIRS[harness]["hooks"].items():
        for entry in entries:
            assert entry in data["hooks"][event]
    assert set(_ours(data, harness)) == {event for event, _ in SPECS[harness].events}
    assert [b.read_text() for b in _backups(path)] == [original]


@pytest.mark.parametrize("harness", HARNESSES)
def test_installed_command_runs_this_radar_by_absolute_path(worktree: Path, harness: str) -> None:
    path = _settings(worktree, harness)
    assert _hooks(worktree, "install", harness) == 0
    for commands in _ours(json.loads(path.read_text()), harness).values():
        words = shlex.split(commands[0])
        assert Path(words[0]).is_absolute()
        assert Path(words[0]).is_file()
        assert words[1:] == ["hook", harness]
    if harness == "cursor":
        assert json.loads(path.read_text())["version"] == 1


@pytest.mark.parametrize("harness", HARNESSES)
def test_second_install_changes_nothing(
    worktree: Path, harness: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings(worktree, harness, THEIRS[harness])
    _hooks(worktree, "install", harness)
    after_first = path.read_bytes()
    capsys.readouterr()
    assert _hooks(worktree, "install", harness) == 0
    assert path.read_bytes() == after_first
    assert len(_backups(path)) == 1
    assert "already installed" in capsys.readouterr().out


@pytest.mark.parametrize("harness", HARNESSES)
def test_uninstall_gives_back_the_original_settings(worktree: Path, harness: str) -> None:
    path = _settings(worktree, harness, THEIRS[harness])
    _hooks(worktree, "install", harness)
    assert _hooks(worktree, "uninstall", harness) == 0
    assert json.loads(path.read_text()) == THEIRS[harness]
    assert _hooks(worktree, "uninstall", harness) == 0  # nothing left to remove: no change
    assert json.loads(path.read_text()) == THEIRS[harness]


@pytest.mark.parametrize("harness", HARNESSES)
def test_uninstall_removes_a_file_that_held_only_our_hooks(worktree: Path, harness: str) -> None:
    path = _settings(worktree, harness)
    _hooks(worktree, "install", harness)
    assert path.exists()
    assert _hooks(worktree, "uninstall", harness) == 0
    assert not path.exists()
    assert len(_backups(path)) == 1  # what uninstall removed, kept aside


def test_a_symlinked_settings_file_is_written_through_its_link(
    worktree: Path, tmp_path: Path
) -> None:
    dotfile = tmp_path / "dotfiles" / "claude.json"
    dotfile.parent.mkdir()
    dotfile.write_text(json.dumps(THEIRS["claude"]))
    path = _settings(worktree, "claude")
    path.parent.mkdir()
    path.symlink_to(dotfile)
    assert _hooks(worktree, "install", "claude") == 0
    assert path.is_symlink()
    assert "PreToolUse" in _ours(json.loads(dotfile.read_text()), "claude")
    assert _hooks(worktree, "uninstall", "claude") == 0
    assert path.is_symlink()
    assert json.loads(dotfile.read_text()) == THEIRS["claude"]


def test_reinstall_with_server_flags_replaces_our_entries_in_place(
    worktree: Path, tmp_path: Path
) -> None:
    path = _settings(worktree, "claude", THEIRS["claude"])
    token = tmp_path / "token"
    token.write_text("orad_secret-value")
    _hooks(worktree, "install", "claude")
    flags = ["--server", "https://radar.example", "--token-file", str(token), "--repository", "web"]
    assert _hooks(worktree, "install", "claude", *flags) == 0
    data = json.loads(path.read_text())
    ours = _ours(data, "claude")
    assert all(len(commands) == 1 for commands in ours.values())
    command = ours["PreToolUse"][0]
    assert shlex.split(command)[3:] == flags
    assert "orad_secret-value" not in path.read_text()
    assert data["hooks"]["PreToolUse"][0] == THEIRS["claude"]["hooks"]["PreToolUse"][0]


def test_unreadable_token_file_is_refused_and_nothing_is_written(
    worktree: Path, tmp_path: Path
) -> None:
    path = _settings(worktree, "claude", THEIRS["claude"])
    before = path.read_bytes()
    assert _hooks(worktree, "install", "claude", "--token-file", str(tmp_path / "missing")) == 1
    assert path.read_bytes() == before
    assert _backups(path) == []


def test_user_scope_writes_under_home_and_not_the_worktree(worktree: Path, tmp_path: Path) -> None:
    assert _hooks(worktree, "install", "codex", "--scope", "user") == 0
    user = SPECS["codex"].path(tmp_path / "home")
    assert set(_ours(json.loads(user.read_text()), "codex")) == {
        "PreToolUse",
        "PostToolUse",
        "SessionStart",
        "UserPromptSubmit",
    }
    assert not SPECS["codex"].path(worktree).exists()
    assert _hooks(worktree, "uninstall", "codex", "--scope", "user") == 0
    assert not user.exists()


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize(
    "text", ["{not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"EVENT": {}}}']
)
def test_malformed_settings_are_an_error_and_stay_untouched(
    worktree: Path, harness: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings(worktree, harness)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = text.replace("EVENT", SPECS[harness].events[0][0])
    path.write_text(text)
    assert _hooks(worktree, "install", harness) == 1
    assert path.read_text() == text
    assert _backups(path) == []
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert str(path) in err


def test_install_outside_a_repository_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["hooks", "install", "--harness", "claude", "--path", str(tmp_path)]) == 1


def trust_as_the_person_does(worktree: Path, harness: str) -> None:
    """What only the person does: Codex's project trust, Gemini CLI's folder trust."""
    home = Path(os.environ["HOME"])
    if harness == "codex":
        config = home / ".codex" / "config.toml"
        with config.open("a") as handle:
            handle.write(f'\n[projects.{json.dumps(str(worktree))}]\ntrust_level = "trusted"\n')
    elif harness == "gemini":
        rules = home / ".gemini" / "trustedFolders.json"
        rules.parent.mkdir(parents=True, exist_ok=True)
        rules.write_text(json.dumps({str(worktree): "TRUST_FOLDER"}))


@pytest.mark.parametrize("harness", HARNESSES)
def test_doctor_on_an_installed_worktree_is_healthy(
    worktree: Path, harness: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _settings(worktree, harness, THEIRS[harness])
    _hooks(worktree, "install", harness)
    trust_as_the_person_does(worktree, harness)
    capsys.readouterr()
    assert _hooks(worktree, "doctor", harness) == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert out.out.rstrip().endswith("healthy")
    assert "server: none" in out.out
    assert "daemon: off (RADAR_DAEMON=0)" in out.out  # tests/conftest.py turns it off
    assert "mainline drift: planned lines checked against main (" in out.out
    assert (
        "right of way: an idle branch yields after 168 h (profile radar-v1-symbols); pushed work "
        "with nothing uncommitted never does" in out.out
    )
    round_trips = [line for line in out.out.splitlines() if line.startswith("round trip")]
    assert len(round_trips) == 2
    assert all(" ms, " in line for line in round_trips)


def test_doctor_names_each_problem_on_one_line(
    worktree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings(worktree, "claude", THEIRS["claude"])
    assert _hooks(worktree, "doctor", "claude") == 1
    assert "no Overlap Radar hooks for claude" in capsys.readouterr().err
    _hooks(worktree, "install", "claude")
    data = json.loads(path.read_text())
    del data["hooks"]["SessionStart"]
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert _hooks(worktree, "doctor", "claude") == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert "SessionStart missing" in err[0]


def test_doctor_says_when_the_base_branch_the_drift_check_reads_is_missing(
    worktree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _hooks(worktree, "install", "claude")
    (worktree / ".radar.toml").write_text('[radar]\nbase = "trunk"\n')
    capsys.readouterr()
    assert _hooks(worktree, "doctor", "claude") == 1
    err = capsys.readouterr().err
    assert "mainline drift: 'trunk' does not resolve in this clone" in err
    (worktree / ".radar.toml").write_text('[radar]\nbase = "trunk"\n[policy]\ndrift = "off"\n')
    capsys.readouterr()
    _hooks(worktree, "doctor", "claude")
    assert "mainline drift: off" in capsys.readouterr().out


def test_doctor_reports_the_server_without_showing_the_token(
    worktree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = tmp_path / "token"
    token.write_text("orad_secret-value")
    flags = ["--server", "http://127.0.0.1:9", "--token-file", str(token), "--repository", "web"]
    _hooks(worktree, "install", "gemini", *flags)
    capsys.readouterr()
    _hooks(worktree, "doctor", "gemini")  # the installed command's flags are the ones checked
    out = capsys.readouterr()
    assert "server: http://127.0.0.1:9; repository: web; token: readable" in out.out
    assert "orad_secret-value" not in out.out + out.err


def test_doctor_for_cursor_warns_when_claude_hooks_would_run_twice(
    worktree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _hooks(worktree, "install", "cursor")
    _hooks(worktree, "install", "claude")
    capsys.readouterr()
    assert _hooks(worktree, "doctor", "cursor") == 0
    assert "checked twice" in capsys.readouterr().out


def test_doctor_for_codex_says_hooks_are_off_in_config_toml(
    worktree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _hooks(worktree, "install", "codex")
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    config.write_text(config.read_text() + "\n[features]\nhooks = false\n")
    capsys.readouterr()
    assert _hooks(worktree, "doctor", "codex") == 1
    out = capsys.readouterr()
    assert "[features] hooks = false" in out.err
    assert "/hooks" in out.out  # the trust review is explained


# ---- Cursor: postToolUse carries the post-edit answer, afterFileEdit never did ------------------

CURSOR_FILE_TOOLS = "Write|StrReplace|Edit|Delete"


def test_cursor_install_writes_post_tool_use_for_its_file_tools_and_no_after_file_edit(
    worktree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings(worktree, "cursor")
    assert _hooks(worktree, "install", "cursor") == 0
    command = capsys.readouterr().out.split("command: ", 1)[1].splitlines()[0]
    plain = {"command": command, "timeout": 10}
    tools = {"command": command, "matcher": CURSOR_FILE_TOOLS, "timeout": 10}
    assert json.loads(path.read_text()) == {
        "version": 1,
        "hooks": {
            "preToolUse": [tools],
            "beforeShellExecution": [plain],
            "postToolUse": [tools],
            "sessionStart": [plain],
            "beforeSubmitPrompt": [plain],
        },
    }


def _earlier_cursor_install(worktree: Path) -> Path:
    """THEIRS plus the hooks an earlier release installed: afterFileEdit, no postToolUse."""
    path = _settings(worktree, "cursor", THEIRS["cursor"])
    _hooks(worktree, "install", "cursor")
    data = json.loads(path.read_text())
    ours = data["hooks"].pop("postToolUse")[0]
    del ours["matcher"]
    data["hooks"]["afterFileEdit"].append(ours)
    path.write_text(json.dumps(data))
    return path


def test_cursor_reinstall_moves_an_earlier_after_file_edit_hook_to_post_tool_use(
    worktree: Path,
) -> None:
    path = _earlier_cursor_install(worktree)
    assert _hooks(worktree, "install", "cursor") == 0
    data = json.loads(path.read_text())
    assert data["hooks"]["afterFileEdit"] == THEIRS["cursor"]["hooks"]["afterFileEdit"]
    assert set(_ours(data, "cursor")) == {event for event, _ in SPECS["cursor"].events}
    assert "afterFileEdit" not in _ours(data, "cursor")


def test_cursor_uninstall_removes_an_after_file_edit_hook_of_an_earlier_install(
    worktree: Path,
) -> None:
    path = _earlier_cursor_install(worktree)
    assert _hooks(worktree, "uninstall", "cursor") == 0
    assert json.loads(path.read_text()) == THEIRS["cursor"]


def test_doctor_for_cursor_names_an_earlier_after_file_edit_hook(
    worktree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _earlier_cursor_install(worktree)
    capsys.readouterr()
    assert _hooks(worktree, "doctor", "cursor") == 1
    err = capsys.readouterr().err
    assert "postToolUse missing" in err
    assert "afterFileEdit is hooked by an earlier install" in err
    _hooks(worktree, "install", "cursor")
    capsys.readouterr()
    assert _hooks(worktree, "doctor", "cursor") == 0


# ---- --scope local: Claude Code's per-machine .claude/settings.local.json -----------------------


@pytest.fixture
def local(worktree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The worktree, with git reading no ignore file but the worktree's own."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return worktree


def _ignore_local(worktree: Path) -> None:
    (worktree / ".gitignore").write_text(".claude/settings.local.json\n")


def test_local_scope_writes_settings_local_json_and_leaves_the_project_file_alone(
    local: Path,
) -> None:
    _ignore_local(local)
    project = _settings(local, "claude", THEIRS["claude"])
    before = project.read_bytes()
    assert _hooks(local, "install", "claude", "--scope", "local") == 0
    path = SPECS["claude"].path(local, "local")
    assert path == local / ".claude" / "settings.local.json"
    assert set(_ours(json.loads(path.read_text()), "claude")) == {
        event for event, _ in SPECS["claude"].events
    }
    assert project.read_bytes() == before
    assert _backups(project) == []
    assert _hooks(local, "uninstall", "claude", "--scope", "local") == 0
    assert not path.exists()
    assert project.read_bytes() == before


def test_local_uninstall_keeps_the_project_scopes_hooks(local: Path) -> None:
    _ignore_local(local)
    _hooks(local, "install", "claude")
    _hooks(local, "install", "claude", "--scope", "local")
    assert _hooks(local, "uninstall", "claude", "--scope", "local") == 0
    assert not SPECS["claude"].path(local, "local").exists()
    assert "PreToolUse" in _ours(json.loads(SPECS["claude"].path(local).read_text()), "claude")


def test_local_install_makes_git_ignore_the_file_and_doctor_warns_when_it_does_not(
    local: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _hooks(local, "install", "claude", "--scope", "local") == 0
    out = capsys.readouterr().out
    assert "not git-ignored" not in out
    exclude = Path(out.split("git ignores it (and radar's backups): ")[1].splitlines()[0])
    assert "/.claude/settings.local.json" in exclude.read_text().splitlines()
    exclude.write_text("")  # someone took it out again
    assert _hooks(local, "doctor", "claude") == 0
    assert "not git-ignored" in capsys.readouterr().out


def test_doctor_for_claude_lists_the_local_scope_and_is_healthy_with_hooks_only_there(
    local: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ignore_local(local)
    _hooks(local, "install", "claude", "--scope", "local")
    capsys.readouterr()
    assert _hooks(local, "doctor", "claude") == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"project: {SPECS['claude'].path(local)}: no Overlap Radar hooks" in lines
    path = SPECS["claude"].path(local, "local")
    assert f"local: {path}: PreToolUse, PostToolUse, SessionStart, UserPromptSubmit" in lines
    _hooks(local, "doctor", "codex")
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("local")]


@pytest.mark.parametrize("action", ["install", "uninstall", "doctor"])
@pytest.mark.parametrize("harness", ["codex", "gemini", "cursor"])
def test_local_scope_for_another_harness_is_a_one_line_error(
    worktree: Path, harness: str, action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _hooks(worktree, action, harness, "--scope", "local") == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert len(out.err.splitlines()) == 1
    assert "--scope local" in out.err
    assert "--harness claude" in out.err
    assert not (worktree / SPECS[harness].folder).exists()
