"""Resolve Python import sites to repository files, against a supplied file list.

Every directory that is not itself a package (has no ``__init__.py``) can be a ``sys.path`` root:
the repository root, ``src/`` layouts, a monorepo's ``services/api/``, a folder of scripts. So a
module file is indexed under every dotted suffix of its path whose prefix folder is not a package,
and an import picks, among the files indexed under its name, the one nearest to the importer.
Namespace packages (no ``__init__.py``) fall out of the same rule.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from proximity.engine.imports.model import ImportSite

__all__ = ["PythonIndex", "python_index", "resolve_python"]

_STDLIB = frozenset(sys.stdlib_module_names)


@dataclass(frozen=True, slots=True)
class PythonIndex:
    """``modules[dotted] = ((root folder, file), ...)``; ``files`` for relative lookups."""

    modules: dict[str, tuple[tuple[str, str], ...]]
    files: frozenset[str]


def _module_parts(path: str) -> list[str] | None:
    parts = path.split("/")
    name = parts[-1]
    if name in ("__init__.py", "__init__.pyi"):
        return parts[:-1]
    if name.endswith(".pyi"):
        return [*parts[:-1], name[:-4]]
    if name.endswith(".py"):
        return [*parts[:-1], name[:-3]]
    return None


def python_index(files: Iterable[str]) -> PythonIndex:
    """Index every ``.py``/``.pyi`` path of ``files`` under each importable dotted name."""
    py = sorted(f for f in files if f.endswith((".py", ".pyi")))
    packages = {
        f.rsplit("/", 1)[0] if "/" in f else ""
        for f in py
        if f.endswith(("/__init__.py", "/__init__.pyi")) or f in ("__init__.py", "__init__.pyi")
    }
    modules: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path in py:
        parts = _module_parts(path)
        if not parts:
            continue
        for k in range(len(parts)):
            root = "/".join(parts[:k])
            if k and root in packages:
                continue
            if k == 0 and "" in packages:
                continue
            modules[".".join(parts[k:])].append((root, path))
    return PythonIndex({k: tuple(v) for k, v in modules.items()}, frozenset(py))


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def _pick(index: PythonIndex, name: str, importer: str) -> str | None:
    """The file for ``name`` nearest to ``importer``; stdlib names only from the top root.

    A stdlib-named module in a scripts folder (``tools/json.py``) must not capture every
    ``import json`` in the repository, so it is taken only by its own folder's siblings.
    """
    candidates = index.modules.get(name)
    if not candidates:
        return None
    folder = importer.rsplit("/", 1)[0] if "/" in importer else ""
    top = name.split(".", 1)[0]
    best: tuple[int, str] | None = None
    for root, path in candidates:
        if top in _STDLIB and root not in ("", "src") and root != folder:
            continue
        key = (-_common(folder, path), path)
        if best is None or key < best:
            best = key
    return None if best is None else best[1]


def _file_of(index: PythonIndex, folder: str) -> str | None:
    """``folder`` as a module: ``folder.py`` or ``folder/__init__.py``."""
    for candidate in (
        f"{folder}.py",
        f"{folder}/__init__.py",
        f"{folder}.pyi",
        f"{folder}/__init__.pyi",
    ):
        if candidate.lstrip("/") in index.files:
            return candidate.lstrip("/")
    return None


def _relative(index: PythonIndex, importer: str, site: ImportSite) -> list[str]:
    parts = importer.split("/")[:-1]
    if site.level - 1 > len(parts):
        return []
    base = parts[: len(parts) - (site.level - 1)]
    module = [*base, *site.target.split(".")] if site.target else base
    folder = "/".join(module)
    found = [f for n in site.names if (f := _file_of(index, f"{folder}/{n}"))]
    if len(found) < len(site.names) or not site.names:
        own = _file_of(index, folder)
        if own:
            found.append(own)
    return found


def _absolute(index: PythonIndex, importer: str, site: ImportSite) -> list[str]:
    found = [f for n in site.names if (f := _pick(index, f"{site.target}.{n}", importer))]
    if len(found) == len(site.names) and site.names:
        return found
    parts = site.target.split(".")
    for k in range(len(parts), 0, -1):  # a missing submodule still couples to its package
        own = _pick(index, ".".join(parts[:k]), importer)
        if own:
            return [*found, own]
    return found


def resolve_python(index: PythonIndex, importer: str, site: ImportSite) -> list[str]:
    """Files an import site of ``importer`` loads: submodules named in ``from`` first.

    ``from pkg import name`` resolves to ``pkg/name.py`` when that file exists, else to ``pkg``
    itself; ``import a.b.c`` to the deepest of ``a/b/c``, ``a/b``, ``a`` that exists in the
    repository. Package ``__init__`` files on the way are not added: every import would
    otherwise couple to a handful of hub files.
    """
    if site.level:
        return _relative(index, importer, site)
    return _absolute(index, importer, site)
