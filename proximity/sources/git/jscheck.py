"""The JavaScript/TypeScript part of a merge check: read the three trees' modules from the
object store, extract them with tree-sitter, keep what only the merge breaks.

Same reading rules as the Python part (``ls-tree`` and one ``cat-file --batch``, nothing
checked out, every git child under the check's limits); extractions are cached by blob id,
so a module the three trees share is parsed once.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence

from proximity.engine.imports import language_of
from proximity.engine.imports.jsresolve import CONFIG_NAMES
from proximity.engine.mergecheck.jsnames import is_open_module, js_problems
from proximity.engine.mergecheck.merge import merge_only
from proximity.engine.mergecheck.model import Problem
from proximity.engine.symbols.model import FileSymbols
from proximity.sources.git._run import GitError, git
from proximity.sources.limits import Limits

__all__ = ["JS_LANGUAGES", "js_merge_problems"]

JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_CONFIGS = (*CONFIG_NAMES, "package.json")
_MAX_BYTES = 256 * 1024**2


def _listing(cwd: str, env: Mapping[str, str], tree: str, limits: Limits) -> dict[str, str]:
    """``{path: blob}`` of every regular file of ``tree`` (symlinks skipped)."""
    _, out = git(
        cwd, ["ls-tree", "-r", "-z", "--full-tree", tree], env=env, preexec=limits.preexec()
    )
    found = {}
    for entry in out.split(b"\0"):
        meta, _, raw = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob" and parts[0] != b"120000":
            found[raw.decode("utf-8", "surrogateescape")] = parts[2].decode()
    return found


def _wanted(path: str) -> bool:
    return language_of(path) in JS_LANGUAGES or path.rsplit("/", 1)[-1] in _CONFIGS


def _read(
    cwd: str, env: Mapping[str, str], blobs: Sequence[str], limits: Limits
) -> dict[str, bytes]:
    if not blobs:
        return {}
    _, out = git(
        cwd, ["cat-file", "--batch"], env=env, stdin=("\n".join(blobs) + "\n").encode(),
        preexec=limits.preexec(),
    )  # fmt: skip
    texts, at = {}, 0
    while at < len(out):
        end = out.index(b"\n", at)
        blob, kind, size = out[at:end].decode().split()
        texts[blob] = out[end + 1 : end + 1 + int(size)] if kind == "blob" else b""
        at = end + 2 + int(size)
        if at > _MAX_BYTES:
            raise GitError(cwd, f"merge check: more than {_MAX_BYTES} bytes of JavaScript to read")
    return texts


def js_merge_problems(
    cwd: str,
    env: Mapping[str, str],
    trees: tuple[str, str, str],
    limits: Limits,
    cache: MutableMapping[str, object],
) -> tuple[list[Problem], dict[str, int]]:
    """Problems of merged tree ``trees[2]`` that neither side (``trees[0]``, ``trees[1]``)
    has, and each tree's count. Trees without JavaScript or TypeScript cost one ``ls-tree``."""
    from proximity.sources.symbols.treesitter import extract_tree_sitter_symbols

    listings = [_listing(cwd, env, t, limits) for t in trees]
    wanted = sorted({b for listing in listings for p, b in listing.items() if _wanted(p)})
    if not any(language_of(p) in JS_LANGUAGES for listing in listings for p in listing):
        return [], {}
    missing = [b for b in wanted if f"js:{b}" not in cache]
    for blob, data in _read(cwd, env, missing, limits).items():
        cache[f"js-text:{blob}"] = data.decode("utf-8", "replace")
    found = []
    for listing in listings:
        symbols: dict[str, FileSymbols] = {}
        configs: dict[str, str] = {}
        open_modules = set()
        for path, blob in listing.items():
            if not _wanted(path):
                continue
            language = language_of(path)
            if language not in JS_LANGUAGES:
                configs[path] = str(cache.get(f"js-text:{blob}", ""))
                continue
            entry = cache.get(f"js:{blob}")
            if not isinstance(entry, tuple):
                text = str(cache.pop(f"js-text:{blob}", ""))
                parsed = extract_tree_sitter_symbols(text.encode(), str(language))
                entry = cache[f"js:{blob}"] = (parsed, is_open_module(text))
            symbols[path] = entry[0]
            if entry[1]:
                open_modules.add(path)
        found.append(js_problems(symbols, frozenset(listing), configs, frozenset(open_modules)))
    only = merge_only(found[2], found[0], found[1])
    return only, {name: len(f) for name, f in zip(("a", "b", "merged"), found, strict=True)}
