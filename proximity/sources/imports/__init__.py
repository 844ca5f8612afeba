"""Read a repository's files into the import graph (tree-sitter for JS/TS/Go, ast for Python).

tree-sitter is loaded only when a JS/TS/Go file is parsed, so the agent side's light core
(no tree-sitter) can read Python imports through this package."""

from __future__ import annotations

from proximity.sources.imports.graph import (
    build_import_graph,
    cache_key,
    merge_graphs,
    parse_source,
)
from proximity.sources.imports.walk import RepoFiles, list_repository_files

__all__ = [
    "RepoFiles",
    "build_import_graph",
    "cache_key",
    "list_repository_files",
    "merge_graphs",
    "parse_source",
]
