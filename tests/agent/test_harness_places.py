"""Install and doctor follow each harness's own rules for which file it reads and what it trusts.

The rules were read off the real programs (Codex CLI 0.169.0, Gemini CLI 0.61.0); the harness
tier (tests/harness/) runs those programs against what install writes.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from proximity.agent.cli import main
from proximity.agent.codex_trust import identity_hash
from proximity.agent.harness_settings import SPECS, installed, radar_executable
from tests.sources.gitrepo import ScriptedRepo, numbered


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScriptedRepo:
    """A main checkout with alice and bob's linked worktrees; $HOME is the test's own."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("RADAR_STATE_DIR", str(tmp_path / "radar-state"))
    for name in (
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "CLAUDE_CONFIG_DIR",
        "GEMINI_CLI_TRUST_WORKSPACE",
    ):
        monkeypatch.delenv(name, raising=False)
    made = ScriptedRepo.create(tmp_path)
    made.write("core.py", numbered(60))
    made.commit("base")
    made.add_worktree("alice")
    made.add_worktree("bob")
    return made


def _run(*argv: str) -> int:
    return main(list(argv))


def _codex_config(home: Path) -> dict:
    return tomllib.loads((home / "config.toml").read_text())


def test_codex_hash_is_the_one_codex_0_169_computes() -> None:
    # Recorded from the real program: `codex app-server`, hooks/list, currentHash.
    handler = {"type": "command", "command": "/work/wt/i26/.venv/bin/radar hook codex"}
    got = identity_hash("PreToolUse", "^(apply_patch|Bash)$", {**handler, "timeout": 10})
    assert got == "sha256:c85113d3f3c5af6a44c9003e391835b97ee33011af2068811dac81940261dc56"


def test_codex_in_a_linked_worktree_gets_the_main_checkouts_file_and_its_own_folder(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = repo.path("bob")
    assert _run("hooks", "install", "--harness", "codex", "--path", str(bob)) == 0
    main_file = repo.root / ".codex" / "hooks.json"
    assert set(installed(SPECS["codex"], json.loads(main_file.read_text()))) == {
        "PreToolUse",
        "PostToolUse",
        "SessionStart",
        "UserPromptSubmit",
    }
    assert (bob / ".codex").is_dir()
    assert not (bob / ".codex" / "hooks.json").exists()
    out = capsys.readouterr().out
    assert f"installed: {main_file}" in out
    assert "todo: Codex runs project hooks only in a trusted project" in out


def test_codex_install_trusts_each_hook_by_hash_in_codex_home(
    repo: ScriptedRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text('model = "gpt-5.5"\n\n[features]\nhooks = true\n')
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    bob = repo.path("bob")
    assert _run("hooks", "install", "--harness", "codex", "--path", str(bob)) == 0
    config = _codex_config(codex_home)
    assert config["model"] == "gpt-5.5"  # the person's own settings stay
    main_file = repo.root / ".codex" / "hooks.json"
    states = config["hooks"]["state"]
    assert sorted(states) == sorted(
        f"{main_file}:{label}:0:0"
        for label in ("pre_tool_use", "post_tool_use", "session_start", "user_prompt_submit")
    )
    data = json.loads(main_file.read_text())
    group = data["hooks"]["PreToolUse"][0]
    assert states[f"{main_file}:pre_tool_use:0:0"]["trusted_hash"] == identity_hash(
        "PreToolUse", group["matcher"], group["hooks"][0]
    )
    before = (codex_home / "config.toml").read_text()
    assert _run("hooks", "install", "--harness", "codex", "--path", str(bob)) == 0
    assert (codex_home / "config.toml").read_text() == before  # a second install: nothing


def test_codex_doctor_names_a_hook_changed_after_it_was_trusted(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = repo.path("bob")
    _run("hooks", "install", "--harness", "codex", "--path", str(bob))
    config = Path.home() / ".codex" / "config.toml"
    config.write_text(
        config.read_text() + f'\n[projects.{json.dumps(str(bob))}]\ntrust_level = "trusted"\n'
    )
    capsys.readouterr()
    assert _run("hooks", "doctor", "--harness", "codex", "--path", str(bob)) == 0
    main_file = repo.root / ".codex" / "hooks.json"
    data = json.loads(main_file.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 30
    main_file.write_text(json.dumps(data))
    capsys.readouterr()
    assert _run("hooks", "doctor", "--harness", "codex", "--path", str(bob)) == 1
    err = capsys.readouterr().err
    assert "1 hook(s)" in err
    assert "modified by hash, so Codex skips them" in err


def test_codex_doctor_says_the_worktrees_own_hooks_file_is_never_read(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = repo.path("bob")
    stray = bob / ".codex" / "hooks.json"
    stray.parent.mkdir()
    command = f"{radar_executable()} hook codex"
    stray.write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}
        )
    )
    assert _run("hooks", "doctor", "--harness", "codex", "--path", str(bob)) == 1
    err = capsys.readouterr().err
    assert f"{stray} holds Overlap Radar hooks, but Codex never reads it" in err
    assert "no Overlap Radar hooks for codex" in err


def test_codex_user_scope_honours_codex_home(
    repo: ScriptedRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "elsewhere"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    bob = repo.path("bob")
    assert (
        _run("hooks", "install", "--harness", "codex", "--scope", "user", "--path", str(bob)) == 0
    )
    assert installed(SPECS["codex"], json.loads((codex_home / "hooks.json").read_text()))
    assert not (Path.home() / ".codex" / "hooks.json").exists()
    assert (
        f"{codex_home / 'hooks.json'}:pre_tool_use:0:0"
        in _codex_config(codex_home)["hooks"]["state"]
    )


def test_gemini_user_scope_honours_gemini_cli_home(
    repo: ScriptedRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gh"))
    bob = repo.path("bob")
    assert (
        _run("hooks", "install", "--harness", "gemini", "--scope", "user", "--path", str(bob)) == 0
    )
    assert installed(
        SPECS["gemini"], json.loads((tmp_path / "gh/.gemini/settings.json").read_text())
    )


def test_gemini_in_an_untrusted_folder_says_what_to_do_and_doctor_refuses_it(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = repo.path("bob")
    assert _run("hooks", "install", "--harness", "gemini", "--path", str(bob)) == 0
    assert "todo: Gemini CLI applies" in capsys.readouterr().out
    assert _run("hooks", "doctor", "--harness", "gemini", "--path", str(bob)) == 1
    assert "only in a trusted folder" in capsys.readouterr().err
    rules = Path.home() / ".gemini" / "trustedFolders.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({str(bob.parent / "placeholder"): "TRUST_PARENT"}))
    assert _run("hooks", "doctor", "--harness", "gemini", "--path", str(bob)) == 0
    rules.write_text(json.dumps({str(bob.parent / "x"): "TRUST_PARENT", str(bob): "DO_NOT_TRUST"}))
    assert _run("hooks", "doctor", "--harness", "gemini", "--path", str(bob)) == 1


def test_gemini_doctor_reads_hooks_config_disabled(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    bob = repo.path("bob")
    _run("hooks", "install", "--harness", "gemini", "--path", str(bob))
    path = bob / ".gemini" / "settings.json"
    data = json.loads(path.read_text())
    data["hooksConfig"] = {"disabled": ["overlap-radar"]}
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert _run("hooks", "doctor", "--harness", "gemini", "--path", str(bob)) == 1
    assert '"hooksConfig.disabled" lists overlap-radar' in capsys.readouterr().err


def test_claude_doctor_names_disable_all_hooks(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = repo.path("bob")
    assert _run("hooks", "install", "--harness", "claude", "--path", str(bob)) == 0
    assert _run("hooks", "doctor", "--harness", "claude", "--path", str(bob)) == 0
    user = Path.home() / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(json.dumps({"disableAllHooks": True}))
    capsys.readouterr()
    assert _run("hooks", "doctor", "--harness", "claude", "--path", str(bob)) == 1
    assert f'{user}: "disableAllHooks" is true' in capsys.readouterr().err


def test_claude_install_into_a_committed_settings_file_points_to_the_local_scope(
    repo: ScriptedRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = repo.path("bob")
    repo.write(".claude/settings.json", "{}\n", worktree="bob")
    repo.commit("team settings", worktree="bob")
    assert _run("hooks", "install", "--harness", "claude", "--path", str(bob)) == 0
    out = capsys.readouterr().out
    assert "is committed, and the command holds this machine's radar path" in out
    assert (
        _run("hooks", "install", "--harness", "claude", "--scope", "local", "--path", str(bob)) == 0
    )
    assert "is committed" not in capsys.readouterr().out


def test_codex_reinstall_with_another_command_trusts_the_new_hash_in_place(
    repo: ScriptedRepo,
) -> None:
    bob = repo.path("bob")
    _run("hooks", "install", "--harness", "codex", "--path", str(bob))
    config = Path.home() / ".codex" / "config.toml"
    first = _codex_config(config.parent)["hooks"]["state"]
    assert (
        _run("hooks", "install", "--harness", "codex", "--repository", "web", "--path", str(bob))
        == 0
    )
    text = config.read_text()
    second = tomllib.loads(text)["hooks"]["state"]
    assert sorted(second) == sorted(first)  # the same keys, each table once
    assert all(second[key]["trusted_hash"] != first[key]["trusted_hash"] for key in first)
    main_file = repo.root / ".codex" / "hooks.json"
    group = json.loads(main_file.read_text())["hooks"]["PreToolUse"][0]
    assert "--repository web" in group["hooks"][0]["command"]
    assert second[f"{main_file}:pre_tool_use:0:0"]["trusted_hash"] == identity_hash(
        "PreToolUse", group["matcher"], group["hooks"][0]
    )


def test_claude_user_scope_honours_claude_config_dir(
    repo: ScriptedRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    bob = repo.path("bob")
    assert (
        _run("hooks", "install", "--harness", "claude", "--scope", "user", "--path", str(bob)) == 0
    )
    written = tmp_path / "claude-config" / "settings.json"
    assert installed(SPECS["claude"], json.loads(written.read_text()))
    assert not (Path.home() / ".claude" / "settings.json").exists()
    assert (
        _run("hooks", "uninstall", "--harness", "claude", "--scope", "user", "--path", str(bob))
        == 0
    )
    assert not written.exists()
