"""The reference's JSON shapes (ECC-PROXIMITY.md section 3) plus profile, version and time."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from proximity.engine.airspace.combine import BANDS
from proximity.engine.airspace.embedding import Embedding
from proximity.engine.airspace.model import Agent
from proximity.engine.airspace.verdicts import Verdicts

__all__ = ["advisory_json", "result_json", "symbols_json"]


def _pair(v: Verdicts, row: int, ids: Sequence[str], names: Sequence[str]) -> dict[str, Any]:
    risk = float(v.risk[row])
    return {
        "a": ids[int(v.table.i[row])],
        "b": ids[int(v.table.j[row])],
        "risk": risk,
        "distance": min(1.0, max(0.0, 1.0 - risk)),
        "level": BANDS[int(v.level[row])],
        "channels": {n: float(x) for n, x in zip(names, v.table.channels[row], strict=True)},
    }


def _radar_extras(v: Verdicts, row: int) -> dict[str, Any]:
    rate = float(v.closure[row])
    return {
        "conflict": bool(v.conflict[row]),
        "escalated": bool(v.escalated[row]),
        "closureRate": None if math.isnan(rate) else rate,
    }


def _symbol_evidence(v: Verdicts, row: int, ids: Sequence[str]) -> list[dict[str, Any]]:
    evidence = v.table.evidence or {}
    i, j = int(v.table.i[row]), int(v.table.j[row])
    items = evidence.get((i, j))
    if not items:
        return []
    from proximity.engine.symbols.evidence import evidence_json

    return evidence_json(items, ids, i)


def symbols_json(agents: Sequence[Agent], sides: Iterable[str] | None) -> dict[str, Any]:
    """Which agents the symbol channel could see: the others are unknown to it, not clear."""
    from proximity.engine.symbols.model import SYMBOL_VERSION

    known = set(sides or ())
    return {
        "version": SYMBOL_VERSION,
        "agents": [a.agent_id for a in agents if a.agent_id in known],
        "unknown": [a.agent_id for a in agents if a.agent_id not in known],
    }


def _holder_yields_at(v: Verdicts, row: int) -> str | None:
    """When the holder, not parked now, counts as parked if it changes nothing more: from then
    the right of way may turn, so the steerer is told to ask again then (a whole second, rounded
    up, so that asking at it finds the holder parked)."""
    hold = int(v.hold[row])
    if v.parks_at_ms is None or v.parked is None or v.parked[hold]:
        return None
    at = float(v.parks_at_ms[hold])
    if not math.isfinite(at):
        return None
    return datetime.fromtimestamp(math.ceil(at / 1000.0), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def advisory_json(
    v: Verdicts, row: int, ids: Sequence[str], names: Sequence[str], *, radar: bool
) -> dict[str, Any]:
    """One flagged pair in the scan's advisory shape (also what a pre-edit check returns).

    With the ``symbol`` channel, ``symbols`` lists its evidence for the pair (strongest
    first): each item's ``kind``, ``reason``, ``text`` and the symbol and lines on each side.
    """
    link = _pair(v, row, ids, names)
    resolution = v.level[row] == 2
    out = {
        "a": link["a"],
        "b": link["b"],
        "level": link["level"],
        "risk": link["risk"],
        "distance": link["distance"],
        "channels": link["channels"],
        "transmit": True,
        "steer": ids[int(v.steer[row])] if resolution else None,
        "hold": ids[int(v.hold[row])] if resolution else None,
    }
    if radar:
        out.update(_radar_extras(v, row))
        out["cluster"] = int(v.cluster[row]) if resolution else None
        # only when it decided the right of way: every other answer keeps its shape
        parked = [] if v.parked is None or not resolution else [
            ids[k] for k in (int(v.hold[row]), int(v.steer[row])) if v.parked[k]
        ]  # fmt: skip
        if parked:
            out["parked"] = parked
        yields = _holder_yields_at(v, row) if resolution else None
        if yields is not None:
            out["holderYieldsAt"] = yields
        if resolution and v.published is not None and v.published[int(v.hold[row])]:
            out["holderPublished"] = True
    if v.table.evidence is not None:
        out["symbols"] = _symbol_evidence(v, row, ids)
    return out


def result_json(
    agents: Sequence[Agent],
    verdicts: Verdicts,
    embedding: Embedding,
    *,
    profile: str,
    channel_names: Sequence[str],
    scorer_version: str,
    generated_at: str,
    symbols: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble the scan result; only here are pair arrays turned into dicts."""
    ids = [a.agent_id for a in agents]
    radar = profile != "ecc-v0"
    rows = verdicts.links.tolist()
    links = [_pair(verdicts, r, ids, channel_names) for r in rows]
    if radar:
        for link, r in zip(links, rows, strict=True):
            link.update(_radar_extras(verdicts, r))
    flagged = [r for r in rows if verdicts.level[r] > 0]
    advisories = [advisory_json(verdicts, r, ids, channel_names, radar=radar) for r in flagged]
    counts = {
        "agents": len(agents),
        "advisories": len(advisories),
        "resolutions": sum(1 for a in advisories if a["level"] == "resolution"),
    }
    if radar:
        counts["links"] = len(links)
        counts["escalated"] = sum(1 for a in advisories if a["escalated"])
        counts["conflicts"] = sum(1 for a in advisories if a["conflict"])
    positions = [
        {"agentId": a.agent_id, "position": p, "fileCount": len(a.files)}
        for a, p in zip(agents, embedding.positions.tolist(), strict=True)
    ]
    coordinates = dict(zip(embedding.files, embedding.file_coordinates.tolist(), strict=True))
    out = {
        "advisories": advisories,
        "positions": positions,
        "fileCoordinates": coordinates,
        "links": links,
        "counts": counts,
        "profile": profile,
        "scorerVersion": scorer_version,
        "generatedAt": generated_at,
    }
    if symbols is not None:
        out["symbols"] = symbols
    return out
