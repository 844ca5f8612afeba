"""Adjudication labels: the four-label set, reviewer judgements, disagreement, blind views.

Several reviewers may judge one pair; their judgements are kept side by side and never overwritten
(TASK-OVERLAP-REQUIREMENTS 49). A consensus exists only when they agree; otherwise the pair reports
its disagreement. Each judgement records what the reviewer saw: both record versions and the fields
shown, so a label can be traced to its evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

__all__ = [
    "LABEL_GUIDE",
    "BlindModeError",
    "Judgement",
    "Label",
    "LabelEvidence",
    "LabelledPair",
    "RecordRef",
    "add_judgement",
    "admissible_labels",
    "blind_view",
    "consensus_label",
    "effective_label",
    "validate_judgement",
]


class Label(StrEnum):
    """The label set is exactly these four (requirement 48)."""

    SAME_TASK = "same_task"
    PARTIAL_OVERLAP = "partial_overlap"
    RELATED_DISTINCT = "related_distinct"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"


LABEL_GUIDE: Mapping[Label, str] = {
    Label.SAME_TASK: (
        "deliverable and acceptance scope match (paraphrases with the same required output count)"
    ),
    Label.PARTIAL_OVERLAP: (
        "a shared invariant or prerequisite with materially distinct remaining work"
    ),
    Label.RELATED_DISTINCT: (
        "shared topic or artifact, different deliverable, purpose or acceptance"
    ),
    Label.INSUFFICIENT_EVIDENCE: "missing, unauthorized, stale or version-incompatible records",
}

# Anything that would tell a reviewer what the detector thinks (requirement 56).
_SCORE_FIELD = re.compile(r"(score|rank|risk|similar|cosine|nli|fused|rrf|predict|prob)", re.I)


class BlindModeError(ValueError):
    """A blind judgement claims to have been shown a detector score or rank."""


@dataclass(frozen=True, slots=True)
class RecordRef:
    """One version of one task record, as the reviewer saw it."""

    task_id: str
    work_version: str


@dataclass(frozen=True, slots=True)
class Judgement:
    """One reviewer's label for one pair, with what they were shown and when."""

    reviewer: str
    label: Label
    rationale: str
    fields_shown: tuple[str, ...]
    record_a: RecordRef
    record_b: RecordRef
    labelled_at: str
    blind: bool = True

    def __post_init__(self) -> None:
        validate_judgement(self)


@dataclass(frozen=True, slots=True)
class LabelledPair:
    """A pair of task records with every judgement collected so far, in arrival order."""

    pair_id: str
    record_a: RecordRef
    record_b: RecordRef
    judgements: tuple[Judgement, ...] = ()
    purpose: str = "evaluation"

    @property
    def disagreement(self) -> bool:
        return len({j.label for j in self.judgements}) > 1


@dataclass(frozen=True, slots=True)
class LabelEvidence:
    """What the reviewer established; None means not established, which is not False."""

    records_usable: bool
    deliverable_match: bool | None = None
    acceptance_match: bool | None = None
    shared_prerequisite: bool | None = None
    distinct_remaining_work: bool | None = None
    shared_topic_or_artifact: bool | None = None


def validate_judgement(judgement: Judgement) -> None:
    """Reject a judgement that cannot be traced: unknown label, no rationale, naive time, score
    shown blind.
    """
    try:
        Label(judgement.label)
    except ValueError as exc:
        raise ValueError(
            f"label: {judgement.label!r} is not one of {[x.value for x in Label]}"
        ) from exc
    if not judgement.reviewer.strip():
        raise ValueError("reviewer: must be named")
    if not judgement.rationale.strip():
        raise ValueError("rationale: a label needs a rationale")
    if not judgement.fields_shown:
        raise ValueError("fields_shown: record which fields the reviewer saw")
    try:
        stamp = datetime.fromisoformat(judgement.labelled_at)
    except ValueError as exc:
        raise ValueError(f"labelled_at: not an ISO-8601 time: {judgement.labelled_at!r}") from exc
    if stamp.tzinfo is None:
        raise ValueError("labelled_at: must carry a timezone")
    leaked = [f for f in judgement.fields_shown if _SCORE_FIELD.search(f)]
    if judgement.blind and leaked:
        raise BlindModeError(f"fields_shown: blind judgement was shown detector output {leaked}")


def admissible_labels(evidence: LabelEvidence) -> frozenset[Label]:
    """Labels the label definitions allow for this evidence (requirements 50-53).

    Unusable records admit only insufficient_evidence; same_task needs both deliverable and
    acceptance to match; partial_overlap needs a shared prerequisite and distinct remaining work;
    related_distinct needs a shared topic or artifact and a mismatch in deliverable or acceptance.
    """
    if not evidence.records_usable:
        return frozenset({Label.INSUFFICIENT_EVIDENCE})
    allowed = {Label.INSUFFICIENT_EVIDENCE}
    if evidence.deliverable_match and evidence.acceptance_match:
        allowed.add(Label.SAME_TASK)
    if evidence.shared_prerequisite and evidence.distinct_remaining_work:
        allowed.add(Label.PARTIAL_OVERLAP)
    differs = evidence.deliverable_match is False or evidence.acceptance_match is False
    if evidence.shared_topic_or_artifact and differs:
        allowed.add(Label.RELATED_DISTINCT)
    return frozenset(allowed)


def add_judgement(
    pair: LabelledPair, judgement: Judgement, *, evidence: LabelEvidence | None = None
) -> LabelledPair:
    """Append a judgement; earlier ones, including disagreeing ones, are kept (requirement 49)."""
    if (judgement.record_a, judgement.record_b) != (pair.record_a, pair.record_b):
        raise ValueError("record_a/record_b: judgement was made on other record versions")
    if pair.purpose == "evaluation" and not judgement.blind:
        raise BlindModeError("blind: evaluation pairs are labelled blind")
    if evidence is not None and judgement.label not in admissible_labels(evidence):
        raise ValueError(f"label: {judgement.label.value} is not admissible for {evidence}")
    return replace(pair, judgements=(*pair.judgements, judgement))


def consensus_label(pair: LabelledPair) -> Label | None:
    """The agreed label; None when unlabelled or when reviewers disagree (never a majority)."""
    labels = {j.label for j in pair.judgements}
    return next(iter(labels)) if len(labels) == 1 else None


def effective_label(pair: LabelledPair, current: Mapping[str, str]) -> Label | None:
    """The label to use now: insufficient_evidence while a side's version has moved on (requirement
    54).

    ``current`` maps taskId to its current workVersion; a task absent from it is not current either.
    """
    for ref in (pair.record_a, pair.record_b):
        if current.get(ref.task_id) != ref.work_version:
            return Label.INSUFFICIENT_EVIDENCE
    return consensus_label(pair)


def blind_view(item: Mapping[str, Any], *, allowed: Iterable[str] | None = None) -> dict[str, Any]:
    """A copy of a pair for a reviewer with every score-, rank- or prediction-like field removed.

    Nested mappings are filtered too; ``allowed`` optionally restricts the top-level fields shown.
    """
    keep = None if allowed is None else set(allowed)
    out: dict[str, Any] = {}
    for key, value in item.items():
        if _SCORE_FIELD.search(key) or (keep is not None and key not in keep):
            continue
        out[key] = blind_view(value) if isinstance(value, Mapping) else value
    return out
