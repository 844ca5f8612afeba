"""ROC AUC, average precision, threshold figures and reliability tables."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from proximity.engine.evaluation.ranking import (
    average_precision,
    average_precision_reference,
    precision_recall_at,
    reliability_table,
    roc_auc,
    roc_auc_reference,
)

GOLDEN = [
    # scores, labels, auc, ap (hand-computed)
    ([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], 0.75, (1 / 2) * 1 + (1 / 2) * (2 / 3)),
    ([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1], 0.5, 0.5),
    ([0.9, 0.8, 0.1], [1, 1, 0], 1.0, 1.0),
    ([0.9, 0.8, 0.1], [0, 0, 1], 0.0, 1 / 3),
]


@pytest.mark.parametrize("impl", [roc_auc, roc_auc_reference])
@pytest.mark.parametrize(("scores", "labels", "auc", "ap"), GOLDEN)
def test_roc_auc_matches_hand_computed_values(
    impl: Any, scores: Any, labels: Any, auc: Any, ap: Any
) -> None:
    assert impl(scores, labels) == pytest.approx(auc)


@pytest.mark.parametrize("impl", [average_precision, average_precision_reference])
@pytest.mark.parametrize(("scores", "labels", "auc", "ap"), GOLDEN)
def test_average_precision_matches_hand_computed_values(
    impl: Any, scores: Any, labels: Any, auc: Any, ap: Any
) -> None:
    assert impl(scores, labels) == pytest.approx(ap)


def test_auc_is_undefined_without_both_classes_not_one_half() -> None:
    assert math.isnan(roc_auc([0.1, 0.2], [1, 1]))
    assert math.isnan(average_precision([0.1, 0.2], [0, 0]))


cases = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 1.0]), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.floats(0.5, 20.0), min_size=n, max_size=n),
    )
)


@settings(max_examples=50, deadline=None)
@given(cases)
def test_vectorised_metrics_agree_with_references_and_scikit_learn(case: Any) -> None:
    scores, labels, weights = case
    if len(set(labels)) < 2:
        return
    assert roc_auc(scores, labels, weights=weights) == pytest.approx(
        roc_auc_reference(scores, labels, weights=weights)
    )
    assert roc_auc(scores, labels, weights=weights) == pytest.approx(
        roc_auc_score(labels, scores, sample_weight=weights)
    )
    assert average_precision(scores, labels, weights=weights) == pytest.approx(
        average_precision_reference(scores, labels, weights=weights)
    )
    assert average_precision(scores, labels, weights=weights) == pytest.approx(
        average_precision_score(labels, scores, sample_weight=weights)
    )


def test_precision_recall_at_threshold_is_inclusive_and_weighted() -> None:
    r = precision_recall_at([0.2, 0.7, 0.9, 0.7], [0, 1, 0, 0], 0.7, weights=[1, 1, 1, 3])
    assert r.true_positives == 1
    assert r.false_positives == 4
    assert r.precision == pytest.approx(1 / 5)
    assert r.recall == 1.0
    assert r.flagged_rate == pytest.approx(5 / 6)


def test_precision_is_undefined_when_nothing_is_flagged() -> None:
    r = precision_recall_at([0.1, 0.2], [1, 0], 0.9)
    assert r.precision is None
    assert r.recall == 0.0


def test_reliability_table_counts_one_in_the_last_bin_and_reports_empty_bins_as_none() -> None:
    rows = reliability_table([0.05, 0.15, 1.0, 1.0], [0, 1, 1, 0], bins=2)
    assert [r.count for r in rows] == [2, 2]
    assert rows[0].mean_predicted == pytest.approx(0.1)
    assert rows[1].observed_rate == pytest.approx(0.5)
    assert reliability_table([0.1], [1], bins=4)[3].observed_rate is None


def test_bad_input_names_the_problem() -> None:
    with pytest.raises(ValueError, match="one length"):
        roc_auc([0.1, 0.2], [1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability_table([1.5], [1])
    with pytest.raises(ValueError, match="finite"):
        roc_auc([np.nan, 0.2], [1, 0])
