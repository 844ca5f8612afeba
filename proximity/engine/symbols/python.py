"""Python symbols with :mod:`ast`: definitions, references and import bindings of one module.

Indexed definitions are module functions, classes (nested classes too), their methods and
module-level constants; a function nested in a function belongs to the outer one. References
are recorded only for names that can name a symbol of the repository (the module's own
top-level names and its import bindings), attribute chains rooted at them, and attributes of
``self``/``cls`` (reads and writes, a mutating call such as ``self.items.append`` counting as a
write). A detailed extraction (``detail=True``, used on the two sides of a changed file) also
fills each definition's normalised header and body and its return-shape summary, and records
method calls on unknown objects (``obj.process()``), which the linker matches by name.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import re
from collections.abc import Iterable, Sequence
from operator import attrgetter

from proximity.engine.imports.model import ImportSite
from proximity.engine.symbols.model import (
    Binding,
    CallShape,
    Definition,
    FileSymbols,
    Reference,
)
from proximity.engine.symbols.pyast import call_shape, dotted, python_signature, return_shapes

__all__ = ["extract_python_symbols", "python_signature"]

_MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault", "add",
    "discard", "popitem", "sort", "reverse",
})  # fmt: skip
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)


_BUILTINS = frozenset(dir(builtins))
_WORD = re.compile(r"[A-Za-z_]\w*")
_LOCAL_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]+([^#\n]+)", re.M)
# Filled on first sight of a class; racing threads store equal tuples.
_FIELDS: dict[type, tuple[str, ...]] = {}
_REFERENCE_ORDER = attrgetter("line", "kind", "name")


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of an AST class that can hold nodes (``ctx`` never holds a reference)."""
    hit = _FIELDS.get(kind)
    if hit is None:
        hit = _FIELDS[kind] = tuple(f for f in kind._fields if f != "ctx")  # type: ignore[attr-defined]
    return hit


def _marks(text: str, names: set[str]) -> list[int]:
    """Sorted line numbers that show a name worth recording (or ``self``/``cls``, or an
    import, whose names join the set): a statement without one is skipped unvisited.

    Names imported inside functions are found by a regular expression over the import lines
    (an over-approximation, which only costs visits)."""
    wanted = set(names) | {"self", "cls", "import"}
    for match in _LOCAL_IMPORT.finditer(text):
        for part in match.group(1).replace("(", " ").replace(")", " ").split(","):
            words = part.split()
            if words:
                wanted.add(words[-1].split(".")[0])
    find = _WORD.findall
    return [k for k, line in enumerate(text.split("\n"), 1) if not wanted.isdisjoint(find(line))]


class _Extractor:
    """One pass over the tree; ``interesting`` are the names worth recording as references."""

    def __init__(self, tree: ast.Module, lines: Sequence[str] | None, text: str) -> None:
        self.lines = lines
        self.detail = lines is not None
        self.definitions: list[Definition] = []
        self.references: list[Reference] = []
        self.bindings: list[Binding] = []
        self.stars: list[ImportSite] = []
        self.constants: set[str] = set()
        # After ``from m import *`` (legal at module level only, where the pre-pass looks)
        # any bare call may name a symbol of m: calls are recorded whatever their name
        # (builtins aside) and no statement can be skipped.
        self.starred = False
        self.interesting = self._top_names(tree.body)
        self.marks = None if self.detail or self.starred else _marks(text, self.interesting)

    def _marked(self, node: ast.AST) -> bool:
        """Can ``node`` hold a recorded reference? (Exact: each one names a marked token.)"""
        marks = self.marks
        start = getattr(node, "lineno", None)
        if marks is None or start is None:  # withitem, comprehension, ...: no position
            return True
        first = bisect.bisect_left(marks, start)
        end = getattr(node, "end_lineno", None) or start
        return first < len(marks) and marks[first] <= end

    def _top_names(self, body: Iterable[ast.stmt]) -> set[str]:
        names: set[str] = set()
        for stmt in body:
            if isinstance(stmt, (*_FUNCTIONS, ast.ClassDef)):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                for alias in stmt.names:
                    names.add((alias.asname or alias.name).split(".")[0])
                    self.starred = self.starred or alias.name == "*"
            elif isinstance(stmt, ast.If | ast.Try | ast.With):
                for block in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(stmt, block, [])
                    if block == "handlers":
                        inner = [s for h in inner for s in h.body]
                    names |= self._top_names(inner)
        return names

    # statements -------------------------------------------------------------------------

    def body(self, stmts: Iterable[ast.stmt], scope: str, cls: str | None, me: str | None) -> None:
        for stmt in stmts:
            self.stmt(stmt, scope, cls, me)

    def stmt(self, stmt: ast.stmt, scope: str, cls: str | None, me: str | None) -> None:
        if isinstance(stmt, _FUNCTIONS):
            self.function(stmt, scope, cls, me)
        elif isinstance(stmt, ast.ClassDef):
            self.klass(stmt, scope, cls, me)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            self.imports(stmt, scope)
        elif isinstance(stmt, _COMPOUND):
            self.compound(stmt, scope, cls, me)
        else:
            if scope == "" and isinstance(stmt, ast.Assign | ast.AnnAssign):
                self.constant(stmt)
            if self._marked(stmt):
                self.node(stmt, scope, me)

    def compound(self, stmt: ast.stmt, scope: str, cls: str | None, me: str | None) -> None:
        """``if``/``for``/``while``/``with``/``try``/``match``: conditions as expressions, each
        block as statements, so a conditional ``def`` or constant is still indexed."""
        for name, value in ast.iter_fields(stmt):
            if name in ("body", "orelse", "finalbody"):
                self.body(value, scope, cls, me)
            elif name == "handlers":
                for handler in value:
                    if handler.type is not None:
                        self.node(handler.type, scope, me)
                    self.body(handler.body, scope, cls, me)
            elif name == "cases":
                for case in value:
                    if case.guard is not None:
                        self.node(case.guard, scope, me)
                    self.body(case.body, scope, cls, me)
            elif isinstance(value, ast.AST):
                if self._marked(value):
                    self.node(value, scope, me)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and self._marked(item):
                        self.node(item, scope, me)

    def _span(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[int, int]:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        return start, node.end_lineno or node.lineno

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        scope: str,
        cls: str | None,
        me: str | None,
    ) -> None:
        if scope and cls != scope:  # nested in a function: part of the outer definition
            self.node(node, scope, me)
            return
        qualname = f"{cls}.{node.name}" if cls else node.name
        static = any(dotted(d) == "staticmethod" for d in node.decorator_list)
        bound = cls is not None and not static
        start, end = self._span(node)
        signature = python_signature(node.args)
        params = [*node.args.posonlyargs, *node.args.args]
        first = params[0].arg if bound and params else None
        header, body = "", ""
        returns: tuple[str, ...] = ()
        if self.detail:
            header = self._header(node)
            body = self._text(node.body, node.name, skip=())
            returns = return_shapes(node)
        self.definitions.append(
            Definition(
                qualname,
                "method" if cls else "function",
                start,
                end,
                signature,
                bound,
                header,
                body,
                returns,
            )
        )
        for part in (*node.decorator_list, *([node.returns] if node.returns else [])):
            if self._marked(part):
                self.node(part, qualname, None)
        for arg in (*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)):
            if self._marked(arg):
                self.node(arg, qualname, None)
        self.body(node.body, qualname, None, first)

    def klass(self, node: ast.ClassDef, scope: str, cls: str | None, me: str | None) -> None:
        if scope and cls != scope:
            self.node(node, scope, me)
            return
        qualname = f"{cls}.{node.name}" if cls else node.name
        start, end = self._span(node)
        header = body = ""
        if self.detail:
            header = "|".join(ast.unparse(x) for x in (*node.decorator_list, *node.bases))
            inner = [s for s in node.body if isinstance(s, (*_FUNCTIONS, ast.ClassDef))]
            body = self._text(node.body, node.name, skip=inner)
        self.definitions.append(
            Definition(qualname, "class", start, end, None, False, header, body)
        )
        for part in (*node.decorator_list, *node.bases, *node.keywords):
            if self._marked(part):
                self.node(part, qualname, None)
        self.body(node.body, qualname, qualname, None)

    def constant(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id not in self.constants:
                self.constants.add(target.id)
                body = self._text([stmt], target.id, skip=()) if self.detail else ""
                end = stmt.end_lineno or stmt.lineno
                self.definitions.append(
                    Definition(target.id, "constant", stmt.lineno, end, body=body)
                )

    def imports(self, stmt: ast.Import | ast.ImportFrom, scope: str) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                module = alias.name if alias.asname else alias.name.split(".")[0]
                self._bind(Binding(local, ImportSite(module)), stmt.lineno, scope)
            return
        if stmt.module == "__future__":
            return
        site = ImportSite(stmt.module or "", stmt.level, ())
        for alias in stmt.names:
            if alias.name == "*":
                self.stars.append(site)
                continue
            self._bind(Binding(alias.asname or alias.name, site, alias.name), stmt.lineno, scope)

    def _bind(self, binding: Binding, line: int, scope: str) -> None:
        self.bindings.append(binding)
        self.interesting.add(binding.local)
        self.references.append(Reference(binding.local, "import", line, scope))

    # expressions ------------------------------------------------------------------------

    def _attribute(
        self,
        chain: str,
        kind: str,
        line: int,
        scope: str,
        me: str | None,
        shape: CallShape | None = None,
    ) -> None:
        root, _, rest = chain.partition(".")
        if me is not None and root == me and rest:
            root = "self"  # whatever the first parameter is called
            chain = f"self.{rest}"
            attr = rest.split(".", 1)[0]
            if kind == "call" and "." in rest:  # self.items.append(...): a write of items
                method = rest.rsplit(".", 1)[-1]
                access = "write" if method in _MUTATORS else "read"
                self.references.append(Reference(f"{root}.{attr}", access, line, scope))
            elif kind in ("read", "write"):
                self.references.append(Reference(f"{root}.{attr}", kind, line, scope))
                return
            if kind == "call" and "." not in rest:
                self.references.append(Reference(chain, "call", line, scope, shape))
            return
        open_call = self.starred and shape is not None and not rest and root not in _BUILTINS
        if root in self.interesting or open_call:
            self.references.append(Reference(chain, "call" if shape else "use", line, scope, shape))
        elif self.detail and kind == "call" and rest:
            # obj.method(...): the linker matches the method by a unique name in the index
            member = rest.rsplit(".", 1)[-1]
            self.references.append(Reference(f"?.{member}", "call", line, scope, shape))

    def node(self, node: ast.AST, scope: str, me: str | None) -> None:
        """Record the references under ``node`` (iteratively: deep expressions are common).

        The hot loop of a cold build: dispatch on the exact class (``ast.parse`` makes no
        subclasses) and push children straight from ``_fields``, skipping ``ctx``, which
        holds nothing to record."""
        stack: list[ast.AST] = [node]
        pop, push, extend = stack.pop, stack.append, stack.extend
        interesting, references = self.interesting, self.references
        while stack:
            item = pop()
            kind = type(item)
            if kind is ast.Name:
                if type(item.ctx) is ast.Load and item.id in interesting:  # type: ignore[attr-defined]
                    references.append(Reference(item.id, "use", item.lineno, scope))  # type: ignore[attr-defined]
            elif kind is ast.Call:
                call: ast.Call = item  # type: ignore[assignment]
                chain = dotted(call.func)
                if chain is not None:  # the whole chain is one reference
                    self._attribute(chain, "call", call.lineno, scope, me, call_shape(call))
                else:
                    push(call.func)
                extend(call.args)
                extend(k.value for k in call.keywords)
            elif kind is ast.Attribute:
                attribute: ast.Attribute = item  # type: ignore[assignment]
                chain = dotted(attribute)
                if chain is None:
                    push(attribute.value)
                    continue
                access = "write" if isinstance(attribute.ctx, ast.Store | ast.Del) else "read"
                self._attribute(chain, access, attribute.lineno, scope, me)
            elif kind is ast.Subscript and isinstance(item.ctx, ast.Store | ast.Del):  # type: ignore[attr-defined]
                subscript: ast.Subscript = item  # type: ignore[assignment]
                chain = dotted(subscript.value)  # self.cache[key] = value: a write of cache
                if chain is not None and me is not None and chain.startswith(me + "."):
                    self._attribute(chain, "write", subscript.lineno, scope, me)
                else:
                    push(subscript.value)
                push(subscript.slice)
            elif kind is ast.AugAssign:
                augmented: ast.AugAssign = item  # type: ignore[assignment]
                chain = dotted(augmented.target)
                if chain is not None and me is not None and chain.startswith(me + "."):
                    self._attribute(chain, "write", augmented.lineno, scope, me)
                else:
                    push(augmented.target)
                push(augmented.value)
            elif kind is ast.Import or kind is ast.ImportFrom:
                self.imports(item, scope)  # type: ignore[arg-type]
            else:
                for field in _child_fields(kind):
                    value = getattr(item, field, None)
                    if isinstance(value, ast.AST):
                        push(value)
                    elif isinstance(value, list):
                        extend([v for v in value if isinstance(v, ast.AST)])

    # detail text ------------------------------------------------------------------------

    def _header(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        parts = [ast.unparse(d) for d in node.decorator_list]
        parts.append(f"({ast.unparse(node.args)})")
        if node.returns is not None:
            parts.append("->" + ast.unparse(node.returns))
        return "|".join(parts)

    def _text(self, stmts: Sequence[ast.stmt], name: str, *, skip: Sequence[ast.stmt]) -> str:
        """Stripped source lines of ``stmts`` minus ``skip`` spans; comments and blanks
        dropped, the definition's own name replaced, so a pure rename keeps the same text."""
        lines = self.lines or ()
        excluded = {
            k for s in skip for k in range(self._span_of(s)[0], (s.end_lineno or s.lineno) + 1)
        }
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        out = []
        for stmt in stmts:
            for k in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                if k in excluded or k > len(lines):
                    continue
                line = " ".join(lines[k - 1].split())  # spacing is not a change
                if line and not line.startswith("#"):
                    out.append(pattern.sub("\0", line))
        return "\n".join(out)

    @staticmethod
    def _span_of(node: ast.stmt) -> tuple[int, int]:
        decorators = getattr(node, "decorator_list", [])
        return min([node.lineno, *(d.lineno for d in decorators)]), node.end_lineno or node.lineno


def extract_python_symbols(source: bytes | str, *, detail: bool = False) -> FileSymbols:
    """Definitions, references and bindings of one Python module.

    A module that does not parse yields no symbols and an ``error`` naming the line, so one
    broken file never stops a whole-repository build.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return FileSymbols("python", error=f"line {line}: {message}", detailed=detail)
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    lines = text.splitlines() if detail else None
    extractor = _Extractor(tree, lines, text)
    extractor.body(tree.body, "", None, None)
    references = sorted(extractor.references, key=_REFERENCE_ORDER)
    return FileSymbols(
        "python",
        tuple(extractor.definitions),
        tuple(references),
        tuple(extractor.bindings),
        (),
        tuple(extractor.stars),
        None,
        detail,
    )
