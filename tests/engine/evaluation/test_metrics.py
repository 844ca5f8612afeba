"""Candidate recall, adjudicator precision and coverage counts (requirements 58-63, 73)."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.evaluation.labels import Label
from proximity.engine.evaluation.metrics import (
    EvaluationItem,
    SamplingFrame,
    adjudicator_precision,
    candidate_recall,
    compare_methods,
    evaluate,
)

FRAME = SamplingFrame(
    "all active pairs in scope demo",
    {"file-sharing": 1.0, "other": 0.1},
    "one repository, one week",
)
S, P, R = Label.SAME_TASK, Label.PARTIAL_OVERLAP, Label.RELATED_DISTINCT


def items() -> Any:
    return [
        EvaluationItem("1", "eligible", retrieved=True, predicted_positive=True, label=S),
        EvaluationItem("2", "eligible", retrieved=False, label=S),
        EvaluationItem("3", "eligible", retrieved=True, predicted_positive=True, label=R),
        EvaluationItem("4", "eligible", retrieved=True, label=P, inclusion_probability=0.1),
        EvaluationItem("5", "eligible", retrieved=False, label=P),
        EvaluationItem("6", "eligible", retrieved=True, predicted_positive=True),  # no label
        EvaluationItem("7", "unknown", label=S, reason="authorization-or-freshness"),
        EvaluationItem("8", "unavailable", label=S),
        EvaluationItem("9", "sampled_out"),
    ]


def test_candidate_recall_is_per_label_over_eligible_labelled_positives() -> None:
    """Requirements 58-59: unknown and unavailable positives are outside the denominator."""
    assert candidate_recall(items(), S) == pytest.approx(1 / 2)
    assert candidate_recall(items(), P) == pytest.approx(1 / 2)
    assert candidate_recall([], S) is None


def test_adjudicator_precision_is_separate_and_ignores_unlabelled_predictions() -> None:
    """Requirement 60."""
    assert adjudicator_precision(items()) == pytest.approx(1 / 2)


def test_report_keeps_every_count_apart_and_never_folds_unknowns_into_negatives() -> None:
    """Requirements 61 and 63: missing labels, sampled-out, unavailable, unknown, no-candidate."""
    report = evaluate(items(), frame=FRAME, no_candidate_queries=4)
    assert report.counts == {
        "eligible": 6,
        "unknown": 1,
        "unavailable": 1,
        "sampled_out": 1,
        "missing_label": 1,
        "no_candidate": 4,
    }
    assert report.unknown_reasons == {"authorization-or-freshness": 1}
    assert report.recall == {"same_task": 0.5, "partial_overlap": 0.5}
    assert report.claim_label == "locally selected"


def test_sampled_report_states_frame_probabilities_and_weighted_recall() -> None:
    """Requirement 62: the sampling frame, inclusion probabilities and limits are in the report."""
    report = evaluate(items(), frame=FRAME)
    assert report.frame.inclusion_probabilities["other"] == 0.1
    assert report.frame.limits
    # item 4 (retrieved) stands for 10 pairs, item 5 (missed) for 1: 10/11.
    assert report.weighted_recall["partial_overlap"] == pytest.approx(10 / 11)


def test_unknown_without_reason_and_bad_probability_are_rejected() -> None:
    with pytest.raises(ValueError, match="reason"):
        evaluate([EvaluationItem("x", "unknown")], frame=FRAME)
    with pytest.raises(ValueError, match="inclusion_probability"):
        evaluate([EvaluationItem("x", "eligible", inclusion_probability=0)], frame=FRAME)


def test_plan_features_are_compared_with_baselines_with_coverage_and_cost() -> None:
    """Requirement 73."""
    rows = compare_methods(
        {"plan": {"a", "b"}, "declared-scope": {"a"}, "semantic": {"a", "b", "c"}},
        {"a", "b", "c"},
        missing_fields={"plan": {"c": True}},
        cost_seconds={"plan": 0.5},
    )
    by = {r.method: r for r in rows}
    assert by["plan"].recall == pytest.approx(2 / 3)
    assert by["declared-scope"].recall == pytest.approx(1 / 3)
    assert by["semantic"].recall == 1.0
    assert by["plan"].missing_field_share == pytest.approx(1 / 3)
    assert by["plan"].cost_seconds == 0.5
    assert by["semantic"].missing_field_share is None
