"""The ``symbol`` channel's entry point: the array joins, or the per-pair reference.

A module of its own so that neither implementation imports the other: :mod:`.fastchannel`
builds its items with :mod:`.channel`'s constructors, and this chooses between them.
"""

from __future__ import annotations

from collections.abc import Sequence

from proximity.engine.symbols.channel import Strengths, SymbolScores, symbol_scores_reference
from proximity.engine.symbols.sides import SymbolData

__all__ = ["symbol_scores"]


def symbol_scores(
    ids: Sequence[str], data: SymbolData, strengths: Strengths, *, engine: str = "fast"
) -> SymbolScores:
    """The channel for every pair of ``ids`` (agents without symbol data contribute nothing).

    ``engine="fast"`` finds the items by array joins and builds a pair's items only when they
    are read (an advisory's evidence); ``"reference"`` goes pair by pair.
    """
    if engine == "fast":
        from proximity.engine.symbols.fastchannel import symbol_scores_fast

        return symbol_scores_fast(ids, data, strengths)
    return symbol_scores_reference(ids, data, strengths)
