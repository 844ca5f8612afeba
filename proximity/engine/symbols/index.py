"""The symbol index of one file set (a base commit): extractions linked into ids and uses.

Built like the import graph: per-file extractions are keyed by content hash by the caller (the
sources layer keeps them in a cache), and :meth:`SymbolIndex.build` with ``previous`` re-links
only files whose content changed and files whose imports read a changed surface; everything
else is carried over. Whole-index views (who uses a symbol, which definitions share a member
name) are built lazily, once per index.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from functools import cached_property

from proximity.engine.imports.link import Resolver
from proximity.engine.symbols.link import LinkedFile, Linker, surface_key
from proximity.engine.symbols.model import Definition, FileSymbols, split_id, symbol_id

__all__ = ["SymbolIndex"]

_EDGE_KINDS = frozenset({"call", "use"})


class SymbolIndex:
    """Definitions and resolved references of a file set.

    ``relinked`` lists the files linked in this build and ``extracted`` the files whose
    extraction was computed for it (by the caller, who keeps the cache): together the proof
    that an incremental build did little.
    """

    def __init__(
        self,
        files: Mapping[str, FileSymbols],
        blobs: Mapping[str, str],
        linked: Mapping[str, LinkedFile],
        surfaces: Mapping[str, str],
        linker: Linker,
        relinked: tuple[str, ...],
        extracted: tuple[str, ...] = (),
    ) -> None:
        self.files = files
        self.blobs = blobs
        self.linked = linked
        self.surfaces = surfaces
        self.linker = linker
        self.relinked = relinked
        self.extracted = extracted
        self._definitions: dict[str, dict[str, Definition]] = {}
        self._forward: dict[str, dict[str, tuple[str, ...]]] = {}

    @classmethod
    def build(
        cls,
        files: Mapping[str, FileSymbols],
        blobs: Mapping[str, str],
        resolver: Resolver,
        *,
        previous: SymbolIndex | None = None,
        extracted: tuple[str, ...] = (),
    ) -> SymbolIndex:
        """Link ``files`` (``{path: extraction}``, ``blobs`` their content hashes).

        With ``previous`` built on the same resolver (same paths and configs), a file is
        re-linked only if its blob changed or a file it read during its last linking changed
        its surface (names, bindings, exports) or disappeared.
        """
        same = previous is not None and previous.linker.resolver.key == resolver.key
        memo = previous.linker.memo if same and previous is not None else {}
        linker = Linker(files, resolver, memo)
        surfaces: dict[str, str] = {}
        changed: set[str] = set()
        for path, symbols in files.items():
            if same and previous is not None and previous.blobs.get(path) == blobs.get(path):
                surfaces[path] = previous.surfaces[path]
                continue
            surfaces[path] = surface_key(symbols)
            if previous is None or previous.surfaces.get(path) != surfaces[path]:
                changed.add(path)
        if previous is not None:
            changed.update(p for p in previous.files if p not in files)
        linked: dict[str, LinkedFile] = {}
        relinked: list[str] = []
        for path, symbols in files.items():
            old = previous.linked.get(path) if same and previous is not None else None
            fresh = old is None or previous is None or previous.blobs.get(path) != blobs.get(path)
            if fresh or (old is not None and not old.depends.isdisjoint(changed)):
                linked[path] = linker.link(path, symbols)
                relinked.append(path)
            elif old is not None:
                linked[path] = old
        return cls(files, blobs, linked, surfaces, linker, tuple(sorted(relinked)), extracted)

    # lookups ----------------------------------------------------------------------------

    def definitions(self, path: str) -> dict[str, Definition]:
        """``{qualname: definition}`` of one file (the first of a repeated qualname)."""
        hit = self._definitions.get(path)
        if hit is None:
            symbols = self.files.get(path)
            hit = {}
            for d in symbols.definitions if symbols is not None else ():
                hit.setdefault(d.qualname, d)
            self._definitions[path] = hit
        return hit

    def definition(self, symbol: str) -> Definition | None:
        path, qualname = split_id(symbol)
        return self.definitions(path).get(qualname)

    def _file_uses(self, path: str) -> dict[str, tuple[str, ...]]:
        hit = self._forward.get(path)
        if hit is None:
            symbols, linked = self.files.get(path), self.linked.get(path)
            out: dict[str, set[str]] = defaultdict(set)
            if symbols is not None and linked is not None:
                for ref, target in zip(symbols.references, linked.targets, strict=True):
                    if target is not None and ref.scope and ref.kind in _EDGE_KINDS:
                        source = symbol_id(path, ref.scope)
                        if target != source and self.definition(target) is not None:
                            out[source].add(target)
            hit = self._forward[path] = {k: tuple(sorted(v)) for k, v in out.items()}
        return hit

    def uses(self, symbol: str) -> tuple[str, ...]:
        """Definitions ``symbol``'s own code calls or names (its out-edges)."""
        return self._file_uses(split_id(symbol)[0]).get(symbol, ())

    @cached_property
    def _users(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = defaultdict(list)
        for path in self.files:
            for source, targets in self._file_uses(path).items():
                for target in targets:
                    out[target].append(source)
        return {k: tuple(sorted(v)) for k, v in out.items()}

    def users(self, symbol: str) -> tuple[str, ...]:
        """Definitions whose code calls or names ``symbol`` (its in-edges)."""
        return self._users.get(symbol, ())

    @cached_property
    def _naming(self) -> dict[str, frozenset[str]]:
        """Files by the last part of every name their code references (``options.define``
        -> ``define``)."""
        out: dict[str, set[str]] = defaultdict(set)
        for path, symbols in self.files.items():
            for ref in symbols.references:
                out[ref.name.rsplit(".", 1)[-1]].add(path)
        return {k: frozenset(v) for k, v in out.items()}

    def callers(self, symbol: str) -> int:
        """How many other files of the index call or name ``symbol``: its resolved users' files,
        and every file that references its bare name (a method called through a receiver whose
        type is not inferred is still called there). A bounded index counts up to its bound."""
        path, qualname = split_id(symbol)
        files = {split_id(user)[0] for user in self.users(symbol)}
        files |= self._naming.get(qualname.rsplit(".", 1)[-1], frozenset())
        owner, _, member = qualname.rpartition(".")
        if owner and member in ("__init__", "__new__", "constructor"):  # run by calling the class
            files |= {split_id(user)[0] for user in self.users(symbol_id(path, owner))}
            files |= self._naming.get(owner.rsplit(".", 1)[-1], frozenset())
        files.discard(path)
        return len(files)

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for path, symbols in self.files.items():
            for d in symbols.definitions:
                if d.kind in ("function", "method"):
                    out[d.name].append(symbol_id(path, d.qualname))
        return out

    def unique_callable(self, name: str) -> str | None:
        """The one function or method of the index called ``name``, if exactly one is."""
        found = self._by_name.get(name, ())
        return found[0] if len(found) == 1 else None

    def link_foreign(self, path: str, symbols: FileSymbols) -> LinkedFile:
        """Link another version of a file (a worktree's) against this index's modules."""
        return self.linker.link(path, symbols)
