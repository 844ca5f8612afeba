"""What a harness needs beyond its hooks file before it runs them, after install and in doctor.

By each harness's own rules (:mod:`proximity.agent.codex_trust`,
:mod:`proximity.agent.gemini_trust`, :mod:`proximity.agent.harness_places`): Codex needs the
worktree's ``.codex/`` folder, a trusted project and each hook trusted by hash; Gemini CLI a
trusted folder and its hooks system on; Claude Code no ``disableAllHooks`` in any of its files.
Install does what the harness lets a person do from the outside (the folder, the per-hook trust
``/hooks`` would record) and says in one line what only the person may do (trusting a whole
project or folder). Standard library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proximity.agent.harness_places import Place, worktree_tops
from proximity.agent.harness_settings import SPECS, HarnessSpec, InstallError, installed

__all__ = ["after_install", "trust_checks"]

Lines = list[tuple[str, str]]


def _settings(path: Path) -> dict[str, Any]:
    from proximity.agent.harness_settings import read_settings

    try:
        return read_settings(path) or {}
    except InstallError:
        return {}


def _tops(path: str | Path) -> tuple[Path, Path] | None:
    try:
        return worktree_tops(path)
    except RuntimeError:
        return None


def _tracked(path: Path) -> bool:
    from proximity.sources.git._run import GitError, git

    try:
        code, _ = git(path.parent, ["ls-files", "--error-unmatch", path.name], ok_codes=(0, 1))
    except GitError:
        return False
    return code == 0


def _codex_project_line(top: Path, main: Path) -> str:
    return (
        f"Codex runs project hooks only in a trusted project: open `codex` in {top} once and "
        f"trust it (headless: `codex exec --trust ...`)"
    )


def _gemini_folder_line(top: Path) -> str:
    # Not --skip-trust: Gemini CLI 0.61.0 then runs, but applies no project hooks at all.
    return (
        f"Gemini CLI applies {top}/.gemini/settings.json only in a trusted folder: trust it when "
        "gemini asks (or /permissions); headless runs: GEMINI_CLI_TRUST_WORKSPACE=true"
    )


def after_install(spec: HarnessSpec, where: Place, path: str | Path) -> Lines:
    """Make the harness able to read what was written, or say what the person must do."""
    out: Lines = []
    if spec.harness == "codex":
        from proximity.agent.codex_trust import config_path, project_trusted, record_trust

        if where.needs_folder is not None and not where.needs_folder.is_dir():
            where.needs_folder.mkdir(parents=True)
            out.append(
                (
                    "note",
                    f"created {where.needs_folder}/: Codex reads {where.path} from this linked "
                    "worktree only when the worktree has that folder",
                )
            )
        try:
            trusted = record_trust(where.path, _settings(where.path))
        except InstallError as exc:
            out.append(("warning", str(exc)))
        else:
            if trusted:
                out.append(
                    (
                        "note",
                        f"trusted {len(trusted)} hook(s) by hash in {config_path()}, as Codex's "
                        "/hooks review does (a changed hook must be trusted again)",
                    )
                )
        tops = _tops(path)
        if where.scope != "user" and tops and project_trusted(*tops) is not True:
            out.append(("todo", _codex_project_line(*tops)))
    elif spec.harness == "claude" and where.scope == "project" and _tracked(where.path):
        # Claude Code reads settings.local.json too, per machine: the place for a local path.
        out.append(
            (
                "warning",
                f"{where.path} is committed, and the command holds this machine's radar path; "
                "`radar hooks install --harness claude --scope local` keeps it out of git",
            )
        )
    elif spec.harness == "gemini" and where.scope != "user":
        from proximity.agent.gemini_trust import folder_trusted

        tops = _tops(path)
        if tops and folder_trusted(tops[0]) is not True:
            out.append(("todo", _gemini_folder_line(tops[0])))
    return out


def _codex_checks(places: list[Place], path: str | Path) -> Lines:
    from proximity.agent.codex_trust import hook_trust, project_trusted

    out: Lines = []
    tops = _tops(path)
    for where in places:
        data = _settings(where.path)
        if not installed(SPECS["codex"], data):
            continue
        if where.needs_folder is not None and not where.needs_folder.is_dir():
            out.append(
                (
                    "problem",
                    f"Codex reads {where.path} from this worktree only when "
                    f"{where.needs_folder}/ exists; run `radar hooks install --harness codex`",
                )
            )
        waiting = [t for t in hook_trust(where.path, data) if t.status != "trusted"]
        if waiting:
            again = " --scope user" if where.scope == "user" else ""
            kinds = ", ".join(sorted({t.status for t in waiting}))
            out.append(
                (
                    "problem",
                    f"{where.scope}: {len(waiting)} hook(s) in {where.path} are {kinds} by hash, "
                    "so Codex skips them; run `radar hooks install --harness codex"
                    f"{again}` or approve them in /hooks",
                )
            )
        if where.scope == "project" and tops and project_trusted(*tops) is not True:
            out.append(("problem", _codex_project_line(*tops)))
    if tops and tops[0] != tops[1]:
        stray = SPECS["codex"].path(tops[0])
        if installed(SPECS["codex"], _settings(stray)):
            out.append(
                (
                    "problem",
                    f"{stray} holds Overlap Radar hooks, but Codex never reads it in a linked "
                    f"worktree (it reads {SPECS['codex'].path(tops[1])}); run `radar hooks "
                    "uninstall --harness codex` there, then install again",
                )
            )
    return out


def _gemini_checks(places: list[Place], path: str | Path) -> Lines:
    from proximity.agent.gemini_trust import folder_trusted

    out: Lines = []
    tops = _tops(path)
    for where in places:
        data = _settings(where.path)
        found = data.get("hooksConfig")
        config: dict[str, Any] = found if isinstance(found, dict) else {}
        if config.get("enabled") is False:
            out.append(("problem", f'{where.path}: "hooksConfig.enabled" is false: no hook runs'))
        for table, name in ((config, "hooksConfig"), (data.get("hooks"), "hooks")):
            disabled = table.get("disabled") if isinstance(table, dict) else None
            if isinstance(disabled, list) and "overlap-radar" in disabled:
                out.append(("problem", f'{where.path}: "{name}.disabled" lists overlap-radar'))
        ours = installed(SPECS["gemini"], data)
        if ours and where.scope == "project" and tops and folder_trusted(tops[0]) is not True:
            out.append(("problem", _gemini_folder_line(tops[0])))
    return out


def _claude_checks(places: list[Place]) -> Lines:
    """``disableAllHooks`` in any of Claude Code's settings files turns every hook off."""
    return [
        ("problem", f'{where.path}: "disableAllHooks" is true: Claude Code runs no hook')
        for where in places
        if _settings(where.path).get("disableAllHooks") is True
    ]


def trust_checks(spec: HarnessSpec, places: list[Place], path: str | Path) -> Lines:
    """Problems that keep the harness from running the hooks ``places`` hold."""
    if spec.harness == "claude":
        return _claude_checks(places)
    if spec.harness == "codex":
        return _codex_checks(places, path)
    if spec.harness == "gemini":
        return _gemini_checks(places, path)
    return []
