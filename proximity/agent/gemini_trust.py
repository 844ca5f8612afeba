"""Gemini CLI's folder trust, read by its own rule (never written: that is the person's call).

Gemini CLI 0.61 applies a folder's ``.gemini/settings.json`` (and so its hooks) only in a trusted
folder; a headless run in an untrusted one stops with ``FatalUntrustedWorkspaceError``. The rules
live in ``trustedFolders.json`` (``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``, else
``$GEMINI_CLI_HOME/.gemini/trustedFolders.json``): the longest rule path that contains the folder
wins, ``TRUST_PARENT`` standing for the rule's parent folder and ``DO_NOT_TRUST`` refusing.
``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts the folder for one session (``--skip-trust`` lets a
headless run start, but then no project hook runs: checked against 0.61.0 by tests/harness/).
Standard library only.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from proximity.agent.harness_places import gemini_home

__all__ = ["folder_trusted", "trust_file"]


def trust_file() -> Path:
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(path) if path else gemini_home() / ".gemini" / "trustedFolders.json"


def _rules() -> dict[str, Any]:
    try:
        text = trust_file().read_text(encoding="utf-8")
    except OSError:
        return {}
    text = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)  # the file may hold comments
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _real(path: str | Path) -> Path:
    try:
        return Path(path).resolve()
    except OSError:
        return Path(path)


def folder_trusted(folder: Path) -> bool | None:
    """Whether Gemini CLI trusts ``folder``; ``None`` when no rule covers it (it would ask)."""
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true":
        return True
    location = _real(folder)
    best, level = -1, None
    for rule, trust in _rules().items():
        effective = _real(Path(rule).parent if trust == "TRUST_PARENT" else rule)
        if (location == effective or effective in location.parents) and len(rule) > best:
            best, level = len(rule), trust
    if level == "DO_NOT_TRUST":
        return False
    return True if level in {"TRUST_FOLDER", "TRUST_PARENT"} else None
