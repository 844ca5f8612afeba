"""Turn parsed import sites into graph edges: one resolver per file set, per-language rules."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from proximity.engine.imports.goresolve import GoIndex, go_index, resolve_go
from proximity.engine.imports.jsresolve import CONFIG_NAMES, JsIndex, js_index, resolve_js
from proximity.engine.imports.model import EdgeFlags, ImportSite, ParsedImports
from proximity.engine.imports.pyresolve import PythonIndex, python_index, resolve_python

__all__ = ["Resolver", "build_resolver", "is_config", "resolve_file", "resolver_key"]

_CONFIGS = (*CONFIG_NAMES, "package.json", "go.mod")


def is_config(path: str) -> bool:
    """Files whose content changes how other files resolve (read whole, never parsed)."""
    return path.rsplit("/", 1)[-1] in _CONFIGS


@dataclass(frozen=True, slots=True)
class Resolver:
    """Indexes over one file set and its configs; ``key`` changes exactly when they change.

    ``memo`` remembers each (folder, language, site) resolution: every rule depends on the
    importer's folder only, and files of one folder import the same modules again and again.
    """

    key: str
    python: PythonIndex
    js: JsIndex
    go: GoIndex
    memo: dict[tuple[str, str, ImportSite], tuple[str, ...]] = field(default_factory=dict)


def _digest(files: list[str], configs: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for path in files:
        h.update(path.encode("utf-8", "surrogateescape") + b"\0")
    for path in sorted(configs):
        h.update(f"\1{path}\0{configs[path]}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def resolver_key(files: Iterable[str], configs: Mapping[str, str]) -> str:
    """The key :func:`build_resolver` would give, without building the indexes."""
    return _digest(sorted(files), configs)


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


def _resolve(resolver: Resolver, importer: str, language: str, site: ImportSite) -> tuple[str, ...]:
    if language == "python":
        return tuple(resolve_python(resolver.python, importer, site))
    if language == "go":
        return resolve_go(resolver.go, importer, site.target)
    found = resolve_js(resolver.js, importer, site.target)
    return (found,) if found else ()


def _targets(resolver: Resolver, importer: str, language: str, site: ImportSite) -> tuple[str, ...]:
    folder = importer.rsplit("/", 1)[0] if "/" in importer else ""
    plain = ImportSite(site.target, site.level, site.names)  # flags do not change targets
    key = (folder, language, plain)
    found = resolver.memo.get(key)
    if found is None:
        found = resolver.memo[key] = _resolve(resolver, importer, language, plain)
    return found


def resolve_file(resolver: Resolver, importer: str, parsed: ParsedImports) -> dict[str, EdgeFlags]:
    """``{imported file: flags}`` for one importer; self-edges dropped, sites combined.

    Flags combine with :meth:`EdgeFlags.combine`: an edge is type-only only if every site
    that produced it is.
    """
    edges: dict[str, EdgeFlags] = {}
    for site in parsed.sites:
        flags = EdgeFlags.of(site)
        for target in _targets(resolver, importer, parsed.language, site):
            if target == importer:
                continue
            edges[target] = edges[target].combine(flags) if target in edges else flags
    return edges
