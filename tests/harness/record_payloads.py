"""Record each real harness's own hook payloads as fixtures (tests/agent/payloads/*_real_*.json).

``python -m tests.harness.record_payloads`` sets up bob's worktree as the harness tier does,
installs our hooks, puts a ``tee`` in front of each installed command, runs every harness once
(a collision on core.py line 22, so the pre-edit hook denies and the post-edit one does not
fire for Claude Code; a far edit for the post-edit payloads), and writes one fixture per event
with the test's paths replaced by ``{{WORKTREE}}`` and ``{{FILE}}``.
tests/agent/test_real_payloads.py feeds them to ``radar hook``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.harness.conftest import Bench, _configure, codex_home
from tests.harness.model_server import ModelServer
from tests.harness.programs import PINNED, ensure_programs
from tests.sources.gitrepo import ScriptedRepo, numbered

OUT = Path(__file__).resolve().parents[1] / "agent" / "payloads"
# A payload's volatile values, replaced so a fixture is stable.
_VOLATILE = ("transcript_path", "session_id", "turn_id", "tool_use_id", "timestamp", "model")


def _tee_commands(settings: Path, log: Path) -> None:
    data = json.loads(settings.read_text())
    for groups in data["hooks"].values():
        for group in groups if isinstance(groups, list) else ():
            for handler in group.get("hooks", []):
                command = handler["command"]
                handler["command"] = f"/bin/sh -c {shlex.quote(f'tee -a {log} | {command}')}"
    settings.write_text(json.dumps(data, indent=2))


def _sanitized(payload: dict[str, Any], bench: Bench) -> dict[str, Any]:
    text = json.dumps(payload)
    text = text.replace(str(bench.bob / "core.py"), "{{FILE}}").replace(
        str(bench.bob), "{{WORKTREE}}"
    )
    text = text.replace(str(bench.repo.root), "{{MAIN}}").replace(str(bench.home), "{{HOME}}")
    out: dict[str, Any] = json.loads(text)
    for key in _VOLATILE:
        if key in out and out[key] is not None:
            out[key] = f"<{key}>"
    return out


def record(harness: str, version_tag: str) -> list[Path]:
    programs = ensure_programs()
    with tempfile.TemporaryDirectory(prefix="rec-", dir="/tmp") as scratch:
        tmp = Path(scratch)
        repo = ScriptedRepo.create(tmp)
        repo.write("core.py", numbered(60))
        repo.commit("base")
        alice = repo.add_worktree("alice")
        bob = repo.add_worktree("bob")
        repo.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
        home = tmp / "home"
        home.mkdir()
        server = ModelServer()
        url = server.start()
        _configure(harness, home, url)
        bench = Bench(programs[harness], repo, alice, bob, home, tmp / "state", server, url)
        if harness == "codex":
            bench.extra_env["CODEX_HOME"] = str(codex_home(home))
        bench.install()
        settings = {
            "claude": bob / ".claude" / "settings.json",
            "codex": repo.root / ".codex" / "hooks.json",
            "gemini": bob / ".gemini" / "settings.json",
        }[harness]
        log = tmp / "payloads.jsonl"
        _tee_commands(settings, log)
        if harness == "codex":  # the tee changed each hook's hash: this run bypasses the trust
            bench.codex_flags.append("--dangerously-bypass-hook-trust")
        bench.run(bench.edit_call("line 22\n", "bob 22\n"), "record deny")
        bench.run(bench.edit_call("line 50\n", "bob 50\n"), "record far edit")
        server.stop()
        seen: dict[str, dict[str, Any]] = {}
        decoder = json.JSONDecoder()
        text, at = log.read_text(), 0
        while at < len(text):
            while at < len(text) and text[at].isspace():
                at += 1
            if at >= len(text):
                break
            payload, at = decoder.raw_decode(text, at)
            event = str(payload.get("hook_event_name"))
            tool = str(payload.get("tool_name") or "")
            key = f"{event}_{tool}".rstrip("_")
            seen.setdefault(key, _sanitized(payload, bench))
        written = []
        for key, payload in sorted(seen.items()):
            path = OUT / f"{harness}_real_{key.lower()}.json"
            package = programs[harness].package
            source = f"recorded from {package} {version_tag} (tests/harness/record_payloads.py)"
            path.write_text(json.dumps({"_source": source, **payload}, indent=2) + "\n")
            written.append(path)
        shutil.rmtree(tmp / "state", ignore_errors=True)
        return written


if __name__ == "__main__":
    versions = {harness: version for harness, (_, version, _) in PINNED.items()}
    for name in sys.argv[1:] or ["claude", "codex", "gemini"]:
        for path in record(name, versions[name]):
            print(path)
