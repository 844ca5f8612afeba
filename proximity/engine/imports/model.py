"""Records shared by the import parsers, resolvers and the graph builder."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "PARSE_VERSION",
    "EdgeFlags",
    "ImportGraph",
    "ImportSite",
    "ParsedImports",
    "language_of",
]

PARSE_VERSION = 1
"""Bumped whenever a parser's output changes, so cached parses of old versions are not reused."""

_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
}


def language_of(path: str) -> str | None:
    """The parser a path needs, from its extension; ``None`` for files that import nothing."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return _LANGUAGES.get(path[dot:])


@dataclass(frozen=True, slots=True)
class ImportSite:
    """One import as written, before resolution to a file.

    ``target`` is the dotted module without leading dots (Python), the specifier (JS/TS) or the
    import path (Go). ``level`` is Python's relative level and ``names`` the names of a
    ``from ... import`` (any of them may be a submodule). Flags: ``conditional`` (under
    ``if``/``try``/loops or inside a function: may not run), ``type_only`` (``TYPE_CHECKING``,
    ``import type``: no runtime coupling), ``dynamic`` (``importlib``, ``import()``).
    """

    target: str
    level: int = 0
    names: tuple[str, ...] = ()
    conditional: bool = False
    type_only: bool = False
    dynamic: bool = False


@dataclass(frozen=True, slots=True)
class ParsedImports:
    """A file's import sites; picklable so a Django cache can hold it (keyed by blob hash)."""

    language: str
    sites: tuple[ImportSite, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class EdgeFlags:
    """Flags of one importer -> imported edge: set only when *every* import site has it.

    A file that imports a module both under ``TYPE_CHECKING`` and at run time is coupled at run
    time, so the weakest claim wins when sites are combined.
    """

    conditional: bool = False
    type_only: bool = False
    dynamic: bool = False

    @classmethod
    def of(cls, site: ImportSite) -> EdgeFlags:
        return cls(site.conditional, site.type_only, site.dynamic)

    def combine(self, other: EdgeFlags) -> EdgeFlags:
        return EdgeFlags(
            self.conditional and other.conditional,
            self.type_only and other.type_only,
            self.dynamic and other.dynamic,
        )

    def names(self) -> list[str]:
        return [n for n in ("conditional", "type_only", "dynamic") if getattr(self, n)]


@dataclass(frozen=True)
class ImportGraph:
    """Whole-repository import graph with per-edge flags and parse bookkeeping.

    ``edges[importer][imported]`` are the flags; ``parsed`` and ``reused`` list the source files
    parsed in this build and those whose parse came from the cache (by blob hash), which is how
    a caller proves an incremental rescan re-parsed one file. ``blobs`` maps each scanned path
    to its blob hash. ``state`` carries resolver indexes between builds and is not compared.
    """

    edges: Mapping[str, Mapping[str, EdgeFlags]]
    files: tuple[str, ...]
    blobs: Mapping[str, str]
    parsed: tuple[str, ...] = ()
    reused: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    state: Any = field(default=None, compare=False, repr=False)

    @property
    def adjacency(self) -> dict[str, list[str]]:
        """``{importer: [imported, ...]}`` sorted, every scanned file present as a key."""
        return {f: sorted(self.edges.get(f, {})) for f in self.files}

    def edge_count(self) -> int:
        return sum(len(t) for t in self.edges.values())

    def distances(self, among: Iterable[str], cap: int = 2) -> dict[tuple[str, str], int]:
        """Undirected import distances up to ``cap`` between distinct files of ``among``:
        what the dependency channel reads, so two graphs that agree here score alike."""
        links: dict[str, set[str]] = {}
        for src, targets in self.edges.items():
            for dst in targets:
                if src != dst:
                    links.setdefault(src, set()).add(dst)
                    links.setdefault(dst, set()).add(src)
        wanted = set(among)
        out: dict[tuple[str, str], int] = {}
        for start in sorted(wanted & links.keys()):
            seen, frontier = {start: 0}, [start]
            for step in range(1, cap + 1):
                frontier = [n for f in frontier for n in links[f] if n not in seen]
                seen.update(dict.fromkeys(frontier, step))
            out.update({(start, t): d for t, d in seen.items() if t in wanted and t != start})
        return out

    def to_json(self, *, with_flags: bool = False) -> dict[str, Any]:
        """The engine's ``graph`` input: ``{"adjacency": {...}}`` (plus ``edgeFlags`` if asked)."""
        out: dict[str, Any] = {"adjacency": self.adjacency}
        if with_flags:
            out["edgeFlags"] = {
                a: {b: flags.names() for b, flags in sorted(t.items()) if flags.names()}
                for a, t in sorted(self.edges.items())
                if any(flags.names() for flags in t.values())
            }
        return out
