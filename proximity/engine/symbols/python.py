"""Python symbols with :mod:`ast`: definitions, references and import bindings of one module.

Indexed definitions are module functions, classes (nested classes too), their methods and
module-level constants; a function nested in a function belongs to the outer one. References
are recorded only for names that can name a symbol of the repository (the module's own
top-level names and its import bindings), attribute chains rooted at them, and attributes of
``self``/``cls`` (reads and writes, a mutating call such as ``self.items.append`` counting as a
write). A detailed extraction (``detail=True``, used on the two sides of a changed file) also
fills each definition's normalised header and body and its return-shape summary, and records
method calls on unknown objects (``obj.process()``), which the linker matches by name.

A detailed extraction also infers receiver types (issue 30): a variable's type from its
annotation, an annotated parameter, ``x = Cart(...)`` or ``with Cart() as x``, and a field's
from the class's ``fields``; a call, read or write through a typed receiver is recorded under
the type (``Cart.add``, ``via`` the variable), protocol calls (``in``, ``[]``, ``len()``,
``str()``, iteration, operators) as calls of the dunder method, and writes of module state
(``global`` names, mutation or item assignment of a module variable, an imported module's
attribute) as ``write`` references. Every extraction records class ``fields``.
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
from proximity.engine.symbols.pyast import (
    MUTATORS,
    call_shape,
    dotted,
    local_names,
    python_signature,
    return_shapes,
)

__all__ = ["extract_python_symbols", "python_signature"]

_COMPARE = {
    ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__",
    ast.Gt: "__gt__", ast.GtE: "__ge__",
}  # fmt: skip
_BINARY = {
    ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__", ast.Div: "__truediv__",
    ast.FloorDiv: "__floordiv__", ast.Mod: "__mod__", ast.Pow: "__pow__",
    ast.MatMult: "__matmul__", ast.BitAnd: "__and__", ast.BitOr: "__or__",
    ast.BitXor: "__xor__", ast.LShift: "__lshift__", ast.RShift: "__rshift__",
}  # fmt: skip
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
_PROTOCOL_BUILTINS = {
    "len": "__len__", "str": "__str__", "repr": "__repr__", "iter": "__iter__",
    "bool": "__bool__", "hash": "__hash__", "abs": "__abs__", "next": "__next__",
    "reversed": "__reversed__", "format": "__format__", "bytes": "__bytes__",
    "int": "__int__", "float": "__float__",
}  # fmt: skip
_SUBSCRIPT = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}

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


def _annotation(node: ast.expr | None) -> str | None:
    """The class an annotation names (``Cart``, ``models.Cart``, ``Optional[Cart]``,
    ``Cart | None``, ``"Cart"``), as written; ``None`` for anything else or a builtin."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("Optional", "typing.Optional"):
        return _annotation(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        for one, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(other, ast.Constant) and other.value is None:
                return _annotation(one)
        return None
    chain = dotted(node) if isinstance(node, ast.expr) else None
    return chain if chain is not None and chain.split(".")[0] not in _BUILTINS else None


def _constructed(value: ast.expr | None) -> str | None:
    """``Cart`` of ``Cart(...)``: the callee as written (the linker keeps it only if it is a
    class)."""
    if not isinstance(value, ast.Call):
        return None
    chain = dotted(value.func)
    return chain if chain is not None and chain.split(".")[0] not in _BUILTINS else None


def _class_fields(node: ast.ClassDef) -> dict[str, str]:
    """``{attr: type}`` of one class: class-level annotations and assignments (a class
    attribute without a known type maps to ``""``), typed properties, and ``self.attr``
    assigned a constructor call, an annotation or an annotated parameter in a method's own
    statements (nested blocks are not searched: cheap enough for every base file)."""
    out: dict[str, str] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.setdefault(stmt.target.id, _annotation(stmt.annotation) or "")
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, _constructed(stmt.value) or "")
        elif isinstance(stmt, _FUNCTIONS):
            _method_fields(stmt, out)
    return out


def _method_fields(node: ast.FunctionDef | ast.AsyncFunctionDef, out: dict[str, str]) -> None:
    params = [*node.args.posonlyargs, *node.args.args]
    if any(dotted(d) == "property" for d in node.decorator_list):
        typed = _annotation(node.returns)
        if typed:
            out.setdefault(node.name, typed)
        return
    if not params or any(dotted(d) == "staticmethod" for d in node.decorator_list):
        return
    me = params[0].arg
    types = {a.arg: _annotation(a.annotation) for a in (*params[1:], *node.args.kwonlyargs)}
    for stmt in node.body:
        targets: list[ast.expr]
        if isinstance(stmt, ast.AnnAssign):
            targets, typed = [stmt.target], _annotation(stmt.annotation)
        elif isinstance(stmt, ast.Assign):
            value = stmt.value
            by_param = types.get(value.id) if isinstance(value, ast.Name) else None
            targets, typed = stmt.targets, _constructed(value) or by_param
        else:
            continue
        for target in targets:
            chain = dotted(target) if isinstance(target, ast.Attribute) else None
            if typed and chain is not None and chain.count(".") == 1 and chain.startswith(me + "."):
                out.setdefault(chain.split(".")[1], typed)


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
        self.fields: list[tuple[str, str]] = []
        # detail only: per function scope, the inferred types of its names, and its globals
        self.envs: dict[str, dict[str, str]] = {}
        self.globals: dict[str, set[str]] = {}
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
        if self.detail and isinstance(stmt, ast.For | ast.AsyncFor):
            self._dunder(stmt.iter, "__iter__", stmt.lineno, scope, me, 0)
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
        names: tuple[tuple[int, str, bool], ...] = ()
        if self.detail:
            header = self._header(node)
            body = self._text(node.body, node.name, skip=())
            returns = return_shapes(node)
            names = local_names(node, first)
            self._environment(node, qualname)
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
                names,
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
        self.fields.extend((f"{qualname}.{k}", v) for k, v in _class_fields(node).items())
        if self.detail:  # class attributes set in the class body: writes of class state
            for stmt in node.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else []
                targets = [stmt.target] if isinstance(stmt, ast.AnnAssign) else targets
                for t in targets:
                    if isinstance(t, ast.Name):
                        ref = Reference(f"{qualname}.{t.id}", "write", stmt.lineno, qualname)
                        self.references.append(ref)
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

    def _environment(self, node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> None:
        """Types of a function's names, flow-insensitively: a name given two different types
        has none. Also the names it declares ``global``."""
        seen: dict[str, str | None] = {}

        def give(name: str, typed: str | None) -> None:
            if typed is not None or name in seen:
                seen[name] = typed if seen.get(name, typed) == typed else None

        args = node.args
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            give(a.arg, _annotation(a.annotation))
        for item in ast.walk(node):
            if isinstance(item, ast.Assign):
                value = item.value
                typed = _constructed(value)
                if typed is None and isinstance(value, ast.Name):
                    typed = seen.get(value.id)
                for target in item.targets:
                    if isinstance(target, ast.Name):
                        seen[target.id] = typed if seen.get(target.id, typed) == typed else None
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                give(item.target.id, _annotation(item.annotation))
            elif isinstance(item, ast.withitem) and isinstance(item.optional_vars, ast.Name):
                give(item.optional_vars.id, _constructed(item.context_expr))
            elif isinstance(item, ast.Global):
                self.globals.setdefault(qualname, set()).update(item.names)
        env = {k: v for k, v in seen.items() if v}
        if env:
            self.envs[qualname] = env

    def _typed(self, expr: ast.AST, scope: str, me: str | None) -> tuple[str, str] | None:
        """``(type, via)`` of an expression whose class is known: a typed name, ``self``, or
        an attribute chain on one (``ctx.store``: ``Context.store``, the linker follows the
        field's type)."""
        chain = dotted(expr) if isinstance(expr, ast.expr) else None
        if chain is None:
            return None
        root, _, rest = chain.partition(".")
        if me is not None and root == me:
            if "." not in scope:
                return None
            typed, via = scope.rsplit(".", 1)[0], f"self.{rest}" if rest else "self"
        else:
            found = self.envs.get(scope, {}).get(root)
            if found is None:
                return None
            typed, via = found, chain
        return (f"{typed}.{rest}" if rest else typed), via

    def _dunder(
        self, expr: ast.AST, method: str, line: int, scope: str, me: str | None, n: int = 1
    ) -> None:
        typed = self._typed(expr, scope, me)
        if typed is not None:
            name = f"{typed[0]}.{method}"
            self.references.append(Reference(name, "call", line, scope, CallShape(n), typed[1]))

    def _protocol(self, item: ast.AST, scope: str, me: str | None) -> None:
        """Protocol calls as calls of the receiver's dunder method (detail only)."""
        kind = type(item)
        if kind is ast.Compare:
            compare: ast.Compare = item  # type: ignore[assignment]
            left = compare.left
            for op, right in zip(compare.ops, compare.comparators, strict=True):
                if isinstance(op, ast.In | ast.NotIn):
                    self._dunder(right, "__contains__", compare.lineno, scope, me)
                elif type(op) in _COMPARE:
                    self._dunder(left, _COMPARE[type(op)], compare.lineno, scope, me)
                left = right
        elif kind is ast.BinOp:
            binary: ast.BinOp = item  # type: ignore[assignment]
            if type(binary.op) in _BINARY:
                self._dunder(binary.left, _BINARY[type(binary.op)], binary.lineno, scope, me)
        elif kind is ast.UnaryOp:
            unary: ast.UnaryOp = item  # type: ignore[assignment]
            if type(unary.op) in _UNARY:
                self._dunder(unary.operand, _UNARY[type(unary.op)], unary.lineno, scope, me, 0)
        elif kind is ast.Subscript:
            sub: ast.Subscript = item  # type: ignore[assignment]
            method = _SUBSCRIPT.get(type(sub.ctx), "__getitem__")
            self._dunder(sub.value, method, sub.lineno, scope, me, 2 if method[2] == "s" else 1)
        elif kind is ast.Call:
            call: ast.Call = item  # type: ignore[assignment]
            func = call.func
            if (
                isinstance(func, ast.Name)
                and func.id in _PROTOCOL_BUILTINS
                and func.id not in self.interesting
                and len(call.args) == 1
            ):
                self._dunder(call.args[0], _PROTOCOL_BUILTINS[func.id], call.lineno, scope, me, 0)
        elif kind is ast.comprehension:
            loop: ast.comprehension = item  # type: ignore[assignment]
            line = getattr(loop.iter, "lineno", 0)
            self._dunder(loop.iter, "__iter__", line, scope, me, 0)

    def _state_write(self, chain: str, line: int, scope: str, me: str | None) -> None:
        """A write of module or object state outside ``self``: a module variable's item or
        attribute, an imported module's attribute, a typed receiver's field (detail only)."""
        root, _, rest = chain.partition(".")
        if me is not None and root == me:
            return  # recorded as a write of self.<attr> already
        if root in self.interesting:
            self.references.append(Reference(chain, "write", line, scope))
            return
        found = self.envs.get(scope, {}).get(root)
        if found is not None and rest:
            self.references.append(Reference(f"{found}.{rest}", "write", line, scope, None, root))

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
                access = "write" if method in MUTATORS else "read"
                self.references.append(Reference(f"{root}.{attr}", access, line, scope))
            elif kind in ("read", "write"):
                self.references.append(Reference(f"{root}.{attr}", kind, line, scope))
                return
            if kind == "call" and "." not in rest:
                self.references.append(Reference(chain, "call", line, scope, shape))
            elif kind == "call" and self.detail and "." in scope:  # self.store.save()
                typed = f"{scope.rsplit('.', 1)[0]}.{rest}"
                receiver = f"self.{rest.rsplit('.', 1)[0]}"
                self.references.append(Reference(typed, "call", line, scope, shape, receiver))
            return
        open_call = self.starred and shape is not None and not rest and root not in _BUILTINS
        if root in self.interesting or open_call:
            self.references.append(Reference(chain, "call" if shape else "use", line, scope, shape))
            if self.detail and kind in ("read", "write") and rest:
                # a class attribute or a module's variable: state the linker may resolve
                self.references.append(Reference(chain, kind, line, scope))
            elif self.detail and kind == "call" and rest and chain.rsplit(".", 1)[-1] in MUTATORS:
                self.references.append(Reference(chain.rsplit(".", 1)[0], "write", line, scope))
        elif self.detail and rest and root in self.envs.get(scope, {}):
            typed = f"{self.envs[scope][root]}.{rest}"
            access = "read" if kind == "use" else kind
            receiver = chain.rsplit(".", 1)[0]  # ctx.store of ctx.store.save()
            self.references.append(Reference(typed, access, line, scope, shape, receiver))
            if kind == "call" and "." in rest and rest.rsplit(".", 1)[-1] in MUTATORS:
                self.references.append(
                    Reference(typed.rsplit(".", 1)[0], "write", line, scope, None, root)
                )
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
        detail = self.detail
        declared = self.globals.get(scope, ())
        while stack:
            item = pop()
            kind = type(item)
            if detail:
                self._protocol(item, scope, me)
            if kind is ast.Name:
                if type(item.ctx) is ast.Load and item.id in interesting:  # type: ignore[attr-defined]
                    references.append(Reference(item.id, "use", item.lineno, scope))  # type: ignore[attr-defined]
                elif item.id in declared and type(item.ctx) is ast.Store:  # type: ignore[attr-defined]
                    references.append(Reference(item.id, "write", item.lineno, scope))  # type: ignore[attr-defined]
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
                    if detail and chain is not None:
                        self._state_write(chain, subscript.lineno, scope, me)
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
        tuple(extractor.fields),
    )
