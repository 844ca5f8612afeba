"""Pure parsing for the repository readers: diffs, Python imports, module resolution.

No I/O here: the git calls and file reads live in ``proximity.sources``; tree-sitter parsing of
JavaScript, TypeScript and Go lives there too (tree-sitter is not an engine dependency).
"""

from __future__ import annotations

from proximity.engine.diff import FileDiff, Hunk, parse_raw_patch, unquote_c_path
from proximity.engine.imports.link import (
    Resolver,
    build_resolver,
    is_config,
    resolve_file,
    resolver_key,
)
from proximity.engine.imports.model import (
    PARSE_VERSION,
    EdgeFlags,
    ImportGraph,
    ImportSite,
    ParsedImports,
    language_of,
)
from proximity.engine.imports.python import parse_python_imports

__all__ = [
    "PARSE_VERSION",
    "EdgeFlags",
    "FileDiff",
    "Hunk",
    "ImportGraph",
    "ImportSite",
    "ParsedImports",
    "Resolver",
    "build_resolver",
    "is_config",
    "language_of",
    "parse_python_imports",
    "parse_raw_patch",
    "resolve_file",
    "resolver_key",
    "unquote_c_path",
]
