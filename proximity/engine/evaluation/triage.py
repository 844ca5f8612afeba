"""Routing pairs to adjudication or the shadow queue, and bucketing false matches for error
analysis.

Thin evidence is not a verdict: a pair without deliverable, acceptance, purpose or scope evidence
goes to the shadow evaluation queue as unknown, while a pair with evidence of distinct outputs or a
review purpose still goes to a human, with that evidence attached (requirement 77). Every
adjudicated pair and every unknown is written to the shadow queue with both record versions and the
rationale (78).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from proximity.engine.evaluation.labels import LabelledPair, RecordRef

__all__ = [
    "REQUIRED_EVIDENCE",
    "FalseMatch",
    "QueueItem",
    "bucket_counts",
    "bucket_false_match",
    "route_pair",
    "shadow_entry",
]

REQUIRED_EVIDENCE = ("deliverable", "acceptance", "purpose", "scope")
_ATTACHED = ("distinct_output", "review_purpose")


@dataclass(frozen=True, slots=True)
class QueueItem:
    """A pair on its way to adjudication or to the shadow queue, with what is known and why."""

    pair_id: str
    route: Literal["adjudication", "shadow-unknown"]
    record_a: RecordRef
    record_b: RecordRef
    reason: str
    attached_evidence: Mapping[str, bool]
    rationales: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()


def route_pair(
    pair_id: str, record_a: RecordRef, record_b: RecordRef, evidence: Mapping[str, bool | None]
) -> QueueItem:
    """Route one candidate pair; ``evidence[name]`` is None when that evidence is missing."""
    missing = [k for k in REQUIRED_EVIDENCE if evidence.get(k) is None]
    attached = {k: bool(evidence[k]) for k in _ATTACHED if evidence.get(k) is not None}
    if missing:
        reason = "insufficient-evidence: " + ",".join(missing)
        return QueueItem(pair_id, "shadow-unknown", record_a, record_b, reason, attached)
    reason = "distinct-output-or-review-evidence" if any(attached.values()) else "candidate"
    return QueueItem(pair_id, "adjudication", record_a, record_b, reason, attached)


def shadow_entry(pair: LabelledPair) -> QueueItem:
    """The shadow-queue record of an adjudicated pair: versions, every label and rationale kept."""
    return QueueItem(
        pair_id=pair.pair_id,
        route="adjudication",
        record_a=pair.record_a,
        record_b=pair.record_b,
        reason="disagreement" if pair.disagreement else "adjudicated",
        attached_evidence={},
        rationales=tuple(j.rationale for j in pair.judgements),
        labels=tuple(j.label.value for j in pair.judgements),
    )


@dataclass(frozen=True, slots=True)
class FalseMatch:
    """Facts about a predicted-positive pair that adjudication labelled negative."""

    pair_id: str
    stale_plan: bool
    missing_arguments: int
    alias_targets: int
    generic_atom_share: float


def bucket_false_match(match: FalseMatch, *, generic_share: float = 0.5) -> str:
    """Error bucket of a false match (requirement 74), most specific cause first.

    stale_plan (a side's plan predates its current version), missing_argument (nodes without the
    argument that would distinguish them), alias (the same resource named differently, so targets
    match only loosely), generic_sequence (mostly generic actions such as "run tests", at least
    ``generic_share`` of the shared atoms); otherwise "other".
    """
    if match.stale_plan:
        return "stale_plan"
    if match.missing_arguments > 0:
        return "missing_argument"
    if match.alias_targets > 0:
        return "alias"
    if match.generic_atom_share >= generic_share:
        return "generic_sequence"
    return "other"


def bucket_counts(matches: Iterable[FalseMatch]) -> Mapping[str, int]:
    """Counts per bucket, every bucket present (zeros included) so reports compare across runs."""
    counts = Counter(bucket_false_match(m) for m in matches)
    names = ("generic_sequence", "alias", "missing_argument", "stale_plan", "other")
    return {name: counts.get(name, 0) for name in names}
