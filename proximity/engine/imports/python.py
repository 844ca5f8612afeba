"""Python import extraction with :mod:`ast`: comments and strings can never produce an edge."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from proximity.engine.imports.model import ImportSite, ParsedImports

__all__ = ["parse_python_imports"]

_DYNAMIC_HINTS = (b"import_module", b"__import__")


@dataclass(frozen=True, slots=True)
class _Ctx:
    conditional: bool = False
    type_only: bool = False


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _site(target: str, ctx: _Ctx, level: int = 0, names: tuple[str, ...] = ()) -> ImportSite:
    return ImportSite(target, level, names, ctx.conditional, ctx.type_only)


def _imports(stmt: ast.Import | ast.ImportFrom, ctx: _Ctx) -> list[ImportSite]:
    if isinstance(stmt, ast.Import):
        return [_site(alias.name, ctx) for alias in stmt.names]
    if stmt.module == "__future__":
        return []
    names = tuple(alias.name for alias in stmt.names if alias.name != "*")
    return [_site(stmt.module or "", ctx, stmt.level, names)]


def _children(stmt: ast.stmt, ctx: _Ctx) -> Iterable[tuple[list[ast.stmt], _Ctx]]:
    """Nested statement bodies with the context they run in."""
    maybe = _Ctx(True, ctx.type_only)
    if isinstance(stmt, ast.If):
        if _is_type_checking(stmt.test):
            yield stmt.body, _Ctx(ctx.conditional, True)
            yield stmt.orelse, maybe
        else:
            yield stmt.body, maybe
            yield stmt.orelse, maybe
    elif isinstance(stmt, ast.Try | ast.TryStar):
        yield stmt.body, maybe
        for handler in stmt.handlers:
            yield handler.body, maybe
        yield stmt.orelse, maybe
        yield stmt.finalbody, maybe
    elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
        yield stmt.body, maybe
        yield stmt.orelse, maybe
    elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        yield stmt.body, maybe  # runs only when called
    elif isinstance(stmt, ast.ClassDef | ast.With | ast.AsyncWith):
        yield stmt.body, ctx
    elif isinstance(stmt, ast.Match):
        for case in stmt.cases:
            yield case.body, maybe


def _import_lines(raw: bytes) -> list[int]:
    """Line numbers holding the text ``import``: every import statement spans one of them."""
    return [i for i, line in enumerate(raw.split(b"\n"), start=1) if b"import" in line]


def _walk(body: list[ast.stmt], ctx: _Ctx, marks: list[int], out: list[ImportSite]) -> None:
    """Visit statements, descending only into blocks whose lines mention ``import``.

    The pruning is exact (an import statement always has the keyword on one of its lines) and
    skips most function and class bodies, the bulk of a module.
    """
    for stmt in body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            out.extend(_imports(stmt, ctx))
            continue
        first = bisect.bisect_left(marks, stmt.lineno)
        if first == len(marks) or marks[first] > (stmt.end_lineno or stmt.lineno):
            continue
        for inner, inner_ctx in _children(stmt, ctx):
            _walk(inner, inner_ctx, marks, out)


def _dynamic_name(node: ast.AST) -> str | None:
    """The literal module of ``importlib.import_module("x")`` or ``__import__("x")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    arg = node.args[0]
    if name not in ("import_module", "__import__") or not isinstance(arg, ast.Constant):
        return None
    return arg.value if isinstance(arg.value, str) and arg.value.strip(".") else None


def _dynamic(tree: ast.Module) -> list[ImportSite]:
    out = []
    for node in ast.walk(tree):
        name = _dynamic_name(node)
        if name is not None:
            level = len(name) - len(name.lstrip("."))
            out.append(ImportSite(name[level:], level, (), True, False, True))
    return out


def parse_python_imports(source: bytes | str) -> ParsedImports:
    """Every import site of one Python file, with conditional/type-only/dynamic flags.

    A file that does not parse yields no sites and an ``error`` naming the line, so one broken
    file never stops a whole-repository scan.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        return ParsedImports(
            "python", (), f"line {line}: {exc.msg if isinstance(exc, SyntaxError) else exc}"
        )
    raw = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    sites: list[ImportSite] = []
    _walk(tree.body, _Ctx(), _import_lines(raw), sites)
    if any(hint in raw for hint in _DYNAMIC_HINTS):
        sites.extend(_dynamic(tree))
    return ParsedImports("python", tuple(sites))
