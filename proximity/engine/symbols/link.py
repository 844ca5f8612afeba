"""Resolve references to symbol ids across modules, through the import graph's resolvers.

A name is looked up in the file that defines it: a top-level definition of the module, else an
import binding of it (a re-export, followed), else its star imports. Import sites are resolved
to files by the same rules as the import graph (:mod:`proximity.engine.imports`), memoised per
(importer folder, language, site) as there. Linking a file records which other files it read
(``depends``), so an incremental build re-links only files whose dependencies' surfaces
changed.

References through a typed receiver (``via``) and reads or writes of state are resolved by
:meth:`Linker._typed`: the type as a class, then each member a definition or a field
(``FileSymbols.fields``, followed by its type), so ``Context.store.save`` reaches
``Store.save`` in another module; a receiver's chain that cannot be followed to the end names
nothing (never the class, which would read as a use of it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from proximity.engine.imports.goresolve import resolve_go
from proximity.engine.imports.jsresolve import resolve_js
from proximity.engine.imports.link import Resolver
from proximity.engine.imports.model import ImportSite
from proximity.engine.imports.pyresolve import resolve_python
from proximity.engine.symbols.model import Binding, FileSymbols, Reference, split_id, symbol_id

__all__ = ["LinkedFile", "Linker", "surface_key"]

_MAX_HOPS = 8  # re-export chains longer than this are left unresolved (and cycles end)
_LINKED_KINDS = frozenset({"call", "use", "import", "export", "read", "write"})


@dataclass(frozen=True, slots=True)
class LinkedFile:
    """Per reference of the file, the symbol id it names (``None``: external or unknown)."""

    targets: tuple[str | None, ...]
    depends: frozenset[str]


def surface_key(symbols: FileSymbols) -> str:
    """What other files can see of a module: its qualnames, bindings, exports and stars."""
    h = hashlib.sha1(usedforsecurity=False)
    for d in symbols.definitions:
        h.update(f"d{d.qualname}\0".encode())
    for b in symbols.bindings:
        h.update(f"b{b.local}\0{b.site.target}\0{b.site.level}\0{b.name}\0".encode())
    for exported, local in symbols.exports:
        h.update(f"e{exported}\0{local}\0".encode())
    for s in symbols.stars:
        h.update(f"s{s.target}\0{s.level}\0".encode())
    for name, typed in symbols.fields:
        h.update(f"f{name}\0{typed}\0".encode())
    return h.hexdigest()


@dataclass(slots=True)
class _Surface:
    definitions: frozenset[str]
    bindings: dict[str, Binding]
    exports: dict[str, str]
    stars: tuple[ImportSite, ...]
    classes: frozenset[str] = frozenset()
    fields: dict[str, str] = field(default_factory=dict)


def _surface(symbols: FileSymbols) -> _Surface:
    return _Surface(
        frozenset(d.qualname for d in symbols.definitions),
        {b.local: b for b in symbols.bindings},
        dict(symbols.exports),
        symbols.stars,
        frozenset(d.qualname for d in symbols.definitions if d.kind == "class"),
        dict(symbols.fields),
    )


_STATE_KINDS = frozenset({"read", "write"})


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _is_module_file(path: str, name: str) -> bool:
    stem = path.rsplit("/", 1)[-1]
    return stem in (f"{name}.py", f"{name}.pyi") or path.endswith(
        (f"/{name}/__init__.py", f"/{name}/__init__.pyi")
    )


@dataclass
class Linker:
    """Lookups over one file set; ``files`` are the base's extractions by path.

    One linker serves one build: its lookup memo assumes the surfaces do not change under it.
    ``memo`` (site resolutions) depends only on the resolver and may be carried between builds
    that share it.
    """

    files: Mapping[str, FileSymbols]
    resolver: Resolver
    memo: dict[tuple[str, str, ImportSite], tuple[str, ...]] = field(default_factory=dict)
    _surfaces: dict[str, _Surface] = field(default_factory=dict)
    _found: dict[tuple[str, str], tuple[str | None, frozenset[str]]] = field(default_factory=dict)

    def surface(self, path: str) -> _Surface | None:
        hit = self._surfaces.get(path)
        if hit is None:
            symbols = self.files.get(path)
            if symbols is None:
                return None
            hit = self._surfaces[path] = _surface(symbols)
        return hit

    def site_files(self, importer: str, language: str, site: ImportSite) -> tuple[str, ...]:
        key = (_folder(importer), language, site)
        found = self.memo.get(key)
        if found is None:
            if language == "python":
                found = tuple(resolve_python(self.resolver.python, importer, site))
            elif language == "go":
                found = resolve_go(self.resolver.go, importer, site.target)
            else:
                one = resolve_js(self.resolver.js, importer, site.target)
                found = (one,) if one else ()
            self.memo[key] = found
        return found

    def binding_target(
        self, importer: str, language: str, binding: Binding
    ) -> tuple[str | None, bool]:
        """``(file, is_module)``: the file a binding names and whether it is the module itself."""
        site = binding.site
        if language == "python" and binding.name is not None:
            site = ImportSite(site.target, site.level, (binding.name,))
        files = self.site_files(importer, language, site)
        if not files:
            return None, False
        first = files[0]
        if binding.name is None:
            return first, True
        if language == "python" and _is_module_file(first, binding.name):
            return first, True
        return first, False

    def lookup(self, path: str, name: str, hops: int = 0) -> tuple[str | None, frozenset[str]]:
        """The symbol id ``name`` denotes in module ``path``, and the files read to find it."""
        key = (path, name)
        hit = self._found.get(key)
        if hit is not None:
            return hit
        result = self._lookup(path, name, hops)
        if hops == 0:
            self._found[key] = result
        return result

    def _lookup(self, path: str, name: str, hops: int) -> tuple[str | None, frozenset[str]]:
        surface = self.surface(path)
        read = frozenset((path,))
        if surface is None or hops > _MAX_HOPS:
            return None, read
        local = surface.exports.get(name, name)
        if local in surface.definitions:
            return symbol_id(path, local), read
        language = self.files[path].language
        binding = surface.bindings.get(local)
        if binding is not None:
            target, is_module = self.binding_target(path, language, binding)
            if target is None or is_module or binding.name is None:
                return None, read
            found, more = self.lookup(target, binding.name, hops + 1)
            return found, read | more
        for star in surface.stars:
            for target in self.site_files(path, language, star):
                found, more = self.lookup(target, name, hops + 1)
                read |= more
                if found is not None:
                    return found, read
        return None, read

    def member(self, symbol: str, members: list[str]) -> str:
        """Walk ``Class.method`` members down from ``symbol`` while they are defined."""
        path, _, qualname = symbol.partition("::")
        surface = self.surface(path)
        for m in members:
            if surface is None or f"{qualname}.{m}" not in surface.definitions:
                break
            qualname = f"{qualname}.{m}"
        return symbol_id(path, qualname)

    def link(self, path: str, symbols: FileSymbols) -> LinkedFile:
        """Resolve every reference of ``symbols`` as module ``path`` (its own names first)."""
        # The base's own file: reuse the surface that lookups build for it, not a second copy.
        cached = self.surface(path) if self.files.get(path) is symbols else None
        own = cached if cached is not None else _surface(symbols)
        depends: set[str] = set()
        # A dotted name means the same thing anywhere in the file, except under ``self``
        # (whose class is the scope's): resolve each once.
        known: dict[str, str | None] = {}
        typed: dict[tuple[str, bool], str | None] = {}
        targets: list[str | None] = []
        for ref in symbols.references:
            if ref.kind not in _LINKED_KINDS:
                targets.append(None)
            elif ref.via or (ref.kind in _STATE_KINDS and not ref.name.startswith("self.")):
                key = (ref.name, bool(ref.via))
                if key not in typed:
                    found = self._typed(path, symbols.language, own, ref.name, depends)
                    if found is None and not ref.via:  # a module variable or an attribute
                        found = self._reference(path, symbols.language, own, ref, depends)
                    typed[key] = found
                targets.append(typed[key])
            elif ref.name.startswith("self."):
                targets.append(self._reference(path, symbols.language, own, ref, depends))
            elif ref.name in known:
                targets.append(known[ref.name])
            else:
                found = self._reference(path, symbols.language, own, ref, depends)
                targets.append(known.setdefault(ref.name, found))
        depends.discard(path)
        return LinkedFile(tuple(targets), frozenset(depends))

    def _class(
        self, path: str, language: str, own: _Surface, chain: str, depends: set[str]
    ) -> str | None:
        """The class ``chain`` names in module ``path`` (as written there), else ``None``."""
        found = self._reference(path, language, own, Reference(chain, "use", 0), depends)
        if found is None:
            return None
        where, qualname = split_id(found)
        surface = own if where == path else self.surface(where)
        last = chain.rsplit(".", 1)[-1]
        if surface is None or qualname not in surface.classes or qualname.split(".")[-1] != last:
            return None
        return found

    def _typed(
        self, path: str, language: str, own: _Surface, name: str, depends: set[str]
    ) -> str | None:
        """``Type.member...`` walked completely: the shortest prefix naming a class, then each
        member a field (followed through its type; the last one named itself) or a definition."""
        parts = name.split(".")
        for k in range(1, len(parts)):
            head = self._class(path, language, own, ".".join(parts[:k]), depends)
            if head is not None:
                return self._walk(path, language, own, head, parts[k:], depends)
        return None

    def _walk(
        self,
        path: str,
        language: str,
        own: _Surface,
        head: str,
        rest: list[str],
        depends: set[str],
    ) -> str | None:
        where, qualname = split_id(head)
        for n, part in enumerate(rest):
            surface = own if where == path else self.surface(where)
            if surface is None:
                return None
            depends.add(where)
            member, last = f"{qualname}.{part}", n == len(rest) - 1
            if member in surface.definitions and (last or member not in surface.fields):
                qualname = member
            elif member in surface.fields:
                if last:
                    return symbol_id(where, member)
                typed = surface.fields[member]
                found = self._class(where, language, surface, typed, depends) if typed else None
                if found is None:
                    return None
                where, qualname = split_id(found)
            elif last and qualname in surface.classes:
                return symbol_id(where, member)  # an attribute set elsewhere: still the field
            else:
                return None
        return symbol_id(where, qualname)

    def _reference(
        self, path: str, language: str, own: _Surface, ref: Reference, depends: set[str]
    ) -> str | None:
        root, *rest = ref.name.split(".")
        if root == "?":
            return None  # a method of an unknown object: matched by name later, not here
        if root == "self":
            cls = ref.scope.rsplit(".", 1)[0] if "." in ref.scope else None
            if cls is None or not rest:
                return None
            return symbol_id(path, f"{cls}.{rest[0]}")
        if root in own.definitions:
            return self._members_local(path, own, root, rest)
        binding = own.bindings.get(root)
        if binding is not None:
            return self._via_binding(path, language, binding, rest, depends)
        for star in own.stars:
            for target in self.site_files(path, language, star):
                found, read = self.lookup(target, root)
                depends |= read
                if found is not None:
                    return self.member(found, rest)
        return None

    @staticmethod
    def _members_local(path: str, own: _Surface, root: str, rest: list[str]) -> str:
        qualname = root
        for m in rest:
            if f"{qualname}.{m}" not in own.definitions:
                break
            qualname = f"{qualname}.{m}"
        return symbol_id(path, qualname)

    def _via_binding(
        self, path: str, language: str, binding: Binding, rest: list[str], depends: set[str]
    ) -> str | None:
        target, is_module = self.binding_target(path, language, binding)
        if target is None:
            return None
        depends.add(target)
        if not is_module:
            found, read = self.lookup(target, binding.name or "")
            depends |= read
            return None if found is None else self.member(found, rest)
        if not rest:
            return None  # the module object itself
        found, read = self.lookup(target, rest[0])
        depends |= read
        if found is None and language == "python":
            # ``import pkg`` then ``pkg.mod.fn``: one submodule level through the resolver
            module = f"{binding.site.target}.{rest[0]}" if binding.name is None else None
            files = self.site_files(path, language, ImportSite(module)) if module else ()
            if files and len(rest) > 1:
                depends.add(files[0])
                found, read = self.lookup(files[0], rest[1])
                depends |= read
                return None if found is None else self.member(found, rest[2:])
            return None
        return None if found is None else self.member(found, rest[1:])
