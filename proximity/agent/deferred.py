"""Context a harness drops before a tool runs, carried to the answer it does deliver after it.

Gemini CLI 0.61 ignores ``additionalContext`` from ``BeforeTool`` (its reference lists only
``decision``, ``reason`` and ``tool_input`` there), but appends ``AfterTool``'s
``hookSpecificOutput.additionalContext`` to the tool result the model reads. So an edit that
proceeds with an advisory as context (a Traffic Advisory, an acknowledged Resolution) keeps the
text here, per session, and the ``AfterTool`` hook of the same session hands it over once.

A text older than :data:`MAX_AGE_S` is dropped (a tool that never finished must not bring an
old advisory into a later result). Files are 0600 in the state folder. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from proximity.agent.state import state_root

__all__ = ["MAX_AGE_S", "defer", "take"]

MAX_AGE_S = 600.0
_LIMIT = 64 * 1024


def _path(session_id: str) -> Path:
    digest = hashlib.sha256(session_id.encode()).hexdigest()[:24]
    return state_root() / "deferred" / f"{digest}.txt"


def defer(session_id: str, text: str) -> None:
    """Keep ``text`` for this session's next after-tool answer (appended to what is kept)."""
    if not session_id or not text:
        return
    path = _path(session_id)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(text.rstrip("\n")[:_LIMIT] + "\n\x1e\n")  # record separator between texts


def take(session_id: str) -> str:
    """What was kept for this session (and no longer is); "" when nothing is, or it is stale."""
    if not session_id:
        return ""
    path = _path(session_id)
    claimed = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.rename(claimed)  # atomic: of two after-tool hooks, one gets the text
    except OSError:
        return ""
    try:
        if time.time() - claimed.stat().st_mtime > MAX_AGE_S:
            return ""
        text = claimed.read_text(encoding="utf-8")[: 4 * _LIMIT]
    finally:
        claimed.unlink(missing_ok=True)
    parts = [part.strip("\n") for part in text.split("\x1e")]
    return "\n\n".join(dict.fromkeys(p for p in parts if p))  # the same advisory once
