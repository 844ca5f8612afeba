"""The import edges one pre-edit check needs, read without the repository's whole graph.

The dependency channel asks whether a file of one agent and a file of another lie within the
profile's cap of each other in the undirected import graph of every worktree (the union that
:func:`~proximity.sources.git.airspace.read_repository_airspace` builds: seconds on a large
tree, too slow for a hook). With a cap of 2, which every profile but the reference's has, each
such path is ``a-b`` or ``a-x-b``, so every edge on it touches a file some worktree changed.
This reader builds exactly those edges, and the distances it gives between changed files, up
to 2, are the whole graph's:

- a file no worktree changed is its merge base's version everywhere, so the files that may
  import a changed file are found at each merge base in git's object store with ``git grep
  -w`` for the name an import of it must spell (its stem; its folder for an ``__init__`` or
  ``index`` file, and for a Go file, whose importers name the package folder), plus the files
  under a package's folder that import with dots alone (``from . import x``, ``'..'``). Those
  and the changed files' base versions are parsed (cached by blob) and resolved as each
  worktree resolves them: its added, deleted and renamed files and its configs make its own
  resolver;
- each worktree's current version of every file it changed is parsed and resolved with that
  worktree's resolver.

Limits (docs/DECISIONS.md, "The hook's dependency channel"): an import spelling neither the
file's nor its folder's name (a TypeScript ``paths`` alias or a workspace package named
unlike its folder) is not found; symbolic links are not parsed; at most :data:`MAX_NEAR_FILES`
files of one merge base are parsed, and a cut is reported. JavaScript, TypeScript and Go are
parsed only where tree-sitter is installed (the agent side's light core parses Python).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from proximity.engine.imports import (
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
from proximity.sources.git import GitError, WorkingSet
from proximity.sources.git._run import git
from proximity.sources.git.objects import COMMIT_CONFIGS, commit_base, commit_configs, read_blobs
from proximity.sources.imports.bounded import CHILD_PARSE_BYTES, parse_bytes_bounded
from proximity.sources.imports.graph import cache_key
from proximity.sources.limits import read_bounded
from proximity.sources.memo import BoundedCache, file_state

__all__ = ["MAX_NEAR_FILES", "clear_near_cache", "near_graph", "near_languages", "warm_near_graph"]

MAX_NEAR_FILES = 600
"""The most files of one merge base parsed for one read (changed files first)."""

_SOURCE_GLOBS = tuple(
    f"*{ext}"
    for ext in (".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".go")
)
_PACKAGE_FILES = ("__init__", "index")

_PARSED: BoundedCache[str, ParsedImports] = BoundedCache(20_000)
_GREPS: BoundedCache[tuple[object, ...], tuple[str, ...]] = BoundedCache(64)
_RESOLVERS: BoundedCache[str, Resolver] = BoundedCache(16)
_RESULTS: BoundedCache[tuple[object, ...], ImportGraph] = BoundedCache(16)
_EDGES: BoundedCache[tuple[str, str, str], Mapping[str, EdgeFlags]] = BoundedCache(50_000)
_LANGUAGES: frozenset[str] | None = None
_State = tuple[str, int, frozenset[str], tuple[tuple[str, ...], ...]]
"""(repository, file bound, languages, each worktree's files as on disk)"""


def clear_near_cache() -> None:
    """Forget every parse and memo of this process (a cold read, for tests and bench/)."""
    for memo in (_PARSED, _GREPS, COMMIT_CONFIGS, _RESOLVERS, _RESULTS, _EDGES):
        memo.clear()


def near_languages() -> frozenset[str]:
    """Python always; JavaScript, TypeScript and Go when tree-sitter can be imported here."""
    global _LANGUAGES
    if _LANGUAGES is None:
        others = {"javascript", "typescript", "tsx", "go"}
        has_ts = importlib.util.find_spec("tree_sitter") is not None
        _LANGUAGES = frozenset({"python"} | (others if has_ts else set()))
    return _LANGUAGES


def _names(path: str) -> tuple[set[str], set[str], str | None]:
    """``(stems, folders, package)``: the file's stem, which an import of it spells; the
    folder names an import of it spells instead (an ``__init__`` or ``index`` file's folder,
    a Go file's package folder); and the package folder whose files may import it with dots
    alone (``None`` for a plain module)."""
    folder, _, name = path.rpartition("/")
    stem = name.lstrip(".").split(".", 1)[0]
    stems = {stem} if stem and stem not in _PACKAGE_FILES else set()
    folders: set[str] = set()
    package = None
    if stem in _PACKAGE_FILES or language_of(path) == "go":
        last = folder.rpartition("/")[2]
        if last:
            folders.add(last)
        if stem in _PACKAGE_FILES:
            package = folder
    return stems, folders, package


_W = r"[A-Za-z0-9_]"
_NOT_AFTER_FOLDER = r"(?!" + _W + r"|[.][A-Za-z_]|/(?!index(?!" + _W + r"))[A-Za-z_$@])"


def _word(stem: str) -> str:
    """The stem as a whole word (``git grep -w``)."""
    return rf"(?<!{_W})\Q{stem}\E(?!{_W})"


def _folder_word(folder: str) -> str:
    """The folder as a whole word not followed by a name inside it: ``a.b.c`` and ``'a/b/c'``
    import ``c``, not the folder's ``__init__``/``index`` (``'a/b/index'`` does)."""
    return rf"(?<!{_W})\Q{folder}\E{_NOT_AFTER_FOLDER}"


def _python_patterns(stems: set[str], folders: set[str], parents: set[str]) -> list[str]:
    """Lines of a Python file that may import a seed: an import statement's first line
    spelling its name (one-line compound statements too), a dynamic import naming it, and a
    ``from <parent> import (`` whose continued lines may name it."""
    words = [*map(_word, sorted(stems)), *map(_folder_word, sorted(folders))]
    out = []
    if words:
        either = "|".join(words)
        out += [
            rf"(?<!{_W})(?:import|from)\s.*(?:{either})",
            rf"(?:import_module|__import__).*(?:{either})",
        ]
    if parents:
        names = "|".join(rf"\Q{p}\E" for p in sorted(parents))
        out.append(rf"(?<!{_W})from\s+(?:[.\w]*[.])?(?:{names})\s+import\s*[(\\]")
    return out


def _string_patterns(stems: set[str], folders: set[str]) -> list[str]:
    """A JavaScript/TypeScript/Go import names its target in one string literal."""
    start = r"""['"`](?:[^'"`]*[^\w'"`])?"""
    out = []
    if stems:
        either = "|".join(rf"\Q{s}\E" for s in sorted(stems))
        out.append(rf"""{start}(?:{either})(?:[^\w'"`][^'"`]*)?['"`]""")
    if folders:
        either = "|".join(rf"\Q{f}\E" for f in sorted(folders))
        out.append(rf"""{start}(?:{either})(?:/|/index(?:[.]\w+)?)?['"`]""")
    return out


# Imports with dots alone, under a seed's folder: `from . import x` (Python), '.', '..' (JS)
_DOTS_PYTHON = r"from\s+\.+\s+import"
_DOTS_STRING = r"""['"`]\.\.?(?:/\.\.)*/?['"`]"""
_PYTHON_GLOBS = ("*.py", "*.pyi")
_OTHER_GLOBS = tuple(g for g in _SOURCE_GLOBS if g not in _PYTHON_GLOBS)


def _grep(
    root: str,
    commit: str,
    patterns: Sequence[str],
    pathspecs: Sequence[str],
    fallback: Sequence[str],
) -> list[str]:
    """Files at ``commit`` with a line matching one of ``patterns`` (Perl-compatible), else
    (git without PCRE) one holding one of the ``fallback`` strings."""
    if not patterns or not pathspecs:
        return []
    args = ["grep", "-l", "-P", "-I", "--no-color", *(x for p in patterns for x in ("-e", p))]
    try:
        _, out = git(root, [*args, commit, "--", *pathspecs], ok_codes=(0, 1))
    except GitError:
        if not fallback:
            raise
        # a git built without PCRE: the fixed words, a wider superset
        args = ["grep", "-l", "-F", "-I", "--no-color", *(x for w in fallback for x in ("-e", w))]
        _, out = git(root, [*args, commit, "--", *pathspecs], ok_codes=(0, 1))
    prefix = f"{commit}:"
    return [
        line[len(prefix) :] if line.startswith(prefix) else line
        for line in out.decode("utf-8", "surrogateescape").splitlines()
    ]


def _under(folders: Iterable[str], globs: Sequence[str]) -> list[str]:
    return [f":(glob){f + '/' if f else ''}**/{g}" for f in sorted(folders) for g in globs]


def _importers(
    root: str, commit: str, seeds: Iterable[str], languages: frozenset[str]
) -> tuple[str, ...]:
    """Files at ``commit`` that may import one of ``seeds`` (a superset; kept per commit).

    Python imports only Python files; a JavaScript, TypeScript or Go import names any file
    (a ``.json``, a stylesheet), so those are searched for every other seed."""
    key = (root, commit, tuple(sorted(seeds)), languages)
    hit = _GREPS.get(key)
    if hit is not None:
        return hit
    names: dict[bool, tuple[set[str], set[str], set[str], set[str]]] = {
        True: (set(), set(), set(), set()),
        False: (set(), set(), set(), set()),
    }
    for path in seeds:
        stems, folders, packages, parents = names[language_of(path) == "python"]
        own, named, package = _names(path)
        stems |= own
        folders |= named
        if package is not None:
            packages.add(package)
        parents.add(path.rpartition("/")[0])
    searches: list[tuple[list[str], Sequence[str], list[str]]] = []
    stems, folders, packages, parents = names[True]
    if "python" in languages and stems | folders:
        last = {p.rpartition("/")[2] for p in parents if p}
        words = sorted(stems | folders | last)
        # `from . import x` under a package couples to its __init__; `from . import (` under
        # any seed's folder may go on to name the seed on a later line
        multi = rf"{_DOTS_PYTHON}\s*[(\\]"
        searches += [
            (_python_patterns(stems, folders, last), _PYTHON_GLOBS, words),
            ([_DOTS_PYTHON], _under(packages, _PYTHON_GLOBS), ["import"]),
            ([multi], _under(parents - packages, _PYTHON_GLOBS), ["import"]),
        ]
    stems, folders, packages, _ = names[False]
    if languages - {"python"} and stems | folders:
        dots = [".'", '."', ".`", "/'", '/"', "/`"]
        searches += [
            (_string_patterns(stems, folders), _OTHER_GLOBS, sorted(stems | folders)),
            ([_DOTS_STRING], _under(packages, _OTHER_GLOBS), dots),
        ]
    found: dict[str, None] = {}
    for patterns, pathspecs, fallback in searches:
        found.update(dict.fromkeys(_grep(root, commit, patterns, pathspecs, fallback)))
    hit = tuple(p for p in found if language_of(p) in languages)
    _GREPS[key] = hit
    return hit


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _parse(blob: str, language: str, data: bytes | None) -> ParsedImports:
    key = cache_key(blob, language)
    hit = _PARSED.get(key)
    if hit is None:
        if data is None:
            hit = ParsedImports(language, (), "not read: its coupling is unknown")
        elif len(data) > CHILD_PARSE_BYTES:
            # the whole graph parses it in a limited child process: too slow for a hook
            why = f"{len(data)} bytes, parsed by a scan only: its coupling is unknown here"
            return ParsedImports(language, (), why)
        else:
            hit = parse_bytes_bounded(data, language)
        _PARSED[key] = hit
    return hit


def _resolver(
    root: str, ws: WorkingSet, commit: str, files: Mapping[str, str], base: Resolver
) -> Resolver:
    """The resolver of ``ws``'s worktree: its merge base's, unless the worktree added,
    deleted or renamed a file or changed a config (then built over its own paths, kept)."""
    moved = [f for f in ws.files if f.status not in ("M", "T") or is_config(f.path)]
    if not moved:
        return base
    paths = set(files)
    configs = dict(commit_configs(root, commit, files))
    for f in moved:
        if f.old_path and f.status == "R":
            paths.discard(f.old_path)
            configs.pop(f.old_path, None)
        if f.status == "D":
            paths.discard(f.path)
            configs.pop(f.path, None)
            continue
        paths.add(f.path)
        if is_config(f.path):
            try:
                data = read_bounded(Path(ws.path) / f.path)
            except OSError:
                data = None
            if data is not None:
                configs[f.path] = data.decode("utf-8", "replace")
    ordered = sorted(paths)
    key = resolver_key(ordered, configs)
    hit = _RESOLVERS.get(key)
    if hit is None:
        hit = _RESOLVERS[key] = build_resolver(ordered, configs)
    return hit


def _digest(ws: WorkingSet) -> str:
    """Everything this reader takes from one working set: its files' paths and statuses and
    the current files' state on disk."""
    digest = hashlib.sha1(usedforsecurity=False)
    for f in ws.files:
        here = file_state(Path(ws.path) / f.path) if f.status != "D" else "deleted"
        digest.update(repr((f.path, f.old_path, f.status, here)).encode())
    return digest.hexdigest()


class _Edges:
    """Edges with a changed file at one end, flags combined as the whole graph combines them."""

    def __init__(self, seeds: frozenset[str]) -> None:
        self.seeds = seeds
        self.edges: dict[str, dict[str, EdgeFlags]] = {}

    def add(self, src: str, targets: Mapping[str, EdgeFlags]) -> None:
        for dst, flags in targets.items():
            if src in self.seeds or dst in self.seeds:
                mine = self.edges.setdefault(src, {})
                mine[dst] = mine[dst].combine(flags) if dst in mine else flags

    def add_graph(self, graph: ImportGraph) -> None:
        for src, targets in graph.edges.items():
            self.add(src, targets)

    def graph(self, errors: Sequence[str]) -> ImportGraph:
        nodes = set(self.edges) | {d for t in self.edges.values() for d in t}
        errors = tuple(dict.fromkeys(errors))
        return ImportGraph(self.edges, tuple(sorted(nodes)), {}, errors=errors)


def near_graph(
    repo: str | Path,
    sets: Sequence[WorkingSet],
    seeds: Iterable[str] = (),
    *,
    max_files: int = MAX_NEAR_FILES,
) -> ImportGraph:
    """Every import edge with an end among the files ``sets`` changed (and ``seeds``, e.g. the
    files an edit plans), in the union of the worktrees' graphs; ``errors`` name what was not
    read (a cut, an unparsed file), whose coupling is then unknown, not absent.

    The changed files' part is kept while the worktrees stay as they are; a planned file no
    worktree changed is its merge base's version everywhere, so it adds only the edges at the
    base that touch it (each kept too). A merge base that cannot be read is an error of its
    worktrees; nothing raises.
    """
    root = str(Path(repo).resolve())
    kept = tuple(ws for ws in sets if ws.merge_base is not None)
    changed = _changed(kept)
    state = _state(root, kept, max_files)
    stable = _part(state, kept, changed, current=True)
    extra = frozenset(seeds) - changed
    if not extra:
        return stable
    key = (*state, "union", tuple(sorted(extra)))
    hit = _RESULTS.get(key)
    if hit is None:
        more = _planned(state, kept, stable, changed, extra)
        edges = _Edges(changed | extra)
        edges.add_graph(stable)
        edges.add_graph(more)
        hit = _RESULTS[key] = edges.graph([*stable.errors, *more.errors])
    return hit


def warm_near_graph(repo: str | Path, sets: Sequence[WorkingSet]) -> ImportGraph:
    """:func:`near_graph` of the changed files, and the imports of every file around them
    parsed and resolved, so that a planned file's part is lookups (the daemon's background
    work after a change)."""
    root = str(Path(repo).resolve())
    graph = near_graph(root, sets)
    kept = tuple(ws for ws in sets if ws.merge_base is not None)
    state = _state(root, kept, MAX_NEAR_FILES)
    _planned(state, kept, graph, _changed(kept), frozenset())
    return graph


def _by_base(kept: Sequence[WorkingSet]) -> dict[str, list[WorkingSet]]:
    groups: dict[str, list[WorkingSet]] = {}
    for ws in kept:
        groups.setdefault(ws.merge_base or "", []).append(ws)
    return groups


def _changed(kept: Sequence[WorkingSet]) -> frozenset[str]:
    return frozenset({f.path for ws in kept for f in ws.files}) | {
        f.old_path for ws in kept for f in ws.files if f.old_path
    }


def _state(root: str, kept: Sequence[WorkingSet], max_files: int) -> _State:
    """What a part of the graph depends on: the worktrees' files as they are on disk."""
    return (
        root,
        max_files,
        near_languages(),
        tuple(sorted((ws.agent_id, ws.path, ws.merge_base or "", _digest(ws)) for ws in kept)),
    )


def _part(
    state: _State,
    kept: Sequence[WorkingSet],
    seeds: frozenset[str],
    *,
    current: bool,
) -> ImportGraph:
    """The edges touching ``seeds`` at the merge bases (and, with ``current``, from the
    changed files' current versions), kept by the worktrees' state."""
    key = (*state, current, tuple(sorted(seeds)))
    hit = _RESULTS.get(key)
    if hit is not None:
        return hit
    root, max_files, languages, _ = state
    edges = _Edges(seeds)
    errors: list[str] = []
    groups = _by_base(kept)
    for commit, group in sorted(groups.items()):
        try:
            _at_base(root, commit, group, seeds, languages, max_files, edges, errors)
        except GitError as exc:
            errors += [f"{ws.agent_id}: imports not read ({exc.problem})" for ws in group]
    if current:
        for ws in kept:
            _current(root, ws, languages, edges, errors)
    hit = _RESULTS[key] = edges.graph(list(dict.fromkeys(errors)))
    return hit


def _planned(
    state: _State,
    kept: Sequence[WorkingSet],
    stable: ImportGraph,
    changed: frozenset[str],
    extra: frozenset[str],
) -> ImportGraph:
    """The edges a planned file no worktree changed adds within 2 of a changed file.

    Such a file ``p`` is its merge base's version in every worktree. A path from it to a
    changed file ``b`` is ``p-b`` or ``p-x-b``; ``p-b`` and ``x-b`` touch ``b``, so they are in
    the changed files' part, and ``x`` is one of its files. So only ``p``'s own imports and
    those of the files already there are read (no search of the repository)."""
    root, _, languages, _ = state
    edges = _Edges(extra)
    errors: list[str] = []
    groups = _by_base(kept)
    around = [x for x in stable.files if x not in changed]
    for commit, group in sorted(groups.items()):
        try:
            files, base = commit_base(root, commit)
        except GitError as exc:
            errors += [f"{ws.agent_id}: imports not read ({exc.problem})" for ws in group]
            continue
        wanted = [p for p in (*sorted(extra), *around) if p in files]
        parsed = _parse_at(root, files, [p for p in wanted if language_of(p) in languages])
        errors += [
            f"{p}: {parsed[p].error}" for p in sorted(extra & parsed.keys()) if parsed[p].error
        ]
        resolvers = {id(r): r for r in (_resolver(root, ws, commit, files, base) for ws in group)}
        for resolver in resolvers.values():
            for path, imports in parsed.items():
                edges.add(path, _resolved(resolver, path, files[path], imports))
    return edges.graph(errors)


def _resolved(
    resolver: Resolver, path: str, blob: str, imports: ParsedImports
) -> Mapping[str, EdgeFlags]:
    """A base file's edges under one resolver: the same while both are (kept, never changed)."""
    key = (resolver.key, path, blob)
    hit = _EDGES.get(key)
    if hit is None:
        hit = _EDGES[key] = resolve_file(resolver, path, imports)
    return hit


def _parse_at(
    root: str, files: Mapping[str, str], paths: Sequence[str]
) -> dict[str, ParsedImports]:
    """``paths`` as ``files`` (a commit's ``{path: blob}``) hold them, parsed (cached by blob)."""
    missing = [files[p] for p in paths if cache_key(files[p], language_of(p) or "") not in _PARSED]
    contents = read_blobs(root, missing)
    return {p: _parse(files[p], language_of(p) or "", contents.get(files[p])) for p in paths}


def _at_base(
    root: str,
    commit: str,
    group: Sequence[WorkingSet],
    seeds: frozenset[str],
    languages: frozenset[str],
    max_files: int,
    edges: _Edges,
    errors: list[str],
) -> None:
    """Edges of the files each worktree of ``group`` holds at their merge base ``commit``."""
    files, base = commit_base(root, commit)
    wanted = [p for p in sorted(seeds) if p in files]
    wanted += [p for p in _importers(root, commit, seeds, languages) if p not in seeds]
    wanted = [p for p in wanted if language_of(p) in languages]
    if len(wanted) > max_files:
        errors.append(
            f"imports near the changed files at {commit[:12]}: {len(wanted)} files, "
            f"{max_files} read; coupling through the rest is unknown"
        )
        wanted = wanted[:max_files]
    parsed = _parse_at(root, files, wanted)
    errors += [f"{p}: {parsed[p].error}" for p in wanted if parsed[p].error]
    # Each worktree resolves the files it holds at the base; worktrees that share a resolver
    # (no file added, deleted or renamed, no config changed) are resolved once.
    held: dict[int, tuple[Resolver, set[str]]] = {}
    for ws in group:
        resolver = _resolver(root, ws, commit, files, base)
        mine = {f.path for f in ws.files} | {f.old_path for f in ws.files if f.old_path}
        slot = held.setdefault(id(resolver), (resolver, set()))
        slot[1].update(p for p in parsed if p not in mine)
    for resolver, paths in held.values():
        for path in sorted(paths):
            edges.add(path, _resolved(resolver, path, files[path], parsed[path]))


def _current(
    root: str, ws: WorkingSet, languages: frozenset[str], edges: _Edges, errors: list[str]
) -> None:
    """Edges of the current version of each file ``ws`` changed, resolved as its worktree
    resolves them."""
    sources = [
        f.path
        for f in ws.files
        if f.status != "D" and not f.binary and language_of(f.path) in languages
    ]
    if not sources:
        return
    try:
        files, base = commit_base(root, ws.merge_base or "")
    except GitError as exc:
        errors.append(f"{ws.agent_id}: imports not read ({exc.problem})")
        return
    resolver = _resolver(root, ws, ws.merge_base or "", files, base)
    for path in sources:
        full = Path(ws.path) / path
        try:
            data = read_bounded(full)
        except OSError as exc:
            errors.append(f"{ws.agent_id}: {path}: unreadable ({exc.strerror or exc})")
            continue
        language = language_of(path) or ""
        if data is None:
            parsed = ParsedImports(language, (), "too large or not a regular file: unknown")
        else:
            parsed = _parse(_blob_id(data), language, data)
        if parsed.error:
            errors.append(f"{ws.agent_id}: {path}: {parsed.error}")
        edges.add(path, resolve_file(resolver, path, parsed))
