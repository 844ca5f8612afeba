"""Read a repository's files into the import graph (tree-sitter for JS/TS/Go, ast for Python)."""

from __future__ import annotations

from proximity.sources.imports.graph import (
    build_import_graph,
    cache_key,
    merge_graphs,
    parse_source,
)
from proximity.sources.imports.treesitter import parse_tree_sitter_imports
from proximity.sources.imports.walk import RepoFiles, list_repository_files

__all__ = [
    "RepoFiles",
    "build_import_graph",
    "cache_key",
    "list_repository_files",
    "merge_graphs",
    "parse_source",
    "parse_tree_sitter_imports",
]
