"""The pre-edit question: which advisories would one agent's planned edit raise right now?

A hook asks this before every edit, so it runs the same parser, scorer and verdicts as a scan
(one profile, one set of numbers) but stops before the embedding: positions are not part of
the answer, and skipping them keeps a check on ten agents within a few milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from proximity.engine.airspace.output import advisory_json
from proximity.engine.airspace.parse import parse_airspace
from proximity.engine.airspace.profiles import DEFAULT_PROFILE, PROFILES, SCORER_VERSION, resolve
from proximity.engine.airspace.scorers import score
from proximity.engine.airspace.validate import AirspaceInputError
from proximity.engine.airspace.verdicts import decide

if TYPE_CHECKING:
    from proximity.engine.symbols.sides import SymbolData

__all__ = ["check_agent"]


def check_agent(
    airspace: Mapping[str, Any],
    *,
    agent_id: str,
    profile: str = DEFAULT_PROFILE,
    symbols: SymbolData | None = None,
) -> dict[str, Any]:
    """Advisories that involve ``agent_id`` in ``airspace``, riskiest first.

    Parameters
    ----------
    airspace : the engine's input ``{"agents", "graph"?, "options"?}``; the asking agent's
        entry holds only the lines it is about to change (its planned edit), so every advisory
        returned is about that edit and not about work it did earlier.
    agent_id : the asking agent; it must be one of ``airspace["agents"]``.
    profile : scoring profile, as for a scan.
    symbols : the symbol channel's input, already built (as for :func:`~.scan.scan`); it
        replaces the airspace's ``symbols`` key. Only a profile with the channel reads it.

    Returns
    -------
    dict
        ``{"advisories": [...], "profile", "scorerVersion"}``; each advisory has the scan's
        shape and values (``a, b, level, risk, channels, steer, hold, ...``), except that
        ``cluster`` numbers the asker's own component of Resolution pairs 0 (the scan numbers
        every component of the airspace, which the check does not score).

    Raises
    ------
    AirspaceInputError
        On bad input, or when ``agent_id`` is not an agent of the airspace.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    parsed = parse_airspace(airspace, lenient=PROFILES[profile].reference_input)
    if symbols is not None:
        parsed = replace(parsed, symbols=symbols)
    ids = [a.agent_id for a in parsed.agents]
    if agent_id not in ids:
        raise AirspaceInputError("agentId", f"{agent_id!r} is not an agent of the airspace")
    settings = resolve(PROFILES[profile], parsed.options)
    opts = parsed.options
    now_ms = opts.now_ms if opts.now_ms is not None else time.time() * 1e3
    me = ids.index(agent_id)
    # Only the asker's pairs are scored: each pair's channels and its right of way read the two
    # agents alone, so the values are the whole table's (tests/engine/airspace/test_check.py).
    verdicts = decide(parsed, settings, score(parsed, settings, now_ms, focus=me), now_ms)
    rows = [
        r
        for r in verdicts.links.tolist()
        if verdicts.level[r] > 0 and me in (int(verdicts.table.i[r]), int(verdicts.table.j[r]))
    ]
    radar = profile != "ecc-v0"
    names = settings.profile.channels
    return {
        "advisories": [advisory_json(verdicts, r, ids, names, radar=radar) for r in rows],
        "profile": profile,
        "scorerVersion": SCORER_VERSION,
    }
