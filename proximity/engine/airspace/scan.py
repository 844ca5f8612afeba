"""One scan: parse, score with a profile, decide verdicts, embed, and shape the JSON."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.coupling import compiled_graph
from proximity.engine.airspace.embedding import (
    Embedding,
    embed_agents,
    hashed_coordinate,
    touched_files,
)
from proximity.engine.airspace.layout import tree_layout
from proximity.engine.airspace.model import Airspace
from proximity.engine.airspace.output import result_json, symbols_json
from proximity.engine.airspace.parse import parse_airspace
from proximity.engine.airspace.profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    SCORER_VERSION,
    Settings,
    resolve,
)
from proximity.engine.airspace.recency import recency_weight
from proximity.engine.airspace.scorers import score
from proximity.engine.airspace.verdicts import Verdicts, decide

if TYPE_CHECKING:
    from proximity.engine.symbols.sides import SymbolData

__all__ = ["ScanResult", "scan", "scan_airspace"]

Floats = NDArray[np.float64]
Edges = tuple[NDArray[np.int64], NDArray[np.int64]]


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Everything a scan decided, before any dict is built."""

    airspace: Airspace
    settings: Settings
    verdicts: Verdicts
    embedding: Embedding
    now_ms: float

    def to_json(self) -> dict[str, Any]:
        symbols = None
        if "symbol" in self.settings.profile.channels:
            sides = self.airspace.symbols.sides if self.airspace.symbols is not None else ()
            symbols = symbols_json(self.airspace.agents, sides)
        return result_json(
            self.airspace.agents,
            self.verdicts,
            self.embedding,
            profile=self.settings.profile.name,
            channel_names=self.settings.profile.channels,
            scorer_version=SCORER_VERSION,
            generated_at=_iso(self.now_ms),
            symbols=symbols,
        )


def _iso(ms: float) -> str:
    stamp = datetime.fromtimestamp(ms / 1000.0, tz=UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _ecc_embedding_inputs(airspace: Airspace, files: list[str]) -> tuple[Floats, Edges, Floats]:
    dims = airspace.options.dims
    coords = np.array([hashed_coordinate(p, dims=dims) for p in files], dtype=np.float64)
    row = {p: k for k, p in enumerate(files)}
    pairs = [(row[p], row[n]) for p in files for n in airspace.adjacency.get(p, ()) if n in row]
    source = np.array([s for s, _ in pairs], dtype=np.int64)
    target = np.array([t for _, t in pairs], dtype=np.int64)
    weights = [f.reference_weight for a in airspace.agents for f in a.files]
    return coords.reshape(len(files), dims), (source, target), np.array(weights, dtype=np.float64)


def _radar_embedding_inputs(
    airspace: Airspace, files: list[str], now_ms: float
) -> tuple[Floats, Edges, Floats]:
    opts = airspace.options
    graph = compiled_graph(airspace.adjacency)
    weights = [
        recency_weight(f, now_ms, floor=opts.recency_floor, half_life_s=opts.half_life_s)
        for a in airspace.agents
        for f in a.files
    ]
    coords = tree_layout(files, graph.universe)
    return coords, graph.touched_edges(files), np.array(weights, dtype=np.float64)


def _embed(airspace: Airspace, settings: Settings, now_ms: float) -> Embedding:
    files = touched_files(airspace.agents)
    if settings.profile.name == "ecc-v0":
        coords, edges, weights = _ecc_embedding_inputs(airspace, files)
    else:
        coords, edges, weights = _radar_embedding_inputs(airspace, files, now_ms)
    return embed_agents(
        airspace.agents, coords, edges, weights, alpha=airspace.options.dependency_pull
    )


def scan_airspace(
    airspace: Airspace, *, profile: str = DEFAULT_PROFILE, engine: str = "fast"
) -> ScanResult:
    """Score a parsed airspace with ``profile``; ``engine="reference"`` uses the per-pair path.

    ``now`` is read once (``options.now`` or the wall clock), so every age and decay in one
    scan uses the same instant.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    settings = resolve(PROFILES[profile], airspace.options)
    now_ms = airspace.options.now_ms if airspace.options.now_ms is not None else time.time() * 1e3
    table = score(airspace, settings, now_ms, engine=engine)
    verdicts = decide(airspace, settings, table, now_ms)
    return ScanResult(airspace, settings, verdicts, _embed(airspace, settings, now_ms), now_ms)


def scan(
    airspace: Mapping[str, Any],
    *,
    profile: str = DEFAULT_PROFILE,
    graphs: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
    engine: str = "fast",
    symbols: SymbolData | None = None,
) -> dict[str, Any]:
    """Parse, score and embed one airspace; returns the output JSON object.

    A profile with ``reference_input`` (ecc-v0) parses leniently, as the reference does:
    reversed ranges are normalised, agents without an id dropped, a bare adjacency accepted.
    ``symbols`` (already built, e.g. by ``proximity.sources.symbols``) replaces the input's
    ``symbols`` key; only a profile with the ``symbol`` channel reads either.

    Raises
    ------
    AirspaceInputError
        On bad input, with ``.field`` naming the offending field.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    lenient = PROFILES[profile].reference_input
    parsed = parse_airspace(airspace, graphs=graphs, lenient=lenient)
    if symbols is not None:
        parsed = replace(parsed, symbols=symbols)
    return scan_airspace(parsed, profile=profile, engine=engine).to_json()
