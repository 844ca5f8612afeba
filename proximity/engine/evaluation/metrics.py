"""Candidate recall, adjudicator precision and the coverage counts the evaluation protocol requires.

The protocol keeps four kinds of "no answer" apart and out of the recall denominator: unknown
outcomes (authorization, freshness, space), unavailable comparisons, pairs that were sampled out,
and pairs that are missing labels. None of them is evidence of no overlap (requirements 58-63).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from proximity.engine.evaluation.labels import Label

__all__ = [
    "POSITIVE_LABELS",
    "EvaluationItem",
    "EvaluationReport",
    "MethodComparison",
    "SamplingFrame",
    "adjudicator_precision",
    "candidate_recall",
    "compare_methods",
    "evaluate",
]

POSITIVE_LABELS = (Label.SAME_TASK, Label.PARTIAL_OVERLAP)
Status = Literal["eligible", "unknown", "unavailable", "sampled_out"]


@dataclass(frozen=True, slots=True)
class EvaluationItem:
    """One pair in the declared frame.

    ``status`` is eligible, unknown (with ``reason``), unavailable or sampled_out; ``label`` is None
    when the pair has no (agreed) label; ``inclusion_probability`` is the chance the pair entered
    the sample.
    """

    pair_id: str
    status: Status
    retrieved: bool = False
    predicted_positive: bool = False
    label: Label | None = None
    reason: str = ""
    inclusion_probability: float = 1.0


@dataclass(frozen=True, slots=True)
class SamplingFrame:
    """What a report was drawn from: requirement 62 asks for the frame, the probabilities and the
    limits.
    """

    description: str
    inclusion_probabilities: Mapping[str, float]
    limits: str


@dataclass(frozen=True, slots=True)
class EvaluationReport:
    """Recall per positive label, adjudicator precision and every count kept apart."""

    recall: Mapping[str, float | None]
    weighted_recall: Mapping[str, float | None]
    precision: float | None
    counts: Mapping[str, int]
    unknown_reasons: Mapping[str, int]
    frame: SamplingFrame
    claim_label: str = "locally selected"


def candidate_recall(items: Iterable[EvaluationItem], label: Label) -> float | None:
    """Retrieved labelled positives / labelled positives, over eligible pairs only.

    Unknown, unavailable, sampled-out and unlabelled pairs are outside the denominator; None when
    the denominator is empty (requirement 58, reported per label for requirement 59).
    """
    pos = [i for i in items if i.status == "eligible" and i.label == label]
    return sum(i.retrieved for i in pos) / len(pos) if pos else None


def _weighted_recall(items: Sequence[EvaluationItem], label: Label) -> float | None:
    """Horvitz-Thompson ratio estimate: each sampled positive counts 1/inclusion probability."""
    pos = [i for i in items if i.status == "eligible" and i.label == label]
    den = sum(1.0 / i.inclusion_probability for i in pos)
    num = sum(1.0 / i.inclusion_probability for i in pos if i.retrieved)
    return num / den if den > 0 else None


def adjudicator_precision(items: Iterable[EvaluationItem]) -> float | None:
    """Labelled true positives / labelled predicted-positive candidates (requirement 60).

    Predicted positives without a label are counted separately (``missing_label``), not as false.
    """
    predicted = [
        i
        for i in items
        if i.status == "eligible" and i.retrieved and i.predicted_positive and i.label is not None
    ]
    return (
        sum(i.label in POSITIVE_LABELS for i in predicted) / len(predicted) if predicted else None
    )


def _counts(items: Sequence[EvaluationItem], no_candidate_queries: int) -> dict[str, int]:
    status = Counter(i.status for i in items)
    return {
        "eligible": status["eligible"],
        "unknown": status["unknown"],
        "unavailable": status["unavailable"],
        "sampled_out": status["sampled_out"],
        "missing_label": sum(i.status == "eligible" and i.label is None for i in items),
        "no_candidate": no_candidate_queries,
    }


def evaluate(
    items: Sequence[EvaluationItem],
    *,
    frame: SamplingFrame,
    no_candidate_queries: int = 0,
) -> EvaluationReport:
    """The full report: recall for same_task and partial_overlap separately, precision, counts,
    frame.
    """
    for item in items:
        if not 0.0 < item.inclusion_probability <= 1.0:
            raise ValueError(
                f"inclusion_probability: {item.pair_id} has {item.inclusion_probability}"
            )
        if item.status == "unknown" and not item.reason:
            raise ValueError(f"reason: unknown pair {item.pair_id} needs a reason")
    return EvaluationReport(
        recall={lab.value: candidate_recall(items, lab) for lab in POSITIVE_LABELS},
        weighted_recall={lab.value: _weighted_recall(items, lab) for lab in POSITIVE_LABELS},
        precision=adjudicator_precision(items),
        counts=_counts(items, no_candidate_queries),
        unknown_reasons=dict(
            sorted(Counter(i.reason for i in items if i.status == "unknown").items())
        ),
        frame=frame,
    )


@dataclass(frozen=True, slots=True)
class MethodComparison:
    """Recall of one method on shared positives, with its field coverage and measured cost."""

    method: str
    recall: float | None
    retrieved_positives: int
    positives: int
    missing_field_share: float | None
    cost_seconds: float | None


def compare_methods(
    retrieved: Mapping[str, Iterable[str]],
    positives: Iterable[str],
    *,
    missing_fields: Mapping[str, Mapping[str, bool]] | None = None,
    cost_seconds: Mapping[str, float] | None = None,
) -> tuple[MethodComparison, ...]:
    """Candidate recall of plan features beside declared-scope and semantic baselines (requirement
    73).

    ``missing_fields[method][pair]`` says whether the method lacked a field it needed for that pair;
    the share is over the positives, so a method that cannot see half the pairs says so.
    """
    pos = set(positives)
    rows = []
    for method in sorted(retrieved):
        hits = pos & set(retrieved[method])
        miss = (missing_fields or {}).get(method)
        rows.append(
            MethodComparison(
                method=method,
                recall=len(hits) / len(pos) if pos else None,
                retrieved_positives=len(hits),
                positives=len(pos),
                missing_field_share=(
                    sum(bool(miss.get(p)) for p in pos) / len(pos)
                    if miss is not None and pos
                    else None
                ),
                cost_seconds=(cost_seconds or {}).get(method),
            )
        )
    return tuple(rows)
