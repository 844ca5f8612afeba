"""Build the whole-repository import graph, re-parsing only content not seen before.

Parse results are cached by blob hash in an injectable mapping (a plain dict by default; the
Django layer can pass a cache-backed mapping). Resolution indexes are rebuilt only when the set
of paths or a config file (tsconfig/jsconfig/package.json/go.mod) changes; otherwise the edges
of every file whose blob is unchanged are carried over from ``previous``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path

from proximity.engine.imports import (
    PARSE_VERSION,
    EdgeFlags,
    ImportGraph,
    ParsedImports,
    Resolver,
    build_resolver,
    is_config,
    language_of,
    resolve_file,
    resolver_key,
)
from proximity.sources.imports.bounded import parse_file_bounded, parse_source
from proximity.sources.imports.walk import RepoFiles, list_repository_files

__all__ = ["build_import_graph", "cache_key", "merge_graphs", "parse_source"]


def cache_key(blob: str, language: str) -> str:
    """``<blob hash>:<language>:v<PARSE_VERSION>``: the same bytes parse differently as .py/.ts."""
    return f"{blob}:{language}:v{PARSE_VERSION}"


def _wanted(path: str) -> bool:
    return language_of(path) is not None or is_config(path)


def _configs(files: RepoFiles, errors: list[str]) -> dict[str, str]:
    texts = {}
    for path in files.paths:
        if is_config(path):
            try:
                texts[path] = (files.root / path).read_text("utf-8", "replace")
            except OSError as exc:
                errors.append(f"{files.root / path}: unreadable ({exc.strerror or exc})")
    return texts


def _parse_all(
    files: RepoFiles,
    sources: dict[str, str],
    cache: MutableMapping[str, ParsedImports],
    errors: list[str],
) -> tuple[dict[str, ParsedImports], list[str], list[str]]:
    """Parse each ``{path: language}`` source not already in ``cache`` under its blob key.

    Bounded per file (``bounded.py``); a refusal or a failure is cached like a parse, so the
    file is tried again only once its blob changes."""
    parsed, fresh, reused = {}, [], []
    for path, language in sources.items():
        key = cache_key(files.blobs[path], language)
        hit = cache.get(key)
        if hit is None:
            try:
                hit = parse_file_bounded(files.root / path, language)
            except OSError as exc:
                errors.append(f"{files.root / path}: unreadable ({exc.strerror or exc})")
                continue
            cache[key] = hit
            fresh.append(path)
        else:
            reused.append(path)
        if hit.error:
            errors.append(f"{path}: {hit.error}")
        parsed[path] = hit
    return parsed, fresh, reused


def _resolver(
    paths: tuple[str, ...], configs: dict[str, str], previous: ImportGraph | None
) -> Resolver:
    """The previous build's resolver when no path or config changed (its memo stays valid)."""
    state = None if previous is None else previous.state
    if isinstance(state, Resolver) and state.key == resolver_key(paths, configs):
        return state
    return build_resolver(paths, configs)


def _edges(
    resolver: Resolver,
    parsed: Mapping[str, ParsedImports],
    blobs: Mapping[str, str],
    previous: ImportGraph | None,
) -> dict[str, Mapping[str, EdgeFlags]]:
    """Resolve each file, carrying over edges of unchanged blobs when the resolver is reused."""
    old: Mapping[str, Mapping[str, EdgeFlags]] = {}
    old_blobs: Mapping[str, str] = {}
    if previous is not None and previous.state is resolver:
        old, old_blobs = previous.edges, previous.blobs
    edges: dict[str, Mapping[str, EdgeFlags]] = {}
    for path, imports in parsed.items():
        if path in old and old_blobs.get(path) == blobs[path]:
            edges[path] = old[path]  # shared between graphs, never mutated
        else:
            edges[path] = resolve_file(resolver, path, imports)
    return edges


def build_import_graph(
    repo: str | Path,
    *,
    cache: MutableMapping[str, ParsedImports] | None = None,
    previous: ImportGraph | None = None,
) -> ImportGraph:
    """Import graph of every Python/JS/TS/Go file in the worktree at ``repo``.

    Parameters
    ----------
    repo
        Any folder inside a git worktree; the worktree's current files are read (tracked,
        modified and untracked-not-ignored).
    cache
        ``{cache_key(blob, language): ParsedImports}``; pass the same mapping between builds
        (default: a fresh dict, so nothing is reused).
    previous
        The last graph of the same worktree; its resolver and edges are reused when nothing
        that affects resolution changed.
    """
    cache = {} if cache is None else cache
    files = list_repository_files(repo, wanted=_wanted)
    errors: list[str] = []
    configs = _configs(files, errors)
    sources = {
        p: lang
        for p in files.blobs
        if (lang := language_of(p)) is not None and p not in files.symlinks
    }
    parsed, fresh, reused = _parse_all(files, sources, cache, errors)
    resolver = _resolver(files.paths, configs, previous)
    edges = _edges(resolver, parsed, files.blobs, previous)
    blobs = {p: files.blobs[p] for p in parsed}
    order = tuple(sorted(parsed))
    return ImportGraph(edges, order, blobs, tuple(fresh), tuple(reused), tuple(errors), resolver)


def merge_graphs(graphs: Iterable[ImportGraph]) -> ImportGraph:
    """Union of several worktrees' graphs (a file added in one worktree brings its edges)."""
    edges: dict[str, dict[str, EdgeFlags]] = {}
    blobs: dict[str, str] = {}
    errors: list[str] = []
    for graph in graphs:
        blobs.update(graph.blobs)
        errors.extend(graph.errors)
        for src, targets in graph.edges.items():
            mine = edges.setdefault(src, {})
            for dst, flags in targets.items():
                mine[dst] = mine[dst].combine(flags) if dst in mine else flags
    return ImportGraph(edges, tuple(sorted(edges)), blobs, errors=tuple(dict.fromkeys(errors)))
