"""One scan: parse, score with a profile, decide verdicts, embed, and shape the JSON."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from proximity.engine.airspace.embedding import Embedding, embed_agents, hashed_coordinate
from proximity.engine.airspace.layout import tree_layout
from proximity.engine.airspace.model import Airspace, FileChange
from proximity.engine.airspace.output import result_json
from proximity.engine.airspace.parse import parse_airspace
from proximity.engine.airspace.profiles import PROFILES, SCORER_VERSION, Settings, resolve
from proximity.engine.airspace.recency import recency_weight
from proximity.engine.airspace.scorers import score
from proximity.engine.airspace.verdicts import Verdicts, decide

__all__ = ["ScanResult", "scan", "scan_airspace"]


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Everything a scan decided, before any dict is built."""

    airspace: Airspace
    settings: Settings
    verdicts: Verdicts
    embedding: Embedding
    now_ms: float

    def to_json(self) -> dict[str, Any]:
        return result_json(
            self.airspace.agents,
            self.verdicts,
            self.embedding,
            profile=self.settings.profile.name,
            channel_names=self.settings.profile.channels,
            scorer_version=SCORER_VERSION,
            generated_at=_iso(self.now_ms),
        )


def _iso(ms: float) -> str:
    stamp = datetime.fromtimestamp(ms / 1000.0, tz=UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _symmetric(adjacency: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for source, targets in adjacency.items():
        for target in targets:
            out.setdefault(source, []).append(target)
            out.setdefault(target, []).append(source)
    return out


def _embed(airspace: Airspace, settings: Settings, now_ms: float) -> Embedding:
    opts = airspace.options
    if settings.profile.name == "ecc-v0":
        return embed_agents(
            airspace.agents,
            airspace.adjacency,
            coordinate=lambda files: {p: hashed_coordinate(p, dims=opts.dims) for p in files},
            weight=lambda f: f.reference_weight,
            dims=opts.dims,
            alpha=opts.dependency_pull,
        )

    def weight(change: FileChange) -> float:
        return recency_weight(
            change, now_ms, floor=opts.recency_floor, half_life_s=opts.half_life_s
        )

    return embed_agents(
        airspace.agents,
        _symmetric(airspace.adjacency),
        coordinate=lambda files: tree_layout(files, airspace.adjacency.keys()),
        weight=weight,
        dims=3,
        alpha=opts.dependency_pull,
    )


def scan_airspace(
    airspace: Airspace, *, profile: str = "radar-v1", engine: str = "fast"
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
    profile: str = "radar-v1",
    graphs: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
    engine: str = "fast",
) -> dict[str, Any]:
    """Parse, score and embed one airspace; returns the output JSON object.

    Raises
    ------
    AirspaceInputError
        On bad input, with ``.field`` naming the offending field.
    """
    parsed = parse_airspace(airspace, graphs=graphs)
    return scan_airspace(parsed, profile=profile, engine=engine).to_json()
