"""Records of the symbol index: definitions, references, import bindings, one file's symbols.

A symbol is named ``<path>::<qualname>`` (``app/util.py::Model.total``), the path being the file
in the base commit, so ids from two branches of one base compare directly. Extraction fills
these records from source text (Python here, with :mod:`ast`; JavaScript and TypeScript in
``proximity.sources.symbols`` with tree-sitter); linking resolves references to ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from proximity.engine.imports.model import ImportSite

__all__ = [
    "EXTRACT_VERSION",
    "SYMBOL_VERSION",
    "Binding",
    "CallShape",
    "Definition",
    "FileSymbols",
    "Param",
    "Reference",
    "Signature",
    "local_base",
    "split_id",
    "symbol_id",
]

EXTRACT_VERSION = 4
"""Bumped whenever an extractor's output changes, so cached extractions are not reused."""

SYMBOL_VERSION = "symbols-2026.12.6"
"""Extraction, change classification and the symbol channel's rules; travels with results."""

KINDS = ("function", "class", "method", "constant", "type", "field")
REFERENCE_KINDS = ("call", "use", "import", "export", "read", "write")


def symbol_id(path: str, qualname: str) -> str:
    return f"{path}::{qualname}"


def split_id(symbol: str) -> tuple[str, str]:
    """``(path, qualname)`` of a symbol id."""
    path, _, qualname = symbol.partition("::")
    return path, qualname


def local_base(name: str) -> str:
    """The variable a local key names: ``session`` of ``session.verify`` and ``rows[]``."""
    end = len(name)
    for mark in ".[":
        k = name.find(mark)
        if 0 <= k < end:
            end = k
    return name[:end]


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: ``kind`` is posonly, normal, varargs, kwonly or varkw."""

    name: str
    kind: str = "normal"
    default: bool = False


@dataclass(frozen=True, slots=True)
class CallShape:
    """How a call passes its arguments: positional count, keyword names, any ``*``/``**``."""

    positional: int = 0
    keywords: tuple[str, ...] = ()
    starred: bool = False


@dataclass(frozen=True, slots=True)
class Signature:
    params: tuple[Param, ...] = ()

    @property
    def text(self) -> str:
        """``(a, b=…, *args, c, **kw)``: names, kinds and which have defaults."""
        out: list[str] = []
        star = False
        for p in self.params:
            if p.kind == "kwonly" and not star:
                out.append("*")
                star = True
            prefix = {"varargs": "*", "varkw": "**"}.get(p.kind, "")
            star = star or p.kind == "varargs"
            out.append(f"{prefix}{p.name}{'=…' if p.default else ''}")
        return f"({', '.join(out)})"

    def accepts(self, call: CallShape, *, bound: bool = False) -> bool | None:
        """Would ``call`` bind to these parameters? ``None`` when it cannot be told (``*args``).

        ``bound`` drops the first parameter (a method called on an instance or class). The
        rule is Python's: positional arguments fill positional parameters in order, keywords
        fill the rest by name, every parameter without a default must be filled.
        """
        if call.starred:
            return None
        params = self.params[1:] if bound and self.params else self.params
        positional = [p for p in params if p.kind in ("posonly", "normal")]
        if call.positional > len(positional) and not any(p.kind == "varargs" for p in params):
            return False
        filled = {p.name for p in positional[: call.positional]}
        by_name = {p.name: p for p in params if p.kind in ("normal", "kwonly")}
        takes_any = any(p.kind == "varkw" for p in params)
        for name in call.keywords:
            if name in filled or (name not in by_name and not takes_any):
                return False
            filled.add(name)
        required = (p for p in params if p.kind not in ("varargs", "varkw") and not p.default)
        return all(p.name in filled for p in required)


@dataclass(frozen=True, slots=True)
class Definition:
    """A module function, class, method, module constant or (TypeScript) type, or a field
    (JS/TS: a class field, an interface's or object type's member, an object literal's
    non-function property; its ``parent`` is the class, type or constant).

    ``start``/``end`` are inclusive 1-based lines, decorators included. ``bound`` marks a
    method whose first parameter is the instance or class. ``header``, ``body`` and
    ``returns`` are filled only by a detailed extraction (the change classifier's): the
    normalised signature text, the normalised body text with the definition's own name
    replaced (identity modulo the name, and similarity for rename detection), and a summary of
    what its ``return`` statements return (``none``, ``tuple/2``, ``dict{a,b}``, ``str``, ...).
    ``names`` (detailed, functions and methods only) are its local names as ``(line, name,
    written)``, one per line and name: where the data flows inside the body, so two edits of
    one body can be told apart from two edits that meet through a variable.
    """

    qualname: str
    kind: str
    start: int
    end: int
    signature: Signature | None = None
    bound: bool = False
    header: str = ""
    body: str = ""
    returns: tuple[str, ...] = ()
    names: tuple[tuple[int, str, bool], ...] = ()

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def parent(self) -> str | None:
        """The enclosing class's qualname for a method, else ``None``."""
        return self.qualname.rsplit(".", 1)[0] if "." in self.qualname else None


@dataclass(frozen=True, slots=True)
class Reference:
    """One use of a name as written (``helper``, ``util.helper``, ``self.cache``).

    ``kind``: call, use (a load that is not a call), import (a name an import statement
    brings in), export (a re-export), read and write (an attribute of ``self``/``this``).
    ``scope`` is the qualname of the innermost indexed definition around it, ``""`` at
    module level. ``via`` is set on a reference written through a receiver whose type was
    inferred: the receiver as written (``x`` in ``x = Cart(); x.add()``, ``name`` then reads
    ``Cart.add``; ``ctx.store`` in ``ctx.store.save()``; ``self.store`` for a field of the own
    class), on a protocol call (``len(x)``: ``Cart.__len__``) and on a write
    of module state (``global``), so the linker resolves it only completely and the evidence
    can say how it was found.
    """

    name: str
    kind: str
    line: int
    scope: str = ""
    call: CallShape | None = None
    via: str = ""


@dataclass(frozen=True, slots=True)
class Binding:
    """An import binding: ``local`` names module ``site`` itself (``name`` None) or a name in it."""

    local: str
    site: ImportSite
    name: str | None = None


@dataclass(frozen=True, slots=True)
class FileSymbols:
    """Everything extracted from one file; picklable, cached by blob hash.

    ``exports`` are ``(exported, local)`` names of JavaScript ``export { local as exported }``
    clauses; every module-level name of a Python module is importable. ``stars`` are
    ``from m import *`` / ``export * from 'm'`` sites, searched for names not found otherwise.
    ``fields`` are ``(Class.attr, type)`` pairs, the type as written in this module (``Store``,
    ``models.Store``), from class-level annotations and ``self.attr`` assignments of a
    constructor call, an annotation or an annotated parameter: how a typed receiver's
    attribute chain (``ctx.store.save()``) is followed across modules.
    """

    language: str
    definitions: tuple[Definition, ...] = ()
    references: tuple[Reference, ...] = ()
    bindings: tuple[Binding, ...] = ()
    exports: tuple[tuple[str, str], ...] = ()
    stars: tuple[ImportSite, ...] = ()
    error: str | None = None
    detailed: bool = False
    fields: tuple[tuple[str, str], ...] = ()
