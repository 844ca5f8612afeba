"""Build symbol scenarios from source text: a base tree and each agent's edited files.

Hunks come from difflib in git's ``-U0`` conventions (``-s,0`` inserts after base line ``s``; a
pure deletion marks new line ``max(n, 1)``), so the engine sees what the readers give it. Python
by default: JavaScript and TypeScript extraction lives in ``proximity.sources``, whose tests
pass it as ``extract``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from difflib import SequenceMatcher
from typing import Any

from proximity.engine.airspace import scan
from proximity.engine.imports import build_resolver
from proximity.engine.symbols import (
    FileChanges,
    FileSymbols,
    SymbolData,
    SymbolIndex,
    extract_python_symbols,
    file_changes,
    symbol_data,
)

__all__ = ["Extract", "Scenario", "hunks"]

Extract = Callable[..., FileSymbols]
"""``extract(text, detail=False)``: one file's symbols."""

NOW = "2026-12-01T12:00:00Z"


def hunks(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(base hunks, new-side line ranges) of ``old`` -> ``new``, as ``git diff -U0`` gives."""
    base, lines = [], []
    ops = SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        base.append((i1 + 1, i2 - i1) if i2 > i1 else (i1, 0))
        lines.append((j1 + 1, j2) if j2 > j1 else (max(j1, 1), max(j1, 1)))
    return base, lines


def _blob(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


class Scenario:
    """``base``: {path: text}; ``agents``: {agent: {path: new text, or None to delete}}."""

    def __init__(
        self,
        base: Mapping[str, str],
        agents: Mapping[str, Mapping[str, str | None]],
        extract: Extract = extract_python_symbols,
    ):
        self.base = dict(base)
        self.agents = {a: dict(files) for a, files in agents.items()}
        self.extract = extract
        files = {p: extract(t) for p, t in self.base.items()}
        self.index = SymbolIndex.build(
            files, {p: _blob(t) for p, t in self.base.items()}, build_resolver(list(base), {})
        )

    def changes(self, agent: str) -> list[FileChanges]:
        out = []
        for path, text in sorted(self.agents[agent].items()):
            old = self.base.get(path)
            base_hunks, lines = hunks(old or "", text or "")
            out.append(
                file_changes(
                    self.extract(old, detail=True) if old is not None else None,
                    self.extract(text, detail=True) if text is not None else None,
                    base_hunks=base_hunks if old is not None else [(0, 0)],
                    lines=lines,
                    path=path,
                )
            )
        return out

    def data(self) -> SymbolData:
        return symbol_data({a: self.changes(a) for a in self.agents}, self.index)

    def airspace(self) -> dict[str, Any]:
        agents = []
        for agent, files in self.agents.items():
            entries = []
            for path, text in sorted(files.items()):
                old = self.base.get(path)
                base_hunks, lines = hunks(old or "", text or "")
                entry: dict[str, Any] = {"path": path, "status": "M"}
                if old is None:
                    entry.update(status="A", baseHunks=[[0, 0]])
                    entry["lines"] = [[1, max(1, len((text or "").splitlines()))]]
                elif text is None:
                    entry.update(status="D", baseHunks=[[1, len(old.splitlines())]])
                else:
                    entry["baseHunks"] = [list(h) for h in base_hunks]
                    entry["lines"] = [list(r) for r in lines]
                entries.append(entry)
            agents.append({"agentId": agent, "files": entries})
        return {"agents": agents, "options": {"now": NOW}}

    def scan(self, profile: str = "radar-v1-symbols", *, symbols: bool = True) -> dict[str, Any]:
        result: dict[str, Any] = scan(
            self.airspace(), profile=profile, symbols=self.data() if symbols else None
        )
        return result

    def pair(self, profile: str = "radar-v1-symbols", *, symbols: bool = True) -> dict[str, Any]:
        """The one link between the two agents (all channels 0 gives an empty dict)."""
        result = self.scan(profile, symbols=symbols)
        flagged = {frozenset((a["a"], a["b"])): a for a in result["advisories"]}
        for link in result["links"]:
            found: dict[str, Any] = flagged.get(frozenset((link["a"], link["b"])), link)
            return found
        return {}
