"""Pieces of a Python definition read from its AST: parameters, call shapes, return shapes."""

from __future__ import annotations

import ast

from proximity.engine.symbols.model import CallShape, Param, Signature

__all__ = ["call_shape", "dotted", "python_signature", "return_shapes"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


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
