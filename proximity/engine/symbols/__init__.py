"""Symbols: an index of definitions and references per base commit, each agent's changes in
symbols, and the ``symbol`` channel of the airspace engine (hazards and call coupling).

Pure: source text in, records out. Python is extracted here with :mod:`ast`; JavaScript and
TypeScript by ``proximity.sources.symbols`` with the tree-sitter grammars the import graph
uses (tree-sitter is not an engine dependency). File reads and git calls live there too.
"""

from __future__ import annotations

from proximity.engine.symbols.changes import DefinitionChange, FileChanges, file_changes
from proximity.engine.symbols.channel import Strengths, SymbolScores
from proximity.engine.symbols.evidence import evidence_json
from proximity.engine.symbols.index import SymbolIndex
from proximity.engine.symbols.jsonio import (
    SymbolInputError,
    symbol_data_from_json,
    symbol_data_to_json,
)
from proximity.engine.symbols.model import (
    EXTRACT_VERSION,
    SYMBOL_VERSION,
    Binding,
    CallShape,
    Definition,
    FileSymbols,
    Param,
    Reference,
    Signature,
    symbol_id,
)
from proximity.engine.symbols.python import extract_python_symbols
from proximity.engine.symbols.scores import symbol_scores
from proximity.engine.symbols.sides import (
    SymbolChange,
    SymbolData,
    SymbolSide,
    SymbolUse,
    agent_side,
    symbol_data,
    with_neighbours,
)

__all__ = [
    "EXTRACT_VERSION",
    "SYMBOL_VERSION",
    "Binding",
    "CallShape",
    "Definition",
    "DefinitionChange",
    "FileChanges",
    "FileSymbols",
    "Param",
    "Reference",
    "Signature",
    "Strengths",
    "SymbolChange",
    "SymbolData",
    "SymbolIndex",
    "SymbolInputError",
    "SymbolScores",
    "SymbolSide",
    "SymbolUse",
    "agent_side",
    "evidence_json",
    "extract_python_symbols",
    "file_changes",
    "symbol_data",
    "symbol_data_from_json",
    "symbol_data_to_json",
    "symbol_id",
    "symbol_scores",
    "with_neighbours",
]
