"""Data model of an airspace: agents, their working sets and intent sets, the graph and options.

Times are carried as epoch milliseconds (floats) so that ages and closure rates are plain
arithmetic; the parser converts ISO-8601 strings once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a pre-edit check without symbols loads none of the symbol code
    from proximity.engine.symbols.sides import SymbolData

__all__ = ["Agent", "Airspace", "FileChange", "Intent", "Options", "PairConflict"]

Range = tuple[int, int]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file of a working set.

    ``lines`` are new-side inclusive ranges (the reference's shape); ``None`` or empty means a
    whole-file edit. ``base_hunks`` are git's ``-start,count`` pairs on the base side, count 0
    meaning an insertion after line ``start``.
    """

    path: str
    lines: tuple[Range, ...] | None = None
    base_hunks: tuple[Range, ...] | None = None
    hunk_ids: tuple[str, ...] | None = None
    """A digest of each base hunk's text, aligned with ``base_hunks`` (git working sets carry
    them): a hunk another agent made identically is no collision (:mod:`.regions`)."""
    status: str | None = None
    old_path: str | None = None
    weight: float | None = None
    touched_at_ms: float | None = None

    @property
    def reference_weight(self) -> float:
        """The reference's ``weight ?? 1``."""
        return 1.0 if self.weight is None else self.weight


@dataclass(frozen=True, slots=True)
class Intent:
    """A file or folder an agent declares it is about to touch, until ``expires_at_ms``."""

    path: str
    expires_at_ms: float | None = None

    def active(self, now_ms: float) -> bool:
        return self.expires_at_ms is None or self.expires_at_ms > now_ms


@dataclass(frozen=True, slots=True)
class Agent:
    agent_id: str
    label: str
    started_at: str | None = None
    started_at_ms: float | None = None
    files: tuple[FileChange, ...] = ()
    intent: tuple[Intent, ...] = ()
    work_files: int | None = None
    """Distinct files of the agent's whole working set, when ``files`` holds only part of it
    (a pre-edit check carries the planned lines alone): right of way reads this count, so a
    check ranks the pair as a scan of the whole working sets does (``workFiles``)."""
    asked_at_ms: float | None = None
    """When a pre-edit check last denied the agent an edit (``askedAt``): an agent waiting on
    the radar is at work, not idle, so it parks only after its last ask as after its last
    change (:func:`.rightofway.parks_at_ms`)."""
    published: bool = False
    """Every change of the agent is committed and its branch's head is on a remote
    (``published``): work handed in for review, waiting on its merge, which never parks
    (docs/DECISIONS.md, "Published work waits on review")."""


@dataclass(frozen=True, slots=True)
class PairConflict:
    """An exact textual conflict found by a dry-run merge (``options.conflicts``)."""

    a: str
    b: str
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Options:
    """Scan options; ``None`` means "the profile's default"."""

    channel_weights: Mapping[str, float | None] = field(default_factory=dict)
    dep_decay: float | None = None
    thresholds: Mapping[str, float] = field(default_factory=dict)
    dims: int = 3
    dependency_pull: float = 0.35
    now_ms: float | None = None
    dependency_cap: int | None = None
    recency_floor: float = 0.15
    half_life_s: float = 1800.0
    links_per_agent: int = 3
    closure_threshold: float = 0.002
    overlap_floor: float | None = None
    conflicts: tuple[PairConflict, ...] = ()
    merge_checks: tuple[PairConflict, ...] = ()
    """Pairs whose speculative merge check found merge-only problems (``options.mergeChecks``:
    ``files`` are the problems' paths); a profile with the ``merge-check`` channel reads them."""
    history: Mapping[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    parked_after_hours: float | None = None
    """``options.parkedAfterHours``: the profile's parked threshold replaced (0: never parked)."""


@dataclass(frozen=True, slots=True)
class Airspace:
    agents: tuple[Agent, ...]
    adjacency: Mapping[str, tuple[str, ...]]
    options: Options = field(default_factory=Options)
    raw_options: Mapping[str, Any] = field(default_factory=dict)
    symbols: SymbolData | None = None
    """Each agent's changes in symbols, for a profile with the ``symbol`` channel; ``None``
    (the default) leaves that channel at 0 for every pair."""
