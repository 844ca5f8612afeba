"""Airspace engine: working sets, channels, risk, bands, right of way and positions.

Profiles: ``ecc-v0`` reproduces the reference implementation (ECC-PROXIMITY.md sections 2-3)
to 1e-9; ``radar-v1`` (the default) fixes its documented weaknesses (docs/DECISIONS.md);
``radar-v1-symbols`` is radar-v1 plus the ``symbol`` channel (``proximity.engine.symbols``),
which reads the airspace's ``symbols`` (or a ``SymbolData`` handed to :func:`scan`) and scores
exactly as radar-v1 without them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proximity.engine.airspace.check import check_agent
from proximity.engine.airspace.combine import noisy_or
from proximity.engine.airspace.model import (
    Agent,
    Airspace,
    FileChange,
    Intent,
    Options,
    PairConflict,
)
from proximity.engine.airspace.parse import parse_airspace
from proximity.engine.airspace.paths import normalise_path
from proximity.engine.airspace.profiles import DEFAULT_PROFILE, PROFILES, SCORER_VERSION
from proximity.engine.airspace.reference_ecc import pair_channels
from proximity.engine.airspace.scan import ScanResult, scan, scan_airspace
from proximity.engine.airspace.triggers import build_triggers
from proximity.engine.airspace.validate import AirspaceInputError

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "SCORER_VERSION",
    "Agent",
    "Airspace",
    "AirspaceInputError",
    "FileChange",
    "Intent",
    "Options",
    "PairConflict",
    "ScanResult",
    "build_triggers",
    "check_agent",
    "collision_risk_paths",
    "parse_airspace",
    "scan",
    "scan_airspace",
]

_ECC = PROFILES["ecc-v0"]


def collision_risk_paths(
    paths_a: Sequence[str], paths_b: Sequence[str], adjacency: Mapping[str, Sequence[str]]
) -> float:
    """ecc-v0 risk of two path sets, every file a whole-file edit of weight 1.

    This is what the reference's shadow trail scores (ECC-PROXIMITY.md section 7,
    ``heuristicRisk``): the three channels of section 2 with the default weights 1.0/0.9/0.25,
    gamma 0.5 and the 6-hop cap, combined by noisy-OR.
    """
    graph: dict[str, list[str]] = {}
    for key, targets in adjacency.items():
        graph.setdefault(normalise_path(key), []).extend(normalise_path(t) for t in targets)
    files_a = [FileChange(path=normalise_path(p)) for p in paths_a]
    files_b = [FileChange(path=normalise_path(p)) for p in paths_b]
    channels = pair_channels(files_a, files_b, graph, gamma=_ECC.dep_decay, cap=_ECC.dependency_cap)
    return noisy_or([_ECC.weights[c] for c in _ECC.channels], channels)
