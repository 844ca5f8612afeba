"""JavaScript, TypeScript and Go import extraction with tree-sitter and the grammar wheels.

A real parser means an import inside a comment or a string never becomes an edge. Grammars come
from the per-language wheels installed with the project (``tree-sitter-javascript``,
``-typescript``, ``-go``); nothing is downloaded at run time. Parsers are built lazily, one per
language and thread (tree-sitter parsers are not thread-safe).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import tree_sitter
import tree_sitter_go
import tree_sitter_javascript
import tree_sitter_typescript

from proximity.engine.imports.model import ImportSite, ParsedImports

__all__ = [
    "TREE_SITTER_LANGUAGES",
    "parse_tree_sitter_imports",
    "tree_sitter_language",
    "tree_sitter_parse",
]

_JS_QUERY = """
(import_statement source: (string) @src) @static
(export_statement source: (string) @src) @static
(call_expression function: (import)
  arguments: (arguments . [(string) (template_string)] @src)) @dynamic
(call_expression function: (identifier) @fn
  arguments: (arguments . (string) @src) (#eq? @fn "require")) @require
"""
_TS_EXTRA = "(import_statement (import_require_clause source: (string) @src)) @static\n"
_GO_QUERY = "(import_spec path: [(interpreted_string_literal) (raw_string_literal)] @src) @static\n"

_GRAMMARS: dict[str, tuple[Callable[[], Any], str]] = {
    "javascript": (tree_sitter_javascript.language, _JS_QUERY),
    "typescript": (tree_sitter_typescript.language_typescript, _JS_QUERY + _TS_EXTRA),
    "tsx": (tree_sitter_typescript.language_tsx, _JS_QUERY + _TS_EXTRA),
    "go": (tree_sitter_go.language, _GO_QUERY),
}
TREE_SITTER_LANGUAGES = frozenset(_GRAMMARS)

# Statement-level containers that make a require()/import() run only sometimes.
_CONDITIONAL_PARENTS = frozenset({
    "statement_block", "if_statement", "try_statement", "catch_clause", "ternary_expression",
    "arrow_function", "function_expression", "function_declaration", "method_definition",
    "binary_expression", "switch_case", "for_statement", "while_statement",
})  # fmt: skip

_local = threading.local()
_queries: dict[str, tuple[tree_sitter.Language, tree_sitter.Query]] = {}
_queries_lock = threading.Lock()


def _query(language: str) -> tuple[tree_sitter.Language, tree_sitter.Query]:
    with _queries_lock:  # built once; Query objects are read-only afterwards
        if language not in _queries:
            factory, source = _GRAMMARS[language]
            lang = tree_sitter.Language(factory())
            _queries[language] = (lang, tree_sitter.Query(lang, source))
        return _queries[language]


def _parser(language: str) -> tree_sitter.Parser:
    parsers = _local.__dict__.setdefault("parsers", {})
    if language not in parsers:
        parsers[language] = tree_sitter.Parser(_query(language)[0])
    return parsers[language]  # type: ignore[no-any-return]


def tree_sitter_parse(source: bytes, language: str) -> tree_sitter.Tree:
    """Parse with the shared per-thread parser (the symbol index parses with it too)."""
    return _parser(language).parse(source)


def tree_sitter_language(language: str) -> tree_sitter.Language:
    return _query(language)[0]


def _literal(node: tree_sitter.Node) -> str | None:
    """The string value of a literal; ``None`` for a template with substitutions."""
    if any(child.type == "template_substitution" for child in node.children):
        return None
    text = (node.text or b"").decode("utf-8", "replace")
    return text[1:-1] if len(text) >= 2 else None


def _is_conditional(node: tree_sitter.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in _CONDITIONAL_PARENTS:
            return True
        parent = parent.parent
    return False


def _site(kind: str, statement: tree_sitter.Node, source: tree_sitter.Node) -> ImportSite | None:
    spec = _literal(source)
    if not spec:
        return None
    if kind == "static":
        children = statement.children
        type_only = len(children) > 1 and children[1].type == "type"
        return ImportSite(spec, type_only=type_only)
    return ImportSite(spec, conditional=_is_conditional(statement), dynamic=kind == "dynamic")


def parse_tree_sitter_imports(source: bytes, language: str) -> ParsedImports:
    """Import sites of one JS/TS/TSX/Go file, in source order.

    Flags: ``type_only`` for ``import type``/``export type``; ``dynamic`` for ``import()``;
    ``conditional`` for ``require``/``import()`` nested in a block, branch or function.
    A file with syntax errors still yields the imports tree-sitter could recover; the error
    is noted.
    """
    _, query = _query(language)
    tree = _parser(language).parse(source)
    sites = []
    for _, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        kind = next(k for k in captures if k not in ("src", "fn"))
        site = _site(kind, captures[kind][0], captures["src"][0])
        if site is not None:
            sites.append(site)
    error = "syntax errors (imports recovered where possible)" if tree.root_node.has_error else None
    return ParsedImports(language, tuple(sites), error)
