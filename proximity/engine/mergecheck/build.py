"""The static build check of one tree of Python files: compile, imports, names.

Three questions per module, each answered only where the answer is certain:

* does it byte-compile (:func:`compile`, which also catches what the parser lets through:
  ``return`` outside a function, ``nonlocal`` at module level, duplicate parameters);
* does every import of an in-tree module resolve: the module (and each package on the way)
  exists, and each ``from`` name is a submodule or a name the module binds;
* is every global name it uses bound by the module, a builtin, or a name the tree adds to
  builtins; and does every ``m.n`` on an imported in-tree module name something ``m`` binds,
  a submodule, or an attribute some module assigns on it.

"In the tree" is decided with the import graph's index (:mod:`proximity.engine.imports.
pyresolve`): a top-level package or module found from the repository root, ``src/`` or the
importer's own ``sys.path`` root (its first non-package ancestor). Namespace packages,
stdlib names and anything else are outside and never judged. A module that can change its
own surface (star import, module ``__getattr__``, ``globals()``, ``sys.modules``) is open:
imports from it are not judged.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass

from proximity.engine.imports.pyresolve import PythonIndex, python_index
from proximity.engine.mergecheck.model import MERGECHECK_VERSION, Problem
from proximity.engine.mergecheck.names import ImportUse, ModuleFacts, module_facts

__all__ = ["compile_error", "facts_key", "static_problems"]

_STDLIB = frozenset(sys.stdlib_module_names)
Cache = MutableMapping[str, object]


def facts_key(text: str, kind: str = "facts") -> str:
    digest = hashlib.sha1(text.encode("utf-8", "surrogateescape"), usedforsecurity=False)
    return f"{MERGECHECK_VERSION}:{kind}:{digest.hexdigest()}"


def _facts(text: str, cache: Cache | None) -> ModuleFacts:
    if cache is None:
        return module_facts(text)
    key = facts_key(text)
    hit = cache.get(key)
    if not isinstance(hit, ModuleFacts):
        hit = cache[key] = module_facts(text)
    return hit


def compile_error(text: str, path: str, cache: Cache | None = None) -> str | None:
    """``line N: message`` when ``text`` does not byte-compile, else ``None``."""
    key = facts_key(text, "compile")
    if cache is not None and key in cache:
        return cache[key]  # type: ignore[return-value]
    try:
        compile(text, path, "exec", dont_inherit=True)
        found = None
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        found = f"line {line}: {exc.msg if isinstance(exc, SyntaxError) else exc}"
    if cache is not None:
        cache[key] = found
    return found


_OPAQUE = (".pyi", ".pyx", ".pxd", ".so", ".pyd")  # modules whose names the text cannot tell


@dataclass(frozen=True, slots=True)
class _Module:
    """An in-tree module: its file (``None`` for a namespace folder) and package folder;
    ``opaque`` for a compiled or stub-only module (exists, names unknown)."""

    file: str | None
    folder: str | None  # the folder holding its submodules, if it is a package
    opaque: bool = False


class _Tree:
    def __init__(
        self, files: Mapping[str, str], cache: Cache | None, others: Iterable[str] = ()
    ) -> None:
        self.files = files
        self.cache = cache
        self.index: PythonIndex = python_index(files)
        self.folders = {p.rsplit("/", 1)[0] for p in self.index.files if "/" in p}
        self.opaque = {_stem(p) for p in others if p.endswith(_OPAQUE)}
        self.packages = {
            p.rsplit("/", 1)[0] if "/" in p else "" for p in files if p.endswith("/__init__.py")
        } | ({""} if "__init__.py" in files else set())
        self._facts: dict[str, ModuleFacts] = {}

    def facts(self, path: str) -> ModuleFacts:
        hit = self._facts.get(path)
        if hit is None:
            hit = self._facts[path] = _facts(self.files[path], self.cache)
        return hit

    def module_at(self, folder: str) -> _Module | None:
        """``folder`` (a path without suffix) as a module: a file, a package, a namespace."""
        if f"{folder}.py" in self.files:
            return _Module(f"{folder}.py", None)
        if f"{folder}/__init__.py" in self.files:
            return _Module(f"{folder}/__init__.py", folder)
        if folder in self.folders:
            return _Module(None, folder)
        if folder in self.opaque:
            return _Module(None, None, opaque=True)
        return None

    def root_of(self, importer: str) -> str:
        """The importer's own ``sys.path`` root: its first ancestor folder that is no package."""
        folder = importer.rsplit("/", 1)[0] if "/" in importer else ""
        while folder and folder in self.packages:
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
        return folder

    def top(self, name: str, importer: str) -> tuple[str, _Module] | None:
        """Where the top-level ``name`` is in the tree (root-relative folder), or ``None``."""
        if name in _STDLIB:
            return None
        for root in dict.fromkeys((self.root_of(importer), "", "src")):
            base = f"{root}/{name}" if root else name
            found = self.module_at(base)
            if found is not None and (found.file or found.opaque):  # namespaces: outside
                return base, found
        return None

    def open_package(self, module: _Module) -> bool:
        return module.file is not None and self.facts(module.file).extends_path


def _module_of(tree: _Tree, importer: str, use: ImportUse) -> tuple[str, _Module] | str | None:
    """``(folder, module)`` an import names; a string is the first missing dotted prefix;
    ``None`` when the import is not the tree's to judge."""
    parts = use.module.split(".") if use.module else []
    if use.level:
        base = importer.split("/")[:-1]
        if use.level - 1 > len(base):
            return None
        folder = "/".join(base[: len(base) - (use.level - 1)])
        module = tree.module_at(folder) if folder else None  # a top-level file: no package
        if module is None:
            return None
        shown = "." * use.level
    else:
        found = tree.top(parts[0], importer)
        if found is None:
            return None
        folder, module = found
        parts, shown = parts[1:], parts[0]
    for part in parts:
        shown = f"{shown}{'' if shown.endswith('.') else '.'}{part}"
        if module.opaque or module.folder is None or tree.open_package(module):
            return shown if module.folder is None and module.file else None
        nxt = tree.module_at(f"{module.folder}/{part}" if module.folder else part)
        if nxt is None:
            return shown
        folder, module = (f"{module.folder}/{part}" if module.folder else part), nxt
    return folder, module


def _defines(tree: _Tree, module: _Module, name: str, stores: set[tuple[str, str]]) -> bool:
    """Is ``name`` importable from ``module`` (a binding, a submodule, assigned from outside)?"""
    if module.opaque or (name.startswith("__") and name.endswith("__")):
        return True
    if module.folder is not None and tree.module_at(
        f"{module.folder}/{name}" if module.folder else name
    ):
        return True
    if module.file is None or (module.file, name) in stores:
        return module.file is not None
    facts = tree.facts(module.file)
    return facts.error is not None or facts.open_surface or name in facts.names


def _closed(tree: _Tree, module: _Module) -> bool:
    if module.file is None:
        return False
    facts = tree.facts(module.file)
    return facts.error is None and not facts.open_surface


def _imports(
    tree: _Tree, path: str, facts: ModuleFacts, stores: set[tuple[str, str]]
) -> list[Problem]:
    out = []
    for use in facts.imports:
        if use.guarded:
            continue
        found = _module_of(tree, path, use)
        if isinstance(found, str):
            out.append(
                Problem(
                    "unresolved-module",
                    path,
                    found,
                    f"line {use.line}: module {found} is not in the tree",
                    use.line,
                )
            )
            continue
        if found is None:
            continue
        _, module = found
        if not (_closed(tree, module) or (module.file is None and not module.opaque)):
            continue
        dotted = "." * use.level + use.module
        out.extend(
            Problem(
                "unresolved-name",
                path,
                f"{dotted}:{name}",
                f"line {use.line}: cannot import name {name!r} from {dotted}",
                use.line,
            )
            for name in use.names
            if not _defines(tree, module, name, stores)
        )
    return out


def _binding_module(tree: _Tree, path: str, facts: ModuleFacts, local: str) -> _Module | None:
    for b in facts.bindings:
        if b.local != local:
            continue
        use = ImportUse(0, b.module, b.level, (), False)
        found = _module_of(tree, path, use)
        if not isinstance(found, tuple):
            return None
        _, module = found
        if b.name is None:
            return module
        sub = f"{module.folder}/{b.name}" if module.folder else b.name
        return tree.module_at(sub) if module.folder is not None else None
    return None


def _walk(
    tree: _Tree, module: _Module, parts: tuple[str, ...], stores: set[tuple[str, str]]
) -> tuple[_Module, int] | None:
    """Follow submodules along ``parts``: the module reached and the index of the first part
    that is no submodule, when that module is closed and nobody assigns the name on it."""
    for k, part in enumerate(parts):
        if module.folder is not None:
            sub = tree.module_at(f"{module.folder}/{part}" if module.folder else part)
            if sub is not None:
                module = sub
                continue
        known = _closed(tree, module) and (module.file, part) not in stores
        return (module, k) if known else None
    return None


def _attributes(
    tree: _Tree, path: str, facts: ModuleFacts, stores: set[tuple[str, str]]
) -> list[Problem]:
    out = []
    modules: dict[str, _Module | None] = {}
    for root, parts, line in facts.attributes:
        if root not in modules:
            modules[root] = _binding_module(tree, path, facts, root)
        module = modules[root]
        found = _walk(tree, module, parts, stores) if module is not None else None
        if found is None:
            continue
        target, k = found
        name = parts[k]
        if name in tree.facts(target.file or "").names or name.startswith("__"):
            continue
        shown = ".".join((root, *parts[: k + 1]))
        out.append(
            Problem(
                "missing-attribute",
                path,
                shown,
                f"line {line}: module {target.file} has no attribute {name!r}",
                line,
            )
        )
    return out


def _stores(tree: _Tree, paths: Iterable[str]) -> set[tuple[str, str]]:
    """``(module file, name)`` pairs some module assigns from outside (``m.x = ...``)."""
    out: set[tuple[str, str]] = set()
    for path in paths:
        facts = tree.facts(path)
        for root, parts in facts.stores:
            module = _binding_module(tree, path, facts, root)
            while module is not None and len(parts) > 1 and module.folder is not None:
                module = tree.module_at(f"{module.folder}/{parts[0]}")
                parts = parts[1:]
            if module is not None and module.file is not None:
                out.add((module.file, parts[0]))
    return out


def static_problems(
    files: Mapping[str, str],
    *,
    cache: Cache | None = None,
    compile_paths: Iterable[str] | None = None,
    others: Iterable[str] = (),
    conditional_imports_open: bool = True,
) -> list[Problem]:
    """Build problems of a tree given as ``{path: source text}`` (non-Python paths ignored).

    Parameters
    ----------
    others
        The tree's other paths: a stub, Cython source or compiled extension among them is a
        module that exists with names unknown.
    cache
        Facts and compile results by content hash, shared between trees of one check (and
        between checks): files the trees share are analysed once.
    compile_paths
        Byte-compile only these (default: every ``.py`` file). A merge check compiles only
        files whose merged text differs from both sides: any other compiles as a side does.
    conditional_imports_open
        A module with module-level imports under ``if``/``try`` reports no undefined names.
    """
    tree = _Tree({p: t for p, t in files.items() if p.endswith(".py")}, cache, others)
    paths = sorted(p for p in tree.files if p.endswith(".py"))
    out: list[Problem] = []
    for path in paths if compile_paths is None else sorted(set(compile_paths) & set(paths)):
        error = compile_error(tree.files[path], path, cache)
        if error is not None:
            out.append(Problem("syntax", path, "", error, _line(error)))
    readable = [p for p in paths if tree.facts(p).error is None]
    stores = _stores(tree, readable)
    added = set().union(*(tree.facts(p).builtins_added for p in readable))
    names_open = any(tree.facts(p).builtins_open for p in readable)
    for path in readable:
        facts = tree.facts(path)
        out += _imports(tree, path, facts, stores)
        out += _attributes(tree, path, facts, stores)
        closed = not (facts.open_names or names_open)
        if closed and not (conditional_imports_open and facts.conditional_imports):
            out += [
                Problem(
                    "undefined-name", path, name, f"line {line}: name {name!r} is not defined", line
                )
                for name, line in facts.undefined
                if name not in added
            ]
    return out


def _stem(path: str) -> str:
    folder, _, name = path.rpartition("/")
    stem = name.split(".", 1)[0]
    return f"{folder}/{stem}" if folder else stem


def _line(message: str) -> int | None:
    head = message.split(":", 1)[0].removeprefix("line ")
    return int(head) if head.isdigit() else None
