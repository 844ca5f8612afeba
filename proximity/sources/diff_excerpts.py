"""Short excerpts of a worktree's diff for chosen files: what the other agent actually changed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proximity.sources.git._run import GitError, git_text

__all__ = ["REPORT_EXCERPT_FILES", "diff_excerpts", "with_report_excerpts"]

_MAX_LINES = 8
_MAX_CHARS = 600
#: A report carries excerpts of at most this many files (about 24 KB at most): the first ones
#: in path order, so a huge working set costs one bounded git call, not one per file.
REPORT_EXCERPT_FILES = 40


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
        path: "\n".join(_bounded(lines))[:_MAX_CHARS]
        for path, lines in _split_by_file(text).items()
        if path in wanted
    }


def _bounded(lines: list[str]) -> list[str]:
    """At most ``_MAX_LINES`` lines, hunk by hunk, each hunk's header with a couple of removed
    lines and then its added ones: a long replacement shows what came in, not only what went."""
    hunks: list[list[str]] = []
    for line in lines:
        if line.startswith("@@") or not hunks:
            hunks.append([])
        hunks[-1].append(line)
    out: list[str] = []
    for hunk in hunks:
        room = _MAX_LINES - len(out) - 1
        if room <= 0:
            break
        head = hunk[:1] if hunk[0].startswith("@@") else []
        minus = [x for x in hunk if x.startswith("-")]
        plus = [x for x in hunk if x.startswith("+")]
        kept = min(len(minus), 2 if plus else room)
        out += [*head, *minus[:kept], *plus[: room - kept]]
    return out[:_MAX_LINES]


def _new_file_excerpt(worktree: str | Path, path: str) -> str:
    """The first lines of an untracked file, as added lines (git's diff would show them so)."""
    try:
        with (Path(worktree) / path).open("rb") as handle:
            head = handle.read(_MAX_CHARS * 2)
    except OSError:
        return ""
    if b"\0" in head:
        return ""  # binary
    lines = head.decode("utf-8", "replace").splitlines()[:_MAX_LINES]
    return "\n".join(f"+{line}" for line in lines)[:_MAX_CHARS]


def with_report_excerpts(
    files: list[dict[str, Any]],
    worktree: str | Path,
    merge_base: str | None,
    *,
    untracked: Iterable[str] = (),
    limit: int = REPORT_EXCERPT_FILES,
) -> list[dict[str, Any]]:
    """``files`` (a report's entries) with a bounded ``excerpt`` of what this side changed.

    Report mode's counterpart of the watcher's excerpts: the board's cards and the server's
    deny reasons quote them. At most ``limit`` files, 8 lines and 600 characters each.
    """
    chosen = [f["path"] for f in files if f.get("status") != "D"][:limit]
    new = set(untracked) & set(chosen)
    excerpts = diff_excerpts(worktree, merge_base or "", [p for p in chosen if p not in new])
    excerpts.update({p: text for p in new if (text := _new_file_excerpt(worktree, p))})
    return [{**f, "excerpt": excerpts[f["path"]]} if f["path"] in excerpts else f for f in files]
