"""Pieces of a Python definition read from its AST: parameters, call shapes, return shapes."""

from __future__ import annotations

import ast

from proximity.engine.symbols.model import CallShape, Param, Signature, local_base

__all__ = ["MUTATORS", "call_shape", "dotted", "local_names", "python_signature", "return_shapes"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault", "add",
    "discard", "popitem", "sort", "reverse",
})  # fmt: skip
"""Methods of the built-in containers that change the object they are called on."""


def python_signature(args: ast.arguments) -> Signature:
    """The parameters of a ``def`` as :class:`Signature` (kinds and which have defaults)."""
    positional = [*args.posonlyargs, *args.args]
    first_default = len(positional) - len(args.defaults)
    params = [
        Param(a.arg, "posonly" if k < len(args.posonlyargs) else "normal", k >= first_default)
        for k, a in enumerate(positional)
    ]
    if args.vararg is not None:
        params.append(Param(args.vararg.arg, "varargs"))
    for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(Param(a.arg, "kwonly", default is not None))
    if args.kwarg is not None:
        params.append(Param(args.kwarg.arg, "varkw"))
    return Signature(tuple(params))


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def call_shape(call: ast.Call) -> CallShape:
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    starred = starred or any(k.arg is None for k in call.keywords)
    positional = sum(1 for a in call.args if not isinstance(a, ast.Starred))
    return CallShape(positional, tuple(k.arg for k in call.keywords if k.arg), starred)


def _return_kind(value: ast.expr | None) -> str:
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return "none"
    if isinstance(value, ast.Tuple):
        return f"tuple/{len(value.elts)}"
    if isinstance(value, ast.Dict):
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
        if len(keys) == len(value.keys) and all(isinstance(k, str) for k in keys):
            return "dict{" + ",".join(sorted(str(k) for k in keys)) + "}"
        return "dict"
    simple = {
        ast.List: "list",
        ast.ListComp: "list",
        ast.Set: "set",
        ast.SetComp: "set",
        ast.DictComp: "dict",
        ast.JoinedStr: "str",
        ast.Compare: "bool",
        ast.Lambda: "function",
        ast.GeneratorExp: "generator",
    }
    for kind, name in simple.items():
        if isinstance(value, kind):
            return name
    if isinstance(value, ast.Constant):
        return type(value.value).__name__
    if isinstance(value, ast.Call):
        called = dotted(value.func)
        return f"call:{called.rsplit('.', 1)[-1]}" if called else "call"
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return "bool"
    return "expr"


def return_shapes(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """Kinds of what the function's own ``return``/``yield`` statements give, sorted."""
    kinds: set[str] = set()
    stack: list[ast.AST] = list(node.body)
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Return):
            kinds.add(_return_kind(item.value))
        elif isinstance(item, ast.Yield | ast.YieldFrom):
            kinds.add("generator")
        if not isinstance(item, _SCOPES):
            stack.extend(ast.iter_child_nodes(item))
    return tuple(sorted(kinds or {"none"}))


def _part(node: ast.expr) -> tuple[ast.Name, str] | None:
    """The name a chain starts from and the part of its object the chain reaches into, as a
    local key: ``session.auth`` of ``session.auth.prompting``, ``rows[]`` of ``rows[k].x``."""
    link = None
    while isinstance(node, ast.Attribute | ast.Subscript):
        link, node = node, node.value
    if not isinstance(node, ast.Name) or link is None:
        return None
    tail = "." + link.attr if isinstance(link, ast.Attribute) else "[]"
    return node, node.id + tail


_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _walk(stmts: list[ast.stmt]) -> list[ast.AST]:
    """Every node under ``stmts``: a stack over each class's node fields (``ctx`` skipped),
    several times faster than :func:`ast.walk`."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(stmts)
    while stack:
        item = stack.pop()
        out.append(item)
        kind = type(item)
        fields = _NODE_FIELDS.get(kind)
        if fields is None:
            fields = _NODE_FIELDS[kind] = tuple(f for f in kind._fields if f != "ctx")
        for name in fields:
            value = getattr(item, name, None)
            if isinstance(value, ast.AST):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, ast.AST))
    return out


def local_names(
    node: ast.FunctionDef | ast.AsyncFunctionDef, me: str | None
) -> tuple[tuple[int, str, bool], ...]:
    """Where a function's body reads and writes its local names: ``(line, name, written)``,
    one entry per line, name and access, sorted.

    Local by Python's rule: the parameters and every name the function binds (assignments,
    loop and ``with`` targets, ``except ... as``, imports, nested ``def`` and ``class``,
    comprehension and walrus targets), less what it declares ``global`` or ``nonlocal``
    (module state, which the state rule reads). A name is written where it is bound, deleted
    or augmented. Where an item or attribute of it is assigned or deleted, or a mutating
    method of a container is called on it, the write is recorded as the part of its object
    written, ``obj.x`` (``obj.x.y = 1``) or ``rows[]`` (``rows[k] = v``, ``rows.append(v)``),
    with no read of the name itself. It is read everywhere else. ``me``, the instance of a
    bound method, is left out: its attributes are the class's state, which the attribute
    rule compares across members."""
    args = node.args
    bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    seen: list[tuple[int, str, bool]] = []
    bases: set[int] = set()  # the names changed objects start from: no read of their own
    for item in _walk(node.body):  # a node comes before the nodes under it
        kind = type(item)
        if kind is ast.Name:
            if id(item) in bases:
                continue
            name: ast.Name = item  # type: ignore[assignment]
            store = type(name.ctx) is not ast.Load
            seen.append((name.lineno, name.id, store))
            if store:
                bound.add(name.id)
        elif kind is ast.Attribute or kind is ast.Subscript:
            target: ast.Attribute | ast.Subscript = item  # type: ignore[assignment]
            part = _part(target) if type(target.ctx) is not ast.Load else None
            if part is not None:
                bases.add(id(part[0]))
                seen.append((target.lineno, part[1], True))
        elif kind is ast.Call:
            call: ast.Call = item  # type: ignore[assignment]
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                # rows.append(v) changes the container's content; o.x.append(v) the field x
                held = func.value
                part = (held, held.id + "[]") if isinstance(held, ast.Name) else _part(held)
                if part is not None:
                    bases.add(id(part[0]))
                    seen.append((call.lineno, part[1], True))
        elif kind is ast.ExceptHandler:
            handler: ast.ExceptHandler = item  # type: ignore[assignment]
            if handler.name:
                bound.add(handler.name)
                seen.append((handler.lineno, handler.name, True))
        elif kind is ast.alias:
            alias: ast.alias = item  # type: ignore[assignment]
            bound.add((alias.asname or alias.name).split(".")[0])
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bound.add(item.name)  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            declared.update(item.names)  # type: ignore[attr-defined]
    local = bound - declared - {me}
    return tuple(sorted({entry for entry in seen if local_base(entry[1]) in local}))
