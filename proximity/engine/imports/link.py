"""Turn parsed import sites into graph edges: one resolver per file set, per-language rules."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from proximity.engine.imports.goresolve import GoIndex, go_index, resolve_go
from proximity.engine.imports.jsresolve import CONFIG_NAMES, JsIndex, js_index, resolve_js
from proximity.engine.imports.model import EdgeFlags, ParsedImports
from proximity.engine.imports.pyresolve import PythonIndex, python_index, resolve_python

__all__ = ["Resolver", "build_resolver", "is_config", "resolve_file"]

_CONFIGS = (*CONFIG_NAMES, "package.json", "go.mod")


def is_config(path: str) -> bool:
    """Files whose content changes how other files resolve (read whole, never parsed)."""
    return path.rsplit("/", 1)[-1] in _CONFIGS


@dataclass(frozen=True, slots=True)
class Resolver:
    """Indexes over one file set and its configs; ``key`` changes exactly when they change."""

    key: str
    python: PythonIndex
    js: JsIndex
    go: GoIndex


def _digest(files: list[str], configs: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for path in files:
        h.update(path.encode("utf-8", "surrogateescape") + b"\0")
    for path in sorted(configs):
        h.update(f"\1{path}\0{configs[path]}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def build_resolver(files: Iterable[str], configs: Mapping[str, str]) -> Resolver:
    """Index ``files`` (repository-relative POSIX paths) with config texts by path."""
    ordered = sorted(files)
    frozen = frozenset(ordered)
    return Resolver(
        _digest(ordered, configs),
        python_index(ordered),
        js_index(frozen, configs),
        go_index(ordered, configs),
    )


def _targets(resolver: Resolver, importer: str, parsed: ParsedImports, i: int) -> list[str]:
    site = parsed.sites[i]
    if parsed.language == "python":
        return resolve_python(resolver.python, importer, site)
    if parsed.language == "go":
        return list(resolve_go(resolver.go, importer, site.target))
    found = resolve_js(resolver.js, importer, site.target)
    return [found] if found else []


def resolve_file(resolver: Resolver, importer: str, parsed: ParsedImports) -> dict[str, EdgeFlags]:
    """``{imported file: flags}`` for one importer; self-edges dropped, sites combined.

    Flags combine with :meth:`EdgeFlags.combine`: an edge is type-only only if every site
    that produced it is.
    """
    edges: dict[str, EdgeFlags] = {}
    for i, site in enumerate(parsed.sites):
        flags = EdgeFlags.of(site)
        for target in _targets(resolver, importer, parsed, i):
            if target == importer:
                continue
            edges[target] = edges[target].combine(flags) if target in edges else flags
    return edges
