"""Records of a merge check: one problem, and what a check of a pair of trees found."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "MERGECHECK_VERSION", "Problem", "problems_json", "trim"]

MERGECHECK_VERSION = "mergecheck-2026.12.1"
"""The checks' rules; travels with every stored result so a rule change is never mixed in."""

KINDS = (
    "syntax",  # the file does not byte-compile
    "unresolved-module",  # an import of an in-tree module that does not exist
    "unresolved-name",  # ``from m import n``: m in the tree, n neither bound nor a submodule
    "missing-attribute",  # ``m.n`` on an imported in-tree module that does not define n
    "undefined-name",  # a global name no statement of the module binds and no builtin has
    "migration-conflict",  # two leaf migrations in one Django app
    "test-conflict",  # a repository test passing on each side alone and failing on the merge
)


def trim(text: str, limit: int = 300) -> str:
    """One line of at most ``limit`` characters (stored and shown, never truncated mid-JSON)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding. ``key`` leaves the line out: a problem moved by a line shift is not new."""

    kind: str
    path: str
    name: str
    message: str
    line: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.path, self.name)

    def to_json(self, limit: int = 300) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "path": self.path,
            "name": trim(self.name, 200),
            "message": trim(self.message, limit),
        }
        if self.line is not None:
            out["line"] = self.line
        return out


def problems_json(problems: Iterable[Problem], *, limit: int = 20) -> list[dict[str, Any]]:
    """At most ``limit`` findings, in a stable order, each message at most 300 characters."""
    ordered = sorted(problems, key=lambda p: (p.kind, p.path, p.name))
    return [p.to_json() for p in ordered[:limit]]
