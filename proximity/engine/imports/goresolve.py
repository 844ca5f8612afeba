"""Resolve Go import paths to the files of in-repository packages (modules from ``go.mod``)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["GoIndex", "go_index", "resolve_go"]

_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class GoIndex:
    """Module path -> its folder, and folder -> the package's non-test ``.go`` files."""

    modules: tuple[tuple[str, str], ...]
    packages: Mapping[str, tuple[str, ...]]


def go_index(files: Iterable[str], texts: Mapping[str, str]) -> GoIndex:
    """``texts`` holds the ``go.mod`` contents by path."""
    modules = []
    for path, text in texts.items():
        if path == "go.mod" or path.endswith("/go.mod"):
            m = _MODULE.search(text)
            if m:
                modules.append((m.group(1), path.rsplit("/", 1)[0] if "/" in path else ""))
    packages: dict[str, list[str]] = defaultdict(list)
    for f in files:
        if f.endswith(".go") and not f.endswith("_test.go"):
            packages[f.rsplit("/", 1)[0] if "/" in f else ""].append(f)
    ranked = tuple(sorted(modules, key=lambda m: -len(m[0])))  # nested modules win
    return GoIndex(ranked, {k: tuple(sorted(v)) for k, v in packages.items()})


def resolve_go(index: GoIndex, importer: str, path: str) -> tuple[str, ...]:
    """Every non-test file of the imported package, when it lives in a module of the repo.

    A Go import couples to a whole package, so the edge goes to each of its files (the
    importer itself is dropped by the caller).
    """
    for module, folder in index.modules:
        if path == module or path.startswith(module + "/"):
            rest = path[len(module) :].strip("/")
            target = "/".join(p for p in (folder, rest) if p)
            return index.packages.get(target, ())
    return ()
