"""Short excerpts of a worktree's diff for chosen files: what the other agent actually changed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from proximity.sources.git._run import GitError, git_text

__all__ = ["diff_excerpts"]

_MAX_LINES = 8
_MAX_CHARS = 600


def _split_by_file(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current = None
        elif line.startswith("+++ "):
            name = line[4:].removeprefix("b/")
            current = out.setdefault(name, []) if name != "/dev/null" else None
        elif current is not None and line[:1] in {"+", "-", "@"} and not line.startswith("---"):
            current.append(line)
    return out


def diff_excerpts(worktree: str | Path, merge_base: str, paths: Iterable[str]) -> dict[str, str]:
    """``{path: first changed lines}`` of the working tree against ``merge_base`` (read-only).

    Runs through the shared git runner (scrubbed environment, C locale, timeout); a worktree
    git cannot read gives no excerpts rather than an error, since excerpts only decorate.
    """
    wanted = sorted(set(paths))
    if not wanted or not merge_base:
        return {}
    try:
        text = git_text(worktree, ["diff", "--no-color", "--no-ext-diff", "-U0", merge_base,
                                   "--", *wanted])  # fmt: skip
    except GitError:
        return {}
    return {
        path: "\n".join(lines[:_MAX_LINES])[:_MAX_CHARS]
        for path, lines in _split_by_file(text).items()
        if path in wanted
    }
