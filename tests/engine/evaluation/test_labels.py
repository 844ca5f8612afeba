"""Adjudication labels, judgements, disagreement and blind views (requirements 48-57)."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.evaluation.corpus import corpus_from_jsonl, corpus_to_jsonl
from proximity.engine.evaluation.fixtures import constructed_corpus, constructed_fixtures
from proximity.engine.evaluation.labels import (
    BlindModeError,
    Judgement,
    Label,
    LabelEvidence,
    LabelledPair,
    RecordRef,
    add_judgement,
    admissible_labels,
    blind_view,
    consensus_label,
    effective_label,
)

A, B = RecordRef("t1", "v1"), RecordRef("t2", "v3")
AT = "2026-11-29T10:00:00+00:00"
SHOWN = ("objective", "deliverable", "acceptance")


def judge(reviewer: Any = "ana", label: Any = Label.SAME_TASK, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "rationale": "same output",
        "fields_shown": SHOWN,
        "record_a": A,
        "record_b": B,
        "labelled_at": AT,
    } | kw
    return Judgement(reviewer, label, **args)


def test_label_set_is_exactly_the_four_labels() -> None:
    """Requirement 48."""
    assert {lab.value for lab in Label} == {
        "same_task",
        "partial_overlap",
        "related_distinct",
        "insufficient_evidence",
    }
    with pytest.raises(ValueError, match="label"):
        judge(label="duplicate")


def test_several_reviewers_are_kept_and_disagreement_is_not_overwritten() -> None:
    """Requirement 49: label, rationale, fields shown, both versions and time per reviewer."""
    pair = LabelledPair("p1", A, B)
    pair = add_judgement(pair, judge("ana", Label.SAME_TASK))
    pair = add_judgement(pair, judge("bo", Label.PARTIAL_OVERLAP, rationale="prereq only"))
    assert [j.reviewer for j in pair.judgements] == ["ana", "bo"]
    assert pair.disagreement
    assert consensus_label(pair) is None
    j = pair.judgements[1]
    assert (j.record_a, j.record_b, j.fields_shown, j.labelled_at) == (A, B, SHOWN, AT)


def test_judgement_without_rationale_or_timezone_is_rejected() -> None:
    """Requirement 49."""
    with pytest.raises(ValueError, match="rationale"):
        judge(rationale=" ")
    with pytest.raises(ValueError, match="labelled_at"):
        judge(labelled_at="2026-11-29T10:00:00")


def test_judgement_on_other_versions_cannot_join_the_pair() -> None:
    with pytest.raises(ValueError, match="record_a"):
        add_judgement(LabelledPair("p", A, B), judge(record_a=RecordRef("t1", "v0")))


@pytest.mark.parametrize(
    ("evidence", "allowed", "refused"),
    [
        (LabelEvidence(True, deliverable_match=True, acceptance_match=True), Label.SAME_TASK, None),
        (
            LabelEvidence(True, deliverable_match=True, acceptance_match=False),
            None,
            Label.SAME_TASK,
        ),
        (
            LabelEvidence(True, shared_prerequisite=True, distinct_remaining_work=True),
            Label.PARTIAL_OVERLAP,
            Label.SAME_TASK,
        ),
        (
            LabelEvidence(True, deliverable_match=False, shared_topic_or_artifact=True),
            Label.RELATED_DISTINCT,
            Label.PARTIAL_OVERLAP,
        ),
        (
            LabelEvidence(False, deliverable_match=True, acceptance_match=True),
            Label.INSUFFICIENT_EVIDENCE,
            Label.SAME_TASK,
        ),
    ],
)
def test_label_definitions_gate_what_evidence_admits(
    evidence: Any, allowed: Any, refused: Any
) -> None:
    """Requirements 50, 51, 52 and 53.

    same_task needs matching deliverable and acceptance; partial_overlap a shared prerequisite with
    distinct remaining work; related_distinct a shared topic with a different deliverable; unusable
    records admit only insufficient_evidence.
    """
    labels = admissible_labels(evidence)
    if allowed is not None:
        assert allowed in labels
    if refused is not None:
        assert refused not in labels
        with pytest.raises(ValueError, match="admissible"):
            add_judgement(LabelledPair("p", A, B), judge(label=refused), evidence=evidence)


def test_changed_requirement_version_makes_the_pair_insufficient_evidence() -> None:
    """Requirement 54."""
    pair = add_judgement(LabelledPair("p", A, B), judge())
    assert effective_label(pair, {"t1": "v1", "t2": "v3"}) is Label.SAME_TASK
    assert effective_label(pair, {"t1": "v1", "t2": "v4"}) is Label.INSUFFICIENT_EVIDENCE
    assert effective_label(pair, {"t1": "v1"}) is Label.INSUFFICIENT_EVIDENCE


def test_constructed_corpus_has_the_six_fixtures_with_rationales() -> None:
    """Requirements 55 and 57: six fixtures, paraphrase positives and a review hard negative."""
    fixtures = constructed_fixtures()
    expected = [
        Label.SAME_TASK,
        Label.RELATED_DISTINCT,
        Label.RELATED_DISTINCT,
        Label.PARTIAL_OVERLAP,
        Label.INSUFFICIENT_EVIDENCE,
        Label.SAME_TASK,
    ]
    assert [f.expected for f in fixtures] == expected
    assert all(f.rationale for f in fixtures)
    assert all(f.expected in admissible_labels(f.evidence) for f in fixtures)
    kinds = [f.kind for f in fixtures]
    assert kinds.count("paraphrase-positive") == 2
    assert "review-hard-negative" in kinds
    assert [consensus_label(p) for p in constructed_corpus()] == expected


def test_blind_evaluation_labels_never_see_scores_or_ranks() -> None:
    """Requirement 56."""
    item = {
        "pairId": "p",
        "objective": "x",
        "fusedScore": 0.9,
        "ranks": {"bm25": 1},
        "features": {"cosine": 0.8, "planKeyEqual": True},
    }
    view = blind_view(item)
    assert view == {"pairId": "p", "objective": "x", "features": {"planKeyEqual": True}}
    with pytest.raises(BlindModeError):
        judge(fields_shown=("objective", "rrfRank"))
    unblind = judge(fields_shown=("objective", "rrfRank"), blind=False)
    with pytest.raises(BlindModeError):
        add_judgement(LabelledPair("p", A, B, purpose="evaluation"), unblind)
    assert add_judgement(LabelledPair("p", A, B, purpose="development"), unblind).judgements


def test_corpus_jsonl_round_trip_keeps_every_judgement_and_disagreement() -> None:
    """Requirement 49 through import/export: disagreement survives a round trip."""
    pair = add_judgement(LabelledPair("p2", A, B), judge("ana"))
    pair = add_judgement(pair, judge("bo", Label.RELATED_DISTINCT, rationale="different test"))
    corpus = (*constructed_corpus(), pair)
    text = corpus_to_jsonl(corpus)
    back = corpus_from_jsonl(text)
    assert sorted(back, key=lambda p: p.pair_id) == sorted(corpus, key=lambda p: p.pair_id)
    assert corpus_to_jsonl(back) == text
    assert next(p for p in back if p.pair_id == "p2").disagreement


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("{not json", "line 1"),
        ('{"format":"x"}', "format"),
        (
            '{"format":"overlap-radar/labelled-pair@1","pairId":"p","recordA":{"taskId":"a"},'
            '"recordB":{"taskId":"b","workVersion":"1"}}',
            "recordA",
        ),
        (
            '{"format":"overlap-radar/labelled-pair@1","pairId":"p",'
            '"recordA":{"taskId":"a","workVersion":"1"},"recordB":{"taskId":"b","workVersion":"1"},'
            '"judgements":[{"reviewer":"r","label":"dup","rationale":"x","fieldsShown":["o"],'
            '"labelledAt":"2026-01-01T00:00:00+00:00"}]}',
            "judgements[0].label",
        ),
    ],
)
def test_corpus_import_errors_name_the_line_and_field(line: Any, field: Any) -> None:
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        corpus_from_jsonl(line)
