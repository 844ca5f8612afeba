"""The static build check for JavaScript and TypeScript: in-tree imports and imported names.

What a careful reviewer of two branches would check without running a bundler: every
relative import (``./m``, ``../lib/m``; ``import``, ``export ... from``, ``require``) names a
file of the tree, and every named import (``import { x } from './m'``) names something ``m``
defines at top level, exports, re-exports, or can reach through ``export * from``. Specifiers
that leave the tree (packages, URLs, ``node:`` builtins, aliases the tree's configs do not
map) are never judged, and a module that assigns ``module.exports``/``exports.x`` (CommonJS)
or ``export =`` (TypeScript) is *open*: its names are dynamic, so no name is missing from it.
Default imports are not judged (bundlers and TypeScript's interop settings decide them).
Symbols come from the same tree-sitter extraction as the symbol index (definitions exported
or not: a name that exists but lost its ``export`` keyword is not reported; conservative).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from proximity.engine.imports.jsresolve import js_index, resolve_js
from proximity.engine.mergecheck.model import Problem
from proximity.engine.symbols.model import FileSymbols

__all__ = ["is_open_module", "js_problems", "relative_specifiers"]

_OPEN = re.compile(r"\bmodule\.exports\b|\bexports\.[A-Za-z_$]|\bexport\s*=")
_RELATIVE = re.compile(r"""(?:\bfrom|\bimport|\brequire\s*\()\s*['"](\.[^'"\n]*)['"]""")


def relative_specifiers(text: str) -> set[str]:
    """The relative specifiers a module's text mentions after ``from``, ``import`` or
    ``require(``: a cheap superset of what its parse would find, to skip parsing modules whose
    imports cannot have changed meaning."""
    return set(_RELATIVE.findall(text))


_MAX_STAR_HOPS = 8
Resolve = Callable[[str, str], "str | None"]


def is_open_module(text: str) -> bool:
    """CommonJS or ``export =``: the module's names are not statically known."""
    return _OPEN.search(text) is not None


def _defines(
    path: str,
    name: str,
    symbols: Mapping[str, FileSymbols],
    open_modules: frozenset[str],
    resolve: Resolve,
    hops: int = 0,
) -> bool:
    fs = symbols.get(path)
    if fs is None or fs.error or path in open_modules or hops > _MAX_STAR_HOPS:
        return True  # not parsed here, recovered from syntax errors, or open: not judged
    if any(d.qualname == name for d in fs.definitions):
        return True
    if any(exported == name for exported, _ in fs.exports):
        return True
    if any(b.local == name for b in fs.bindings):
        return True  # imported then re-exported, or ``export { x } from``
    for site in fs.stars:
        target = resolve(path, site.target)
        if target is None or _defines(target, name, symbols, open_modules, resolve, hops + 1):
            return True  # a star from outside the tree may bring anything
    return False


def js_problems(
    symbols: Mapping[str, FileSymbols],
    paths: frozenset[str],
    configs: Mapping[str, str],
    open_modules: frozenset[str] = frozenset(),
    importers: Iterable[str] | None = None,
) -> list[Problem]:
    """Unresolved relative imports and named imports nothing defines, in one tree.

    ``symbols``: the tree's JavaScript/TypeScript files, extracted; ``paths``: every file of
    the tree (targets may be JSON, declarations, assets); ``configs``: tsconfig/jsconfig and
    package.json texts by path (aliases, workspace packages); ``importers``: the modules whose
    imports to check (default all; ``symbols`` is read only for them and their targets, so it
    may parse on demand).
    """
    index = js_index(paths, configs)

    def resolve(importer: str, spec: str) -> str | None:
        return resolve_js(index, importer, spec)

    out = []
    for path in sorted(symbols if importers is None else importers):
        for binding in symbols[path].bindings:
            spec = binding.site.target
            if not spec.startswith("."):
                continue
            target = resolve(path, spec)
            if target is None:
                message = f"cannot resolve '{spec}' in the tree"
                out.append(Problem("unresolved-module", path, spec, message))
            elif binding.name not in (None, "default") and not _defines(
                target, str(binding.name), symbols, open_modules, resolve
            ):
                message = f"'{binding.name}' is not defined or exported by {target}"
                out.append(Problem("unresolved-name", path, f"{spec}:{binding.name}", message))
    return out
