"""Routing to adjudication or the shadow queue; false-match buckets (requirements 74, 77, 78)."""

from __future__ import annotations

from proximity.engine.evaluation.fixtures import constructed_corpus
from proximity.engine.evaluation.labels import RecordRef
from proximity.engine.evaluation.triage import (
    FalseMatch,
    bucket_counts,
    bucket_false_match,
    route_pair,
    shadow_entry,
)

A, B = RecordRef("t1", "v1"), RecordRef("t2", "v2")
FULL = {"deliverable": True, "acceptance": False, "purpose": True, "scope": True}


def test_thin_evidence_goes_to_the_shadow_queue_as_unknown() -> None:
    """Requirement 77."""
    item = route_pair("p", A, B, FULL | {"acceptance": None, "scope": None})
    assert item.route == "shadow-unknown"
    assert item.reason == "insufficient-evidence: acceptance,scope"
    assert (item.record_a, item.record_b) == (A, B)


def test_distinct_output_or_review_evidence_still_goes_to_adjudication_with_it_attached() -> None:
    """Requirement 77."""
    item = route_pair("p", A, B, FULL | {"review_purpose": True, "distinct_output": False})
    assert item.route == "adjudication"
    assert item.attached_evidence == {"distinct_output": False, "review_purpose": True}
    assert item.reason == "distinct-output-or-review-evidence"


def test_every_adjudicated_pair_reaches_the_shadow_queue_with_versions_and_rationale() -> None:
    """Requirement 78."""
    entries = [shadow_entry(p) for p in constructed_corpus()]
    assert len(entries) == 6
    for e, pair in zip(entries, constructed_corpus(), strict=True):
        assert (e.record_a, e.record_b) == (pair.record_a, pair.record_b)
        assert e.rationales
        assert all(e.rationales)
        assert e.labels == tuple(j.label.value for j in pair.judgements)


def test_false_matches_are_bucketed_by_their_most_specific_cause() -> None:
    """Requirement 74: generic sequence, alias, missing argument, stale plan."""
    cases = {
        FalseMatch("1", True, 2, 1, 0.9): "stale_plan",
        FalseMatch("2", False, 1, 1, 0.9): "missing_argument",
        FalseMatch("3", False, 0, 2, 0.9): "alias",
        FalseMatch("4", False, 0, 0, 0.8): "generic_sequence",
        FalseMatch("5", False, 0, 0, 0.1): "other",
    }
    assert {m.pair_id: bucket_false_match(m) for m in cases} == {
        m.pair_id: b for m, b in cases.items()
    }
    assert bucket_counts(cases) == {
        "generic_sequence": 1,
        "alias": 1,
        "missing_argument": 1,
        "stale_plan": 1,
        "other": 1,
    }
