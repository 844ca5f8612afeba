"""Hook payloads as each harness documents them, with placeholders for a test's own paths.

``load("cursor_pre_edit", WORKTREE=str(bob), FILE=str(bob / "core.py"))`` reads
``cursor_pre_edit.json``, drops its keys starting with ``_`` (``_source`` names the page the
payload follows) and replaces each ``{{NAME}}`` inside a string with ``subs["NAME"]``:
``WORKTREE`` is the agent's worktree, ``FILE`` the absolute path of the file edited. Edits are of
``core.py`` line 22 (``"line 22\\n"`` to ``"changed 22\\n"``) unless a test changes them. A
placeholder left without a value is an error, so no half-filled payload reaches a hook.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["NAMES", "load"]

_HERE = Path(__file__).parent
_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")
NAMES = tuple(sorted(p.stem for p in _HERE.glob("*.json")))


def _filled(value: Any, subs: dict[str, str]) -> Any:
    if isinstance(value, str):
        missing = sorted(set(_PLACEHOLDER.findall(value)) - subs.keys())
        if missing:
            raise KeyError(f"no value for placeholder(s) {', '.join(missing)}")
        return _PLACEHOLDER.sub(lambda m: subs[m.group(1)], value)
    if isinstance(value, list):
        return [_filled(v, subs) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, subs) for k, v in value.items()}
    return value


def load(name: str, **subs: str) -> dict[str, Any]:
    """The payload ``name`` with its placeholders filled from ``subs``."""
    data = json.loads((_HERE / f"{name}.json").read_text(encoding="utf-8"))
    return _filled({k: v for k, v in data.items() if not k.startswith("_")}, subs)
