"""Read every worktree of a repository into the symbol channel's input.

For each worktree: its working set (hunks on both sides, against ``merge-base(base, HEAD)``),
the base version of each changed source file from git's object store and the worktree version
from disk, both extracted in detail, then classified (:func:`~proximity.engine.symbols.
file_changes`) and resolved against the merge base's symbol index. Indexes are kept per
(repository, commit) in this process, and a new commit's index is built incrementally from the
last one. Everything is read-only: git's object store and the worktree files, never an index
or a ref.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from threading import Lock

from proximity.engine.imports import language_of
from proximity.engine.symbols import (
    FileChanges,
    FileSymbols,
    SymbolData,
    SymbolIndex,
    agent_side,
    file_changes,
    symbol_data_to_json,
    with_neighbours,
)
from proximity.sources.git import GitError, WorkingFile, WorkingSet, read_working_sets
from proximity.sources.radar_files import repository_ignore_globs
from proximity.sources.symbols.index import (
    SHARED_CACHE,
    SYMBOL_LANGUAGES,
    build_symbol_index,
    extract_symbols,
    read_blobs,
    symbol_cache_key,
)

__all__ = [
    "SymbolRead",
    "changes_from_blobs",
    "clear_index_cache",
    "detailed_symbols",
    "index_for",
    "read_symbol_data",
    "worktree_changes",
]

_INDEXES: OrderedDict[tuple[str, str], SymbolIndex] = OrderedDict()
_LATEST: dict[str, SymbolIndex] = {}
_LOCK = Lock()
_KEEP = 4  # indexes per process: a few base commits of a few repositories


@dataclass(frozen=True)
class SymbolRead:
    """The channel input, the merge bases it was read against, and each reader's complaints."""

    data: SymbolData
    bases: tuple[str, ...]
    problems: tuple[str, ...]
    indexed: tuple[str, ...] | None = None
    """The base files indexed, when the index is bounded (the agent side's reader)."""

    def digest(self) -> str:
        """Changes when the channel's input changes (for a scan's idempotency key)."""
        text = json.dumps(symbol_data_to_json(self.data), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def clear_index_cache() -> None:
    with _LOCK:
        _INDEXES.clear()
        _LATEST.clear()


def index_for(
    repo: str | Path, commit: str, *, cache: MutableMapping[str, FileSymbols] | None = None
) -> SymbolIndex:
    """The index of ``commit``, from this process's cache or built from the repository's last.

    Built under a lock: two scans of one repository in one process build it once.
    """
    root = str(Path(repo).resolve())
    with _LOCK:
        hit = _INDEXES.get((root, commit))
        if hit is not None:
            _INDEXES.move_to_end((root, commit))
            return hit
        index = build_symbol_index(repo, commit, cache=cache, previous=_LATEST.get(root))
        _INDEXES[(root, commit)] = _LATEST[root] = index
        while len(_INDEXES) > _KEEP:
            _INDEXES.popitem(last=False)
        return index


def detailed_symbols(
    data: bytes | None, language: str, key: str, cache: MutableMapping[str, FileSymbols]
) -> FileSymbols | None:
    """A file version's detailed symbols, memoised by ``key`` (its content and language)."""
    if data is None:
        return None
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = extract_symbols(data, language, detail=True)
    return hit


def _base_path(f: WorkingFile) -> str:
    return f.old_path if f.status in ("R", "C") and f.old_path else f.path


def worktree_changes(
    ws: WorkingSet,
    index: SymbolIndex,
    repo: str | Path,
    *,
    cache: MutableMapping[str, FileSymbols] | None = None,
) -> tuple[list[FileChanges], list[str]]:
    """The symbol changes of one working set's source files, and the problems met."""
    return changes_from_blobs(ws, index.blobs, repo, cache=cache)


def _read_whole(path: Path) -> bytes | None:
    return path.read_bytes()


def changes_from_blobs(
    ws: WorkingSet,
    blobs: Mapping[str, str],
    repo: str | Path,
    *,
    cache: MutableMapping[str, FileSymbols] | None = None,
    languages: frozenset[str] = SYMBOL_LANGUAGES,
    read: Callable[[Path], bytes | None] = _read_whole,
) -> tuple[list[FileChanges], list[str]]:
    """:func:`worktree_changes` against the base listing ``blobs`` (``{path: blob}``), for the
    source files in ``languages``; ``read`` reads a worktree file (``None``: too large, the
    file is left out with a problem)."""
    cache = SHARED_CACHE if cache is None else cache
    wanted = [
        f
        for f in ws.files
        if not f.binary
        and language_of(_base_path(f)) in languages
        and language_of(f.path) in languages
    ]
    base_blobs = {f.path: blobs.get(_base_path(f)) for f in wanted if f.status != "A"}
    # A blob whose extraction is cached is not read again: a repeated read starts no git.
    unread = [
        b
        for p, b in base_blobs.items()
        if b and symbol_cache_key(b, language_of(p) or "python", detail=True) not in cache
    ]
    contents = read_blobs(repo, unread)
    out, problems = [], []
    for f in wanted:
        language = language_of(f.path) or "python"
        blob = base_blobs.get(f.path)
        key = symbol_cache_key(blob or "", language, detail=True)
        # a cached blob was not read: its extraction is the cache's
        base = (cache.get(key) if blob else None) or detailed_symbols(
            contents.get(blob) if blob else None, language, key, cache
        )
        head_bytes: bytes | None = None
        if f.status != "D":
            try:
                head_bytes = read(Path(ws.path) / f.path)
            except OSError as exc:
                problems.append(f"{ws.agent_id}: {f.path} unreadable ({exc.strerror or exc})")
                continue
            if head_bytes is None:
                problems.append(f"{ws.agent_id}: {f.path} not read (too large or not a file)")
                continue
        digest = hashlib.sha1(head_bytes or b"", usedforsecurity=False).hexdigest()
        head = detailed_symbols(
            head_bytes, language, symbol_cache_key(digest, language, detail=True), cache
        )
        problems += [
            f"{ws.agent_id}: {f.path}: {version.error}"
            for version in (base, head)
            if version is not None and version.error
        ]
        out.append(
            file_changes(
                base,
                head,
                base_hunks=f.base_hunks,
                lines=f.lines,
                path=f.path,
                base_path=_base_path(f),
            )
        )
    return out, problems


def read_symbol_data(
    repo: str | Path,
    *,
    base: str = "main",
    agents: Iterable[str] | None = None,
    cache: MutableMapping[str, FileSymbols] | None = None,
    max_distance: int = 2,
) -> SymbolRead:
    """Symbol input for the worktrees of ``repo`` (only ``agents``, when given).

    A worktree that cannot be read (no merge base, missing directory) is left out: its agent
    has no symbol data, which the channel reports as unknown. Agents forked from different
    merge bases are each resolved against their own base's index; neighbours come from the
    index most of them share.

    Raises :class:`~proximity.sources.git.GitError` only when ``repo`` is not a repository.
    """
    wanted = None if agents is None else set(agents)
    ignore = repository_ignore_globs(str(repo), base=base)  # the watcher's working sets, too
    sets = [
        ws
        for ws in read_working_sets(repo, base=base, ignore=ignore)
        if wanted is None or ws.agent_id in wanted
    ]
    problems = [e for ws in sets for e in ws.errors]
    readable = [ws for ws in sets if ws.merge_base is not None]
    sides, bases = {}, Counter(ws.merge_base for ws in readable)
    indexes: dict[str, SymbolIndex] = {}
    for ws in readable:
        commit = ws.merge_base or ""
        try:
            if commit not in indexes:
                indexes[commit] = index_for(repo, commit, cache=cache)
            changes, trouble = worktree_changes(ws, indexes[commit], repo, cache=cache)
        except GitError as exc:
            problems.append(f"{ws.agent_id}: symbols not read ({exc.problem})")
            continue
        problems += trouble
        sides[ws.agent_id] = agent_side(changes, indexes[commit])
    if not indexes:
        return SymbolRead(SymbolData({}), (), tuple(problems))
    common = max(indexes, key=lambda c: (bases[c], c))
    data = with_neighbours(sides, indexes[common], max_distance=max_distance)
    return SymbolRead(data, tuple(sorted(indexes)), tuple(problems))
