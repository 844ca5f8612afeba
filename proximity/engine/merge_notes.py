"""One line on a merge check's test part, for the board's cards and the hook's reasons.

Apart from :mod:`proximity.engine.mergecheck` on purpose: the hook imports this on every edit,
and the check's package (the static build check and the import resolvers) costs ~100 ms to load.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["tests_note"]


def tests_note(summary: Mapping[str, object] | None) -> str:
    """One line on a check's test part for cards and hook reasons ("" when tests are off)."""
    if not summary:
        return ""
    state = str(summary.get("state", ""))
    selected = summary.get("selected")
    count = len(selected) if isinstance(selected, (list, tuple)) else 0
    if state == "clean":
        return f"repository tests: {count} test file(s) reaching both changes, no test conflict"
    if state == "conflicts":
        return f"repository tests: {summary.get('conflicts', 0)} test conflict(s)"
    if state == "none selected":
        return "repository tests: none reaches both changes"
    reason = summary.get("reason")
    if state in ("error", "not run"):  # never read as clean: the reason says why
        return f"repository tests did not run ({reason or state})"
    return f"repository tests not run to the end ({state}{f': {reason}' if reason else ''})"
