"""The JavaScript/TypeScript part of a merge check: read the three trees' modules from the
object store, extract them with tree-sitter, keep what only the merge breaks.

Same reading rules as the Python part (``ls-tree`` and one ``cat-file --batch``, nothing
checked out, every git child under the check's limits); extractions are cached by blob id,
so a module the three trees share is parsed once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, MutableMapping, Sequence

from proximity.engine.imports import language_of
from proximity.engine.imports.jsresolve import CONFIG_NAMES, JsIndex, js_index, resolve_js
from proximity.engine.mergecheck.jsnames import is_open_module, js_problems, relative_specifiers
from proximity.engine.mergecheck.merge import merge_only
from proximity.engine.mergecheck.model import Problem
from proximity.engine.symbols.model import FileSymbols
from proximity.sources.git.trees import read_tree_blobs, tree_files
from proximity.sources.limits import Limits

__all__ = ["JS_LANGUAGES", "js_merge_problems"]

JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_CONFIGS = (*CONFIG_NAMES, "package.json")


def _wanted(path: str) -> bool:
    return language_of(path) in JS_LANGUAGES or path.rsplit("/", 1)[-1] in _CONFIGS


class _Parsed(Mapping[str, FileSymbols]):
    """One tree's modules, each parsed on first read (cached by blob across trees and checks)."""

    def __init__(self, blobs: Mapping[str, str], cache: MutableMapping[str, object]) -> None:
        self.blobs, self.cache = blobs, cache

    def __getitem__(self, path: str) -> FileSymbols:
        from proximity.sources.symbols.treesitter import extract_tree_sitter_symbols

        blob = self.blobs[path]
        found = self.cache.get(f"js:{blob}")
        if not isinstance(found, FileSymbols):
            text = text_of(self.cache, blob).encode("utf-8", "surrogateescape")
            found = extract_tree_sitter_symbols(text, str(language_of(path)))
            self.cache[f"js:{blob}"] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.blobs)

    def __len__(self) -> int:
        return len(self.blobs)


def text_of(cache: Mapping[str, object], blob: str) -> str:
    return str(cache.get(f"js-text:{blob}", ""))


def _is_open(cache: MutableMapping[str, object], blob: str) -> bool:
    """``is_open_module`` of a blob, kept beside its text: the three trees share most blobs,
    and the check cache outlives one check."""
    key = f"js-open:{blob}"
    known = cache.get(key)
    if known is None:
        text = cache.get(f"js-text:{blob}")
        known = is_open_module(str(text or ""))
        if text is not None:  # the cache may have been cleared whole since the text was read
            cache[key] = known
    return bool(known)


_STAR = re.compile(r"\bexport\s*\*\s*from\b")


def _importers(
    listings: Sequence[Mapping[str, str]],
    indexes: Sequence[JsIndex],
    cache: Mapping[str, object],
) -> set[str]:
    """Modules whose imports may mean something else in one tree than in another: changed
    ones, and those with a relative specifier that resolves differently between the trees, or
    to a changed module or one with ``export * from``. Every other module has the same
    problems in all three trees, so none of them can be the merge's own."""

    def moved(path: str) -> bool:
        return len({listing.get(path) for listing in listings}) > 1

    def starred(path: str) -> bool:
        blob = next((x[path] for x in listings if path in x), "")
        return _STAR.search(text_of(cache, blob)) is not None

    modules = {p: b for x in listings for p, b in x.items() if language_of(p) in JS_LANGUAGES}
    out = set()
    for path, blob in modules.items():
        if moved(path):
            out.add(path)
            continue
        for spec in relative_specifiers(text_of(cache, blob)):
            targets = {resolve_js(index, path, spec) for index in indexes}
            if len(targets) > 1 or any(t is not None and (moved(t) or starred(t)) for t in targets):
                out.add(path)
                break
    return out


def js_merge_problems(
    cwd: str,
    env: Mapping[str, str],
    trees: tuple[str, str, str],
    limits: Limits,
    cache: MutableMapping[str, object],
) -> tuple[list[Problem], dict[str, int]]:
    """Problems of merged tree ``trees[2]`` that neither side (``trees[0]``, ``trees[1]``)
    has, and each tree's count. Trees without JavaScript or TypeScript cost one ``ls-tree``;
    only modules whose imports can differ between the trees are parsed."""
    listings = [tree_files(cwd, env, t, limits) for t in trees]
    if not any(language_of(p) in JS_LANGUAGES for listing in listings for p in listing):
        return [], {}
    wanted = sorted({b for listing in listings for p, b in listing.items() if _wanted(p)})
    missing = [b for b in wanted if f"js-text:{b}" not in cache]
    for blob, text in read_tree_blobs(cwd, env, missing, limits).items():
        cache[f"js-text:{blob}"] = text

    configs = [
        {p: text_of(cache, b) for p, b in x.items() if p.rsplit("/", 1)[-1] in _CONFIGS}
        for x in listings
    ]
    indexes = [js_index(frozenset(x), c) for x, c in zip(listings, configs, strict=True)]
    importers = _importers(listings, indexes, cache)
    found = []
    for listing, config in zip(listings, configs, strict=True):
        modules = {p: b for p, b in listing.items() if language_of(p) in JS_LANGUAGES}
        open_modules = frozenset(p for p, b in modules.items() if _is_open(cache, b))
        mine = sorted(importers.intersection(modules))
        found.append(
            js_problems(_Parsed(modules, cache), frozenset(listing), config, open_modules, mine)
        )
    only = merge_only(found[2], found[0], found[1])
    return only, {name: len(f) for name, f in zip(("a", "b", "merged"), found, strict=True)}
