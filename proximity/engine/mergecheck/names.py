"""What one Python module binds, imports and leaves undefined: Python's own scoping, with ast.

The symbol index records only names that can name a repository symbol, so it cannot say that a
name is *not* bound; this pass records every binding (assignment and unpacking targets, ``for``,
``with``, ``except``, ``match`` captures, walrus, ``del``, imports, ``def``, ``class``, ``global``)
in its scope and resolves every load by the LEGB rule: class bodies are skipped by the scopes
nested in them, comprehensions have their own scope, defaults, decorators and annotations are
evaluated where the definition stands. A module whose names cannot be told from its text (a star
import, ``globals()``, ``exec``) is marked open and yields no undefined names.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ImportUse", "ModuleBinding", "ModuleFacts", "module_facts"]

_BUILTINS = frozenset(dir(builtins)) | {
    # module and class attributes the compiler provides, builtins of other versions/platforms,
    # and Python 2 names that compatibility code guards with a version test
    *("__file__", "__path__", "__builtins__", "__cached__", "__annotations__", "__class__"),
    *("__module__", "__qualname__", "__dict__", "WindowsError", "PythonFinalizationError"),
    *("unicode", "long", "xrange", "basestring", "raw_input", "unichr", "reduce", "file"),
    *("execfile", "cmp", "buffer", "apply", "intern", "coerce", "reload"),
}
_BROAD = frozenset({"Exception", "BaseException"})
_DYNAMIC = frozenset({"globals", "locals", "vars", "exec"})
_BUILTIN_MODULES = frozenset({"builtins", "__builtin__", "__builtins__"})
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_LEAVES = frozenset(
    {ast.Constant, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue}
    | {
        c
        for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
        for c in base.__subclasses__()
    }
)
_SIMPLE: dict[type, tuple[str, ...]] = {
    ast.Expr: ("value",),
    ast.Return: ("value",),
    ast.Assign: ("value", "targets"),
    ast.AugAssign: ("value", "target"),
    ast.AnnAssign: ("value", "annotation", "target"),
    ast.Raise: ("exc", "cause"),
    ast.Assert: ("test", "msg"),
    ast.Delete: ("targets",),
}


@dataclass(frozen=True, slots=True)
class ImportUse:
    """One import statement: ``from`` names (``()`` for ``import m``) and whether a handler
    around it catches ImportError (then a missing module is expected, not a break)."""

    line: int
    module: str
    level: int
    names: tuple[str, ...]
    guarded: bool


@dataclass(frozen=True, slots=True)
class ModuleBinding:
    """A module-level name bound only by imports of one module: ``import a.b`` binds ``a``
    (``module="a"``), ``import a.b as x`` binds ``x`` to ``a.b``, ``from p import m`` binds
    ``m`` to ``p``'s ``m`` (a submodule or a name)."""

    local: str
    module: str
    level: int
    name: str | None


@dataclass(frozen=True, slots=True)
class ModuleFacts:
    """Everything the build check needs from one module's text (cached by content)."""

    error: str | None = None
    names: frozenset[str] = frozenset()
    imports: tuple[ImportUse, ...] = ()
    undefined: tuple[tuple[str, int], ...] = ()
    bindings: tuple[ModuleBinding, ...] = ()
    attributes: tuple[tuple[str, tuple[str, ...], int], ...] = ()
    stores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    open_names: bool = False
    open_surface: bool = False
    conditional_imports: bool = False
    extends_path: bool = False
    builtins_added: frozenset[str] = frozenset()
    builtins_open: bool = False


@dataclass(eq=False, slots=True)
class _Scope:
    kind: str  # module, function, class, comprehension
    parent: _Scope | None
    bound: set[str] = field(default_factory=set)
    declared_global: set[str] = field(default_factory=set)
    nonlocal_: set[str] = field(default_factory=set)
    uses: list[tuple[str, int]] = field(default_factory=list)
    chains: list[tuple[str, tuple[str, ...], int, bool]] = field(default_factory=list)


def _caught(handlers: list[ast.ExceptHandler]) -> set[str]:
    names: set[str] = set()
    for h in handlers:
        if h.type is None:
            return {"*"}
        for node in h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]:
            name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
            names.add("*" if name in _BROAD else name)
    return names


def _chain(node: ast.Attribute) -> tuple[str, tuple[str, ...]] | None:
    parts: list[str] = []
    item: ast.expr = node
    while isinstance(item, ast.Attribute):
        parts.append(item.attr)
        item = item.value
    return (item.id, tuple(reversed(parts))) if isinstance(item, ast.Name) else None


class _Binder:
    def __init__(self) -> None:
        self.module = _Scope("module", None)
        self.scopes = [self.module]
        self.imports: list[ImportUse] = []
        self.import_bindings: dict[str, list[ModuleBinding | None]] = {}
        self.guards: list[set[str]] = []
        self.open = False
        self.conditional = False
        self.probed: set[str] = set()
        self.builtins_added: set[str] = set()
        self.builtins_open = False
        self.name_guard = self.attr_guard = False

    def _guarded(self, *errors: str) -> bool:
        return any("*" in g or not g.isdisjoint(errors) for g in self.guards)

    def _guard(self, caught: set[str] | None) -> None:
        """Enter (``caught``) or leave (``None``) a ``try`` body; loads under a handler that
        catches NameError (or AttributeError) are expected to fail and are not findings."""
        if caught is None:
            self.guards.pop()
        else:
            self.guards.append(caught)
        self.name_guard = self._guarded("NameError")
        self.attr_guard = self._guarded("AttributeError")

    def new(self, kind: str, parent: _Scope) -> _Scope:
        scope = _Scope(kind, parent)
        self.scopes.append(scope)
        return scope

    def bind(self, scope: _Scope, name: str, binding: ModuleBinding | None = None) -> None:
        scope.bound.add(name)
        if scope is self.module:
            self.import_bindings.setdefault(name, []).append(binding)

    # statements --------------------------------------------------------------------------

    def body(self, stmts: list[ast.stmt], scope: _Scope, nested: bool = False) -> None:
        for stmt in stmts:
            self.stmt(stmt, scope, nested)

    def stmt(self, stmt: ast.stmt, scope: _Scope, nested: bool) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(stmt, scope)
        elif isinstance(stmt, ast.ClassDef):
            self.exprs([*stmt.decorator_list, *stmt.bases, *stmt.keywords], scope)
            self.bind(scope, stmt.name)
            inner = self.new("class", scope)
            self.body(stmt.body, inner)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            self.import_(stmt, scope, nested)
        elif isinstance(stmt, ast.Global):
            scope.declared_global.update(stmt.names)
            self.module.bound.update(stmt.names)
            for name in stmt.names:  # rebound at run time: not a plain import binding
                self.import_bindings.setdefault(name, []).append(None)
        elif isinstance(stmt, ast.Nonlocal):
            scope.nonlocal_.update(stmt.names)
        elif isinstance(stmt, ast.Try | getattr(ast, "TryStar", ast.Try)):
            self.try_(stmt, scope)
        elif isinstance(stmt, ast.Match):
            self.exprs([stmt.subject], scope)
            for case in stmt.cases:
                self.pattern(case.pattern, scope)
                self.exprs([case.guard] if case.guard else [], scope)
                self.body(case.body, scope, True)
        else:
            self.compound(stmt, scope, nested)

    def compound(self, stmt: ast.stmt, scope: _Scope, nested: bool) -> None:
        kind = type(stmt)
        if kind in _SIMPLE:  # no statement inside: every field is an expression (or a leaf)
            nodes: list[ast.AST] = []
            for name in _SIMPLE[kind]:
                value = getattr(stmt, name)
                if isinstance(value, list):
                    nodes.extend(value)
                elif value is not None:
                    nodes.append(value)
            self.exprs(nodes, scope)
            return
        inner_nested = nested or isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While)
        for name, value in ast.iter_fields(stmt):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self.body(value, scope, inner_nested or name != "body")
            elif isinstance(value, list):
                self.exprs([v for v in value if isinstance(v, ast.AST)], scope)
            elif isinstance(value, ast.AST):
                self.exprs([value], scope)

    def try_(self, stmt: ast.Try, scope: _Scope) -> None:
        self._guard(_caught(stmt.handlers))
        self.body(stmt.body, scope, True)
        self._guard(None)
        for handler in stmt.handlers:
            self.exprs([handler.type] if handler.type else [], scope)
            if handler.name:
                self.bind(scope, handler.name)
            self.body(handler.body, scope, True)
        self.body(stmt.orelse, scope, True)
        self.body(stmt.finalbody, scope, True)

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, scope: _Scope
    ) -> None:
        args = node.args
        outer: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        params = [a for a in every if a is not None]
        if not isinstance(node, ast.Lambda):
            outer += [*node.decorator_list, *(a.annotation for a in params if a.annotation)]
            outer += [node.returns] if node.returns else []
            self.bind(scope, node.name)
        self.exprs(outer, scope)
        inner = self.new("function", scope)
        for t in getattr(node, "type_params", ()):
            inner.bound.add(t.name)
        inner.bound.update(a.arg for a in params)
        if isinstance(node, ast.Lambda):
            self.exprs([node.body], inner)
        else:
            self.body(node.body, inner)

    def import_(self, stmt: ast.Import | ast.ImportFrom, scope: _Scope, nested: bool) -> None:
        guarded = self._guarded("ImportError", "ModuleNotFoundError")
        self.conditional = self.conditional or (nested and scope is self.module)
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                self.imports.append(ImportUse(stmt.lineno, alias.name, 0, (), guarded))
                local = alias.asname or alias.name.split(".")[0]
                module = alias.name if alias.asname else alias.name.split(".")[0]
                self.bind(scope, local, ModuleBinding(local, module, 0, None))
            return
        module = stmt.module or ""
        if module == "__future__":
            return
        names = tuple(a.name for a in stmt.names if a.name != "*")
        self.imports.append(ImportUse(stmt.lineno, module, stmt.level, names, guarded))
        for alias in stmt.names:
            if alias.name == "*":
                self.open = True
                continue
            local = alias.asname or alias.name
            self.bind(scope, local, ModuleBinding(local, module, stmt.level, alias.name))

    def pattern(self, node: ast.pattern, scope: _Scope) -> None:
        for item in ast.walk(node):
            for name in (getattr(item, "name", None), getattr(item, "rest", None)):
                if isinstance(name, str):
                    self.bind(scope, name)
            if isinstance(item, ast.MatchValue | ast.MatchClass):
                self.exprs([item.value if isinstance(item, ast.MatchValue) else item.cls], scope)

    # expressions (iterative: long operator chains nest deeply) ---------------------------

    def exprs(self, nodes: list[ast.AST], scope: _Scope) -> None:
        stack: list[tuple[ast.AST, _Scope]] = [(n, scope) for n in nodes]
        name_guard, attr_guard = self.name_guard, self.attr_guard
        pop, push = stack.pop, stack.append
        while stack:
            node, where = pop()
            kind = type(node)
            if kind in _LEAVES:
                continue
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                    if not name_guard:
                        where.uses.append((node.id, node.lineno))  # type: ignore[attr-defined]
                else:
                    self.bind(where, node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                self.attribute(node, where, push)  # type: ignore[arg-type]
            elif kind in _COMPREHENSIONS:
                self.comprehension(node, where, stack)  # type: ignore[arg-type]
            elif kind is ast.Lambda:
                self.function(node, where)  # type: ignore[arg-type]
            elif kind is ast.NamedExpr:
                target = where
                while target.kind == "comprehension" and target.parent is not None:
                    target = target.parent
                self.bind(target, node.target.id)  # type: ignore[attr-defined]
                push((node.value, where))  # type: ignore[attr-defined]
            else:
                if kind is ast.Call:
                    self.call(node)  # type: ignore[arg-type]
                for name in node._fields:
                    value = getattr(node, name, None)
                    if type(value) is list:
                        for item in value:
                            if isinstance(item, ast.AST):
                                push((item, where))
                    elif isinstance(value, ast.AST):
                        push((value, where))
        del name_guard, attr_guard

    def attribute(self, node: ast.Attribute, where: _Scope, push: Callable[[Any], None]) -> None:
        found = _chain(node)
        if found is None:
            push((node.value, where))
            return
        root, parts = found
        store = type(node.ctx) is not ast.Load
        if store and root in _BUILTIN_MODULES and len(parts) == 1:
            self.builtins_added.add(parts[0])
        if not self.attr_guard or store:
            where.chains.append((root, parts, node.lineno, store))
        if not self.name_guard:
            where.uses.append((root, node.lineno))

    def comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        where: _Scope,
        stack: list[tuple[ast.AST, _Scope]],
    ) -> None:
        inner = self.new("comprehension", where)
        first, *rest = node.generators
        stack.append((first.iter, where))  # the first iterable is evaluated outside
        for gen in node.generators:
            for name in ast.walk(gen.target):
                if isinstance(name, ast.Name):
                    inner.bound.add(name.id)
            stack.extend((x, inner) for x in gen.ifs)
        stack.extend((g.iter, inner) for g in rest)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        stack.extend((x, inner) for x in parts)

    def call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if name in _DYNAMIC and (name != "vars" or not node.args):
            self.open = True
        first = node.args[0] if node.args else None
        if name in ("hasattr", "getattr") and isinstance(first, ast.Name):
            self.probed.add(first.id)
        if name == "setattr" and isinstance(first, ast.Name) and first.id in _BUILTIN_MODULES:
            self.builtins_open = True


def _resolve(binder: _Binder, scope: _Scope, name: str) -> str:
    """``local`` (bound in a function scope on the way) or ``global``."""
    if scope.kind == "module" or name in scope.declared_global:
        return "global"
    if name in scope.bound or name in scope.nonlocal_:
        return "local"
    parent = scope.parent
    while parent is not None and parent.kind != "module":
        if parent.kind != "class":
            if name in parent.declared_global:
                return "global"
            if name in parent.bound or name in parent.nonlocal_:
                return "local"
        parent = parent.parent
    return "global"


def _facts(binder: _Binder, text: str) -> ModuleFacts:
    module = binder.module
    defined = module.bound | _BUILTINS
    undefined: dict[str, int] = {}
    attributes, stores = [], []
    plain = {
        local: found[0]
        for local, found in binder.import_bindings.items()
        if found[0] is not None and len(set(found)) == 1 and local not in binder.probed
    }
    for scope in binder.scopes:
        for name, line in scope.uses:
            if name not in defined and _resolve(binder, scope, name) == "global":
                undefined[name] = min(line, undefined.get(name, line))
        for root, parts, line, store in scope.chains:
            if root in plain and _resolve(binder, scope, root) == "global":
                (stores.append((root, parts)) if store else attributes.append((root, parts, line)))
    if "gettext" in text and ".install(" in text:
        binder.builtins_added.add("_")
    dynamic_path = "sys.modules" in text or "__path__" in text
    return ModuleFacts(
        names=frozenset(module.bound),
        imports=tuple(binder.imports),
        undefined=tuple(sorted(undefined.items())),
        bindings=tuple(plain.values()),
        attributes=tuple(attributes),
        stores=tuple(stores),
        open_names=binder.open,
        open_surface=binder.open or "__getattr__" in module.bound or "sys.modules" in text,
        conditional_imports=binder.conditional,
        extends_path=dynamic_path,
        builtins_added=frozenset(binder.builtins_added),
        builtins_open=binder.builtins_open or "__builtins__[" in text,
    )


def module_facts(text: str) -> ModuleFacts:
    """Facts of one module's source; a module that does not parse has only ``error``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return ModuleFacts(error=f"line {line}: {message}")
    binder = _Binder()
    binder.body(tree.body, binder.module)
    return _facts(binder, text)
