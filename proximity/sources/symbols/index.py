"""Build the symbol index of a commit: files from git's object store, extraction cached by blob.

Reads never touch a worktree, index or ref: ``git ls-tree`` lists the commit's files and one
``git cat-file --batch`` process streams the blobs not already extracted. Extractions live in an
injectable mapping keyed by ``<blob>:<language>:s<EXTRACT_VERSION>`` (a process-wide bounded
dict by default), so a later commit re-extracts only the blobs it changed, and ``previous``
(the index of an earlier commit of the same repository) lets linking carry over every file
whose imports read nothing that changed.
"""

from __future__ import annotations

import gc
from collections.abc import MutableMapping
from pathlib import Path

from proximity.engine.imports import build_resolver, is_config, language_of, resolver_key
from proximity.engine.imports.link import Resolver
from proximity.engine.symbols import EXTRACT_VERSION, FileSymbols, SymbolIndex
from proximity.engine.symbols.python import extract_python_symbols
from proximity.sources.git._run import GitError
from proximity.sources.git.objects import COMMIT_BASES, commit_base, commit_files, read_blobs
from proximity.sources.memo import BoundedCache

__all__ = [
    "COMMIT_BASES",
    "SHARED_CACHE",
    "SYMBOL_LANGUAGES",
    "BoundedCache",
    "build_symbol_index",
    "commit_base",
    "commit_files",
    "extract_symbols",
    "read_blobs",
    "symbol_cache_key",
]

SYMBOL_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx"})


def extract_symbols(source: bytes, language: str, *, detail: bool = False) -> FileSymbols:
    """Python with :mod:`ast` (the engine's), JavaScript/TypeScript with tree-sitter.

    tree-sitter is imported on the first JavaScript/TypeScript file only: the agent side
    reads Python symbols without it (:mod:`.local`)."""
    if language == "python":
        return extract_python_symbols(source, detail=detail)
    from proximity.sources.symbols.treesitter import extract_tree_sitter_symbols

    return extract_tree_sitter_symbols(source, language, detail=detail)


def symbol_cache_key(blob: str, language: str, *, detail: bool = False) -> str:
    return f"{blob}:{language}:s{EXTRACT_VERSION}{'d' if detail else ''}"


SHARED_CACHE: BoundedCache[str, FileSymbols] = BoundedCache()
"""The default extraction cache of this process."""


def _resolver(paths: list[str], configs: dict[str, str], previous: SymbolIndex | None) -> Resolver:
    if previous is not None and previous.linker.resolver.key == resolver_key(paths, configs):
        return previous.linker.resolver
    return build_resolver(paths, configs)


def build_symbol_index(
    repo: str | Path,
    commit: str,
    *,
    cache: MutableMapping[str, FileSymbols] | None = None,
    previous: SymbolIndex | None = None,
) -> SymbolIndex:
    """The symbol index of ``commit`` (Python, JavaScript and TypeScript files).

    ``index.extracted`` lists the files this build extracted (their blobs were not cached)
    and ``index.relinked`` the files it linked.

    Raises :class:`~proximity.sources.git.GitError` when ``commit`` cannot be read.
    """
    cache = SHARED_CACHE if cache is None else cache
    # A cold build allocates hundreds of thousands of small acyclic records; the cyclic
    # collector would rescan the growing heap again and again (10-20 % of the build) and can
    # free none of them. Paused for the build only, restored even on error.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _build(repo, commit, cache, previous)
    finally:
        if paused:
            gc.enable()


def _build(
    repo: str | Path,
    commit: str,
    cache: MutableMapping[str, FileSymbols],
    previous: SymbolIndex | None,
) -> SymbolIndex:
    files = commit_files(repo, commit)
    sources = {p: lang for p in files if (lang := language_of(p)) in SYMBOL_LANGUAGES}
    config_paths = [p for p in files if is_config(p)]
    missing = {p: files[p] for p in sources if symbol_cache_key(files[p], sources[p]) not in cache}
    contents = read_blobs(repo, [*missing.values(), *(files[p] for p in config_paths)])
    configs = {
        p: contents[files[p]].decode("utf-8", "replace")
        for p in config_paths
        if files[p] in contents
    }
    extracted: dict[str, FileSymbols] = {}
    for path, language in sources.items():
        key = symbol_cache_key(files[path], language)
        if path in missing:
            data = contents.get(files[path])
            if data is None:
                raise GitError(repo, f"blob {files[path]} of {path} is missing")
            cache[key] = extract_symbols(data, language)
        extracted[path] = cache[key]
    resolver = _resolver(sorted(files), configs, previous)
    blobs = {p: files[p] for p in sources}
    return SymbolIndex.build(
        extracted, blobs, resolver, previous=previous, extracted=tuple(sorted(missing))
    )
