"""What a run emits: advisories, unknowns, omitted coverage and repair records. Nothing else.

There is deliberately no operation here (or anywhere in the detector) that cancels, merges,
reassigns, transfers or blocks work (requirement 6): the signal has no actuator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from proximity.engine.overlap.features import Feature
from proximity.engine.overlap.policy import REPAIR_ROUTE
from proximity.engine.overlap.records import AccessLabels, TaskRef, Viewer, is_visible

__all__ = [
    "ADVISORY_STATUS",
    "COVERAGE_DEGRADED",
    "COVERAGE_HYBRID",
    "UNKNOWN_REASONS",
    "Advisory",
    "AdvisoryCurrency",
    "CoverageView",
    "OmittedCoverage",
    "OverlapRun",
    "RankerStatus",
    "RepairNeeded",
    "ShadowQueueEntry",
    "UnknownOutcome",
    "coverage_for_viewer",
    "shadow_queue_entries",
    "verify_advisory_current",
]

ADVISORY_STATUS = "needs-independent-adjudication"
COVERAGE_HYBRID = "hybrid-with-recorded-omissions"
COVERAGE_DEGRADED = "degraded-lexical-only"
UNKNOWN_REASONS = (
    "authorization-or-freshness",
    "embedding-space-missing",
    "required-retriever-unavailable",
    "record-or-authority-changed",
    "insufficient-declared-evidence",
)


@dataclass(frozen=True, slots=True)
class Advisory:
    """A candidate pair for independent adjudication (requirement 29). Never a verdict."""

    query: TaskRef
    candidate: TaskRef
    coverage: str
    ranks: tuple[tuple[str, int | None], ...]
    fused_score: float
    features: tuple[Feature, ...]
    snapshot_id: str
    policy_digest: str
    policy_version: str
    index_ids: tuple[tuple[str, str | None], ...]
    query_access: AccessLabels
    candidate_access: AccessLabels
    repair_route: str | None = None
    status: str = field(default=ADVISORY_STATUS, init=False)


@dataclass(frozen=True, slots=True)
class UnknownOutcome:
    """An explicit unknown with its reason: never a negative (requirement 5)."""

    query: TaskRef
    reason: str
    detail: str | None = None
    candidate: TaskRef | None = None
    features: tuple[Feature, ...] = ()

    def __post_init__(self) -> None:
        if self.reason not in UNKNOWN_REASONS:
            raise ValueError(f"unknown reason {self.reason!r} is not one of {UNKNOWN_REASONS}")


@dataclass(frozen=True, slots=True)
class OmittedCoverage:
    """A pair never compared because the spaces differ or one is missing (requirement 13)."""

    query: TaskRef
    candidate: TaskRef
    reason: Literal["space-mismatch", "space-missing"]
    query_access: AccessLabels
    candidate_access: AccessLabels


@dataclass(frozen=True, slots=True)
class RepairNeeded:
    """Degraded retrieval: names the repair route, which is never run automatically (req. 31)."""

    kind: str
    reason: str
    route: str = REPAIR_ROUTE
    halted: bool = False
    started: bool = field(default=False, init=False)


@dataclass(frozen=True, slots=True)
class RankerStatus:
    name: str
    available: bool
    reason: str | None
    index_id: str | None
    candidates: int


@dataclass(frozen=True, slots=True)
class OverlapRun:
    """The whole outcome of one query against one snapshot under one policy."""

    query: TaskRef
    snapshot_id: str
    policy_digest: str
    policy_version: str
    coverage: str | None
    advisories: tuple[Advisory, ...] = ()
    unknowns: tuple[UnknownOutcome, ...] = ()
    omissions: tuple[OmittedCoverage, ...] = ()
    repairs: tuple[RepairNeeded, ...] = ()
    rankers: tuple[RankerStatus, ...] = ()


@dataclass(frozen=True, slots=True)
class CoverageView:
    """Omitted coverage as a viewer may see it: counts always, pairs only if both are visible."""

    omitted_count: int
    by_reason: tuple[tuple[str, int], ...]
    visible_pairs: tuple[OmittedCoverage, ...]


def coverage_for_viewer(run: OverlapRun, viewer: Viewer) -> CoverageView:
    """Project a run's omissions for ``viewer`` (decision on omitted coverage, requirement 10)."""
    reasons: dict[str, int] = {}
    for o in run.omissions:
        reasons[o.reason] = reasons.get(o.reason, 0) + 1
    visible = tuple(
        o
        for o in run.omissions
        if is_visible(o.query_access, viewer) and is_visible(o.candidate_access, viewer)
    )
    return CoverageView(len(run.omissions), tuple(sorted(reasons.items())), visible)


@dataclass(frozen=True, slots=True)
class AdvisoryCurrency:
    """Whether an advisory may be acted on as current (requirement 30)."""

    status: Literal["current", "stale"]
    stale: tuple[TaskRef, ...]


def verify_advisory_current(
    advisory: Advisory, current_versions: Mapping[str, int]
) -> AdvisoryCurrency:
    """Re-verify both versions when a coordinator acts; a missing task counts as stale."""
    stale = tuple(
        ref
        for ref in (advisory.query, advisory.candidate)
        if current_versions.get(ref.task_id) != ref.work_version
    )
    return AdvisoryCurrency("stale" if stale else "current", stale)


@dataclass(frozen=True, slots=True)
class ShadowQueueEntry:
    """One row of the shadow evaluation queue (requirements 77, 78)."""

    kind: Literal["advisory", "unknown"]
    query: TaskRef
    candidate: TaskRef | None
    status: str
    rationale: str
    features: tuple[Feature, ...]
    snapshot_id: str
    policy_digest: str


def shadow_queue_entries(run: OverlapRun) -> tuple[ShadowQueueEntry, ...]:
    """Every advisory and every unknown of ``run``, with both versions and the rationale."""
    advisories = tuple(
        ShadowQueueEntry(
            "advisory",
            a.query,
            a.candidate,
            a.status,
            _rationale(a),
            a.features,
            run.snapshot_id,
            run.policy_digest,
        )
        for a in run.advisories
    )
    unknowns = tuple(
        ShadowQueueEntry(
            "unknown",
            u.query,
            u.candidate,
            u.reason,
            u.detail or u.reason,
            u.features,
            run.snapshot_id,
            run.policy_digest,
        )
        for u in run.unknowns
    )
    return advisories + unknowns


def _rationale(advisory: Advisory) -> str:
    evidence = [
        f.detail for f in advisory.features if f.name == "purpose.review_evidence" and f.value
    ]
    ranks = ", ".join(f"{n}={r}" for n, r in advisory.ranks)
    base = f"retrieved ({advisory.coverage}; ranks {ranks}); needs independent adjudication"
    return "; ".join([base, *[e for e in evidence if e]])
