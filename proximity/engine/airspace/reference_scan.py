"""Per-pair scoring of a whole airspace: the baseline the vectorised scorers are checked against."""

from __future__ import annotations

import numpy as np

from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.profiles import Settings
from proximity.engine.airspace.reference_ecc import pair_channels
from proximity.engine.airspace.table import PairTable, all_pairs

__all__ = ["score_ecc_reference"]


def score_ecc_reference(airspace: Airspace, settings: Settings) -> PairTable:
    """ecc-v0 channels for every pair, one pair at a time (O(N^2 F^2) BFS runs)."""
    agents = airspace.agents
    i, j = all_pairs(len(agents))
    values = np.zeros((len(i), 3))
    for k, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
        values[k] = pair_channels(
            agents[a].files,
            agents[b].files,
            airspace.adjacency,
            gamma=settings.dep_decay,
            cap=settings.dependency_cap,
        )
    return PairTable(i, j, values)
