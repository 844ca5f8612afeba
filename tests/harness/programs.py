"""The pinned harness programs, installed from the npm registry into ``var/harness-cache``.

``python -m tests.harness.programs`` installs them (what ``make harness-programs`` runs); the
harness tier's session fixture does the same when they are missing or at another version, so a
fresh CI machine needs only node and npm (``scripts/prerequisites test``). npm is asked for
exactly these versions; nothing else is fetched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE", "PINNED", "Program", "ensure_programs", "missing_tools"]

CACHE = Path(__file__).resolve().parents[2] / "var" / "harness-cache"

# harness -> (npm package, pinned version, executable under node_modules/.bin)
PINNED: dict[str, tuple[str, str, str]] = {
    "claude": ("@anthropic-ai/claude-code", "2.1.328", "claude"),
    "codex": ("@openai/codex", "0.169.0", "codex"),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
}


@dataclass(frozen=True, slots=True)
class Program:
    harness: str
    package: str
    version: str
    executable: Path


def missing_tools() -> list[str]:
    return [tool for tool in ("node", "npm") if shutil.which(tool) is None]


def _installed_version(package: str) -> str | None:
    manifest = CACHE / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def ensure_programs() -> dict[str, Program]:
    """The three programs at their pinned versions, installing what is missing (one npm run)."""
    wanted = [
        f"{package}@{version}"
        for package, version, _ in PINNED.values()
        if _installed_version(package) != version
    ]
    if wanted:
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--save-exact",
                "--prefix",
                str(CACHE),
                *wanted,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
    out = {}
    for harness, (package, version, name) in PINNED.items():
        found = _installed_version(package)
        if found != version:
            raise RuntimeError(f"{package}: {found or 'nothing'} installed, {version} pinned")
        out[harness] = Program(harness, package, version, CACHE / "node_modules" / ".bin" / name)
    return out


def main() -> int:
    """Install the programs; without node/npm, one line and (outside CI) no failure."""
    missing = missing_tools()
    if missing:
        in_ci = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
        print(f"harness programs: {' and '.join(missing)} missing; the harness tier will skip")
        return 1 if in_ci else 0
    for program in ensure_programs().values():
        print(f"{program.package}@{program.version}: {program.executable}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
