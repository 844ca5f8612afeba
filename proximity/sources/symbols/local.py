"""The symbol channel's input on the agent side: the worktrees of this machine, bounded.

A pre-edit hook cannot build the symbol index of a whole commit (seconds on a large tree), so
this reader indexes only what the channel can use: the files the worktrees changed, the files
those import, and the files that mention a changed definition's name at the merge base
(``git grep -l -w``), at most :data:`MAX_INDEX_FILES` of them. Base versions come from git's
object store (``git cat-file --batch``), current ones from the worktree within
:data:`~proximity.sources.limits.MAX_READ_BYTES`. Python is extracted by the engine (stdlib
:mod:`ast`); JavaScript/TypeScript only when tree-sitter is importable, else those files are
left out (their channel is 0, as with no symbol data). Extractions are cached by blob id in
:data:`LOCAL_CACHE`, a bounded process-wide mapping the daemon keeps warm, so a repeated check
costs lookups. Read-only, like every reader here.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections import Counter
from collections.abc import Iterable, MutableMapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from proximity.engine.imports import (
    ParsedImports,
    Resolver,
    language_of,
    resolve_file,
)
from proximity.engine.symbols import (
    FileChanges,
    FileSymbols,
    SymbolData,
    SymbolIndex,
    SymbolSide,
    agent_side,
    with_neighbours,
)
from proximity.sources.git import GitError, WorkingSet
from proximity.sources.git._run import git
from proximity.sources.limits import read_bounded
from proximity.sources.memo import file_state
from proximity.sources.symbols.index import (
    COMMIT_BASES,
    BoundedCache,
    commit_base,
    extract_symbols,
    read_blobs,
    symbol_cache_key,
)
from proximity.sources.symbols.read import SymbolRead, changes_from_blobs

__all__ = [
    "LOCAL_CACHE",
    "MAX_GREP_NAMES",
    "MAX_INDEX_FILES",
    "clear_local_cache",
    "local_languages",
    "local_symbols",
]

MAX_INDEX_FILES = 400
"""The most base files one read indexes (changed files first, then imported, then mentions)."""
MAX_GREP_NAMES = 64
"""The most changed names searched for at the base (the rest reach their users by imports)."""

LOCAL_CACHE: BoundedCache[str, FileSymbols] = BoundedCache(20_000)
"""Extractions by blob id (and language, version, detail): a few repositories' working sets
and their neighbourhoods; least recently used first out."""

_KEEP_CHANGES = 256  # working sets: a few repositories' agents, each a few versions back
_KEEP_INDEXES = 16
_INDEXES: BoundedCache[tuple[str, str, tuple[str, ...]], SymbolIndex] = BoundedCache(_KEEP_INDEXES)
_MENTIONS: BoundedCache[tuple[str, str, tuple[str, ...], int], list[str]] = BoundedCache(
    _KEEP_INDEXES
)
_CHANGES: BoundedCache[str, tuple[list[FileChanges], list[str]]] = BoundedCache(_KEEP_CHANGES)
_SIDES: BoundedCache[tuple[str, str], SymbolSide] = BoundedCache(_KEEP_CHANGES)
_RESULTS: BoundedCache[tuple[Any, ...], tuple[int, SymbolRead]] = BoundedCache(_KEEP_INDEXES)
_LANGUAGES: frozenset[str] | None = None
_JS = frozenset({"javascript", "typescript", "tsx"})
_SOURCE_GLOBS = ("*.py", "*.pyi", "*.js", "*.jsx", "*.mjs", "*.cjs", "*.ts", "*.tsx", "*.mts")


def clear_local_cache() -> None:
    """Forget every extraction and memo of this process (a cold read, for tests and bench/)."""
    for memo in (LOCAL_CACHE, COMMIT_BASES, _INDEXES, _MENTIONS, _CHANGES, _SIDES, _RESULTS):
        memo.clear()


def local_languages() -> frozenset[str]:
    """Python always; JavaScript/TypeScript when tree-sitter can be imported here."""
    global _LANGUAGES
    if _LANGUAGES is None:
        has_ts = importlib.util.find_spec("tree_sitter") is not None
        _LANGUAGES = frozenset({"python"}) | (_JS if has_ts else frozenset())
    return _LANGUAGES


def _imported(resolver: Resolver, changes: Iterable[FileChanges]) -> list[str]:
    """Files the changed files import, in either version."""
    out: dict[str, None] = {}
    for fc in changes:
        for path, version in ((fc.base_path, fc.base), (fc.path, fc.head)):
            if version is None:
                continue
            sites = tuple(b.site for b in version.bindings) + version.stars
            parsed = ParsedImports(version.language, sites)
            out.update(dict.fromkeys(sorted(resolve_file(resolver, path, parsed))))
    return list(out)


def _changed_names(changes: Iterable[FileChanges]) -> list[str]:
    names: dict[str, None] = {}
    for fc in changes:
        for c in fc.definitions:
            if c.changes != ("added",):
                name = c.qualname.rsplit(".", 1)[-1]
                if len(name) > 2 and not (name.startswith("__") and name.endswith("__")):
                    names[name] = None
    return list(names)


def _mentions(repo: str, commit: str, names: Sequence[str], limit: int) -> list[str]:
    """Source files at ``commit`` that mention one of ``names`` as a word, at most ``limit``.

    A commit never changes, so the answer is kept per (repository, commit, names, limit)."""
    if not names or limit <= 0:
        return []
    wanted = tuple(sorted(names[:MAX_GREP_NAMES]))
    key = (repo, commit, wanted, limit)
    hit = _MENTIONS.get(key)
    if hit is not None:
        return hit
    found = _grep(repo, commit, wanted, limit)
    _MENTIONS[key] = found
    return found


def _grep(repo: str, commit: str, names: Sequence[str], limit: int) -> list[str]:
    args = ["grep", "-l", "-w", "-F", "--no-color"]
    for name in names:
        args += ["-e", name]
    _, out = git(repo, [*args, commit, "--", *_SOURCE_GLOBS], ok_codes=(0, 1))
    prefix = f"{commit}:"
    found = []
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        found.append(line[len(prefix) :] if line.startswith(prefix) else line)
        if len(found) >= limit:
            break
    return found


def _index(
    repo: str,
    commit: str,
    paths: Sequence[str],
    files: dict[str, str],
    resolver: Resolver,
    cache: MutableMapping[str, FileSymbols],
) -> SymbolIndex:
    key = (repo, commit, tuple(paths))
    hit = _INDEXES.get(key)
    if hit is not None:
        return hit
    sources = {p: lang for p in paths if (lang := language_of(p)) is not None}
    missing = [files[p] for p in sources if symbol_cache_key(files[p], sources[p]) not in cache]
    contents = read_blobs(repo, missing)
    extracted: dict[str, FileSymbols] = {}
    for path, language in sources.items():
        cache_key = symbol_cache_key(files[path], language)
        found = cache.get(cache_key)
        if found is None:
            data = contents.get(files[path])
            if data is None:
                continue
            found = cache[cache_key] = extract_symbols(data, language)
        extracted[path] = found
    blobs = {p: files[p] for p in extracted}
    index = SymbolIndex.build(extracted, blobs, resolver)
    _INDEXES[key] = index
    return index


def _key(ws: WorkingSet, files: dict[str, str], languages: frozenset[str]) -> str:
    """A digest of everything one working set's symbol changes depend on: each source file's
    path, status, hunks and base blob, and the current file's status on disk."""
    digest = hashlib.sha1(usedforsecurity=False)
    for f in ws.files:
        if f.binary or language_of(f.path) not in languages:
            continue
        here = file_state(Path(ws.path) / f.path) if f.status != "D" else "deleted"
        base = files.get(f.old_path or f.path) or ""
        digest.update(
            repr((f.path, f.old_path, f.status, f.base_hunks, f.lines, base, here)).encode()
        )
    return f"{ws.agent_id}:{ws.merge_base}:{digest.hexdigest()}"


def _prefetch(
    group: Sequence[WorkingSet],
    keys: dict[str, str],
    files: dict[str, str],
    root: str,
    cache: MutableMapping[str, FileSymbols],
    languages: frozenset[str],
) -> None:
    """Extract every base version the working sets not yet kept will need, read through one
    ``git cat-file --batch`` for all of them (not one per worktree)."""
    wanted: dict[str, str] = {}
    for ws in group:
        if keys.get(ws.agent_id) in _CHANGES:
            continue
        for f in ws.files:
            path = f.old_path if f.status in ("R", "C") and f.old_path else f.path
            language = language_of(path)
            blob = files.get(path)
            if f.binary or f.status == "A" or language not in languages or not blob:
                continue
            if symbol_cache_key(blob, language, detail=True) not in cache:
                wanted[blob] = language
    contents = read_blobs(root, list(wanted))
    for blob, language in wanted.items():
        if blob in contents:
            key = symbol_cache_key(blob, language, detail=True)
            cache[key] = extract_symbols(contents[blob], language, detail=True)


def _changes(
    ws: WorkingSet,
    key: str,
    files: dict[str, str],
    root: str,
    cache: MutableMapping[str, FileSymbols],
    languages: frozenset[str],
) -> tuple[list[FileChanges], list[str]]:
    """``(changes, problems)`` of one working set, kept by its :func:`_key`: an unchanged
    worktree's changes are a lookup, with no file read."""
    hit = _CHANGES.get(key)
    if hit is not None:
        return hit

    found, trouble = changes_from_blobs(
        ws, files, root, cache=cache, languages=languages, read=read_bounded
    )
    _CHANGES[key] = (found, trouble)
    return found, trouble


def _side(
    key: str, changes: list[FileChanges], index: SymbolIndex, paths: Sequence[str]
) -> SymbolSide:
    """One agent's side, kept per (changes, index): the index is fixed by its base and files."""
    memo_key = (key, hashlib.sha1("\0".join(paths).encode(), usedforsecurity=False).hexdigest())
    hit = _SIDES.get(memo_key)
    if hit is not None:
        return hit
    side = agent_side(changes, index)
    _SIDES[memo_key] = side
    return side


def local_symbols(
    repo: str | Path,
    sets: Sequence[WorkingSet],
    *,
    cache: MutableMapping[str, FileSymbols] | None = None,
    max_files: int = MAX_INDEX_FILES,
    max_distance: int = 2,
) -> SymbolRead:
    """Symbol input for the working sets ``sets`` (as :func:`~proximity.sources.git.
    read_working_sets` read them from ``repo``), against a bounded index of each merge base.

    A working set without a merge base, or whose files cannot be read from git, is left out
    (its agent has no symbol data: the channel reports it unknown, never clear).
    """
    root = str(Path(repo).resolve())
    cache = LOCAL_CACHE if cache is None else cache
    languages = local_languages()
    problems = [e for ws in sets for e in ws.errors]
    by_base: dict[str, list[WorkingSet]] = {}
    for ws in sets:
        if ws.merge_base is not None:
            by_base.setdefault(ws.merge_base, []).append(ws)
    bases: dict[str, tuple[dict[str, str], Resolver]] = {}
    keys: dict[str, str] = {}
    for commit, group in sorted(by_base.items()):
        try:
            bases[commit] = commit_base(root, commit)
        except GitError as exc:
            problems += [f"{ws.agent_id}: symbols not read ({exc.problem})" for ws in group]
            continue
        keys.update((ws.agent_id, _key(ws, bases[commit][0], languages)) for ws in group)
    # Nothing any working set depends on changed: the last answer is this one.
    memo_key = (root, tuple(sorted(keys.items())), max_files, max_distance, languages)
    hit = _RESULTS.get(memo_key)
    if hit is not None and id(cache) == hit[0]:
        read = hit[1]
        return replace(read, problems=tuple(dict.fromkeys([*problems, *read.problems])))
    sides = {}
    indexes: dict[str, SymbolIndex] = {}
    indexed: set[str] = set()
    for commit, (files, resolver) in bases.items():
        group = by_base[commit]
        try:
            changes: dict[str, list[FileChanges]] = {}
            _prefetch(group, keys, files, root, cache, languages)
            for ws in group:
                found, trouble = _changes(ws, keys[ws.agent_id], files, root, cache, languages)
                changes[ws.agent_id] = found
                problems += trouble
            every = [fc for found in changes.values() for fc in found]
            wanted = dict.fromkeys(fc.base_path for fc in every if fc.base_path in files)
            wanted.update(dict.fromkeys(p for p in _imported(resolver, every) if p in files))
            room = max_files - len(wanted)
            wanted.update(dict.fromkeys(_mentions(root, commit, _changed_names(every), room)))
            paths = sorted(
                p for p in list(wanted)[:max_files] if p in files and language_of(p) in languages
            )
            index = indexes[commit] = _index(root, commit, paths, files, resolver, cache)
            indexed.update(paths)
        except GitError as exc:
            problems += [f"{ws.agent_id}: symbols not read ({exc.problem})" for ws in group]
            continue
        for ws in group:
            sides[ws.agent_id] = _side(keys[ws.agent_id], changes[ws.agent_id], index, paths)
    if not indexes:
        return SymbolRead(SymbolData({}), (), tuple(problems))
    counts = Counter({c: len(by_base[c]) for c in indexes})
    common = max(indexes, key=lambda c: (counts[c], c))
    data = with_neighbours(sides, indexes[common], max_distance=max_distance)
    read = SymbolRead(data, tuple(sorted(indexes)), tuple(problems), tuple(sorted(indexed)))
    _RESULTS[memo_key] = (id(cache), read)
    return read
