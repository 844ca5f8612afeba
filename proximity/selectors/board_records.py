"""Plain records of the board: the board selectors produce them, the figure builders read them.

They live with the selectors so the read layer does not depend on the screen (no Django here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "BANDS",
    "BAND_LABELS",
    "CHANNEL_LABELS",
    "LIKELY_PROBABILITY",
    "AgentPoint",
    "Card",
    "Coverage",
    "EvidenceLine",
    "FilePoint",
    "LinkRecord",
    "Scene",
    "SharedFile",
    "TaskCard",
    "TaskColumn",
    "channels_text",
]

# Display bands, in legend order: "conflict" is a Resolution whose branches already conflict.
BANDS = ("clear", "traffic", "resolution", "conflict")
BAND_LABELS = {
    "clear": "Clear",
    "traffic": "Traffic Advisory",
    "resolution": "Resolution Advisory",
    "conflict": "Conflicting",
}
#: A queued task pair at or above this calibrated duplicate probability is a "likely" card; below
#: it (or unscored) it joins the counted "possible" group. Chosen on hadoop's out-of-fold
#: calibration (docs/DECISIONS.md, "The task column: likely cards first").
LIKELY_PROBABILITY = 0.05
# What each scoring channel means to a reader of the board; unknown channels keep their name.
CHANNEL_LABELS = {
    "overlap": "overlapping edits",
    "adjacency": "abutting edits",
    "dependency": "import dependency",
    "conflict": "dry-run conflict",
    "intent": "declared intent",
    "tree": "nearby in the tree",
}


def channels_text(channels: dict[str, float]) -> str:
    """The channels that fired, strongest first, named for people: "abutting edits 1.00, ..."."""
    active = sorted(((v, k) for k, v in channels.items() if v > 0), reverse=True)
    return ", ".join(f"{CHANNEL_LABELS.get(k, k)} {v:.2f}" for v, k in active) or "none"


@dataclass(frozen=True)
class AgentPoint:
    agent_id: str
    label: str
    x: float
    y: float
    z: float
    file_count: int


@dataclass(frozen=True)
class FilePoint:
    path: str
    x: float
    y: float
    z: float

    @property
    def folder(self) -> str:
        head, _, _ = self.path.rpartition("/")
        return head or "."


@dataclass(frozen=True)
class LinkRecord:
    a: str
    b: str
    risk: float
    band: str
    channels: dict[str, float] = field(default_factory=dict)
    steer: str | None = None
    hold: str | None = None


@dataclass(frozen=True)
class Coverage:
    """How much the scene can be trusted: ``ok``, ``stale``, ``degraded`` or ``unknown``."""

    status: str
    message: str = ""
    unknown_agents: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scene:
    repository: str
    agents: list[AgentPoint]
    files: list[FilePoint]
    links: list[LinkRecord]
    agent_files: dict[str, list[str]]
    coverage: Coverage
    generated_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SharedFile:
    """One file both agents touch: each side's line ranges and a short excerpt of its diff."""

    path: str
    lines_a: list[list[int]]
    lines_b: list[list[int]]
    excerpt_a: str = ""
    excerpt_b: str = ""


@dataclass(frozen=True)
class Card:
    id: int
    column: str
    band: str
    agent_a: str
    agent_b: str
    task_a: str
    task_b: str
    intent_a: list[str]
    intent_b: list[str]
    files: list[SharedFile]
    channels: dict[str, float]
    risk: float
    trend: str
    state: str
    hold: str | None = None
    steer: str | None = None
    told: dict[str, str] = field(default_factory=dict)
    open_url: str = ""
    #: the symbol channel's evidence, one sentence per item (who changes what, who uses it)
    symbols: list[str] = field(default_factory=list)
    #: the pair's speculative merge check: ``{"state": "checked" | "checking" | "not checked",
    #: ...}``; empty when the repository has not opted in (shown as not checked, never clear)
    merge_check: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvidenceLine:
    """One evidence-model term on a card: feature, value and its contribution to the logit."""

    name: str
    value: float | None  # None: not declared by both (contributes 0, never a negative)
    contribution: float


@dataclass(frozen=True)
class TaskCard:
    """A task-overlap pair awaiting adjudication, or an explicit unknown with its reason.

    ``kind`` is ``pair``, ``unknown``, ``held-back`` (the count of candidates beyond the review
    budget, reachable in the desk) or ``shadow`` (pairs of runs whose policy is not frozen with
    documented limits: stored for shadow evaluation, not delivered, requirement 70).
    """

    id: int
    task_a: str
    task_b: str
    objective_a: str
    objective_b: str
    coverage: str
    labels: int = 0
    stale: bool = False
    unknown_reason: str = ""
    open_url: str = ""
    #: the readable pair page (both records, evidence in sentences); the desk's is ``open_url``
    pair_url: str = ""
    kind: str = "pair"
    queue_rank: int | None = None
    score: float | None = None
    evidence_model: str = ""
    evidence: tuple[EvidenceLine, ...] = ()
    held_back: int = 0
    more_url: str = ""
    #: at or above the board's likely probability: shown; else in the counted "possible" group
    likely: bool = False


class TaskColumn(NamedTuple):
    """The task-overlap column: queued pairs counted in full, the likely ones among them, and
    the cards (likely pairs, then possible pairs, then unknowns and notices)."""

    total: int
    cards: list[TaskCard]
    likely: int
