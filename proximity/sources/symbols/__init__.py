"""Read a repository into the symbol index and each worktree's changes in symbols.

Python is extracted by the engine (:mod:`ast`), JavaScript and TypeScript here with the
tree-sitter grammars the import graph uses; files come from git's object store (the base
commit) and from each worktree (its own versions). Read-only, like every reader here.

Importing this package loads no tree-sitter (the agent side has none):
:func:`extract_tree_sitter_symbols` is loaded on first use.
"""

from __future__ import annotations

from typing import Any

from proximity.sources.symbols.index import (
    SYMBOL_LANGUAGES,
    BoundedCache,
    build_symbol_index,
    commit_files,
    extract_symbols,
    read_blobs,
    symbol_cache_key,
)
from proximity.sources.symbols.read import (
    SymbolRead,
    clear_index_cache,
    index_for,
    read_symbol_data,
    worktree_changes,
)

__all__ = [
    "SYMBOL_LANGUAGES",
    "BoundedCache",
    "SymbolRead",
    "build_symbol_index",
    "clear_index_cache",
    "commit_files",
    "extract_symbols",
    "extract_tree_sitter_symbols",
    "index_for",
    "read_blobs",
    "read_symbol_data",
    "symbol_cache_key",
    "worktree_changes",
]


def __getattr__(name: str) -> Any:
    if name == "extract_tree_sitter_symbols":
        from proximity.sources.symbols.treesitter import extract_tree_sitter_symbols

        return extract_tree_sitter_symbols
    raise AttributeError(name)
