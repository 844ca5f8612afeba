"""The six constructed fixtures of the design: shipped, labelled, and run through the pipeline
with the real rankers (BM25 and the local all-MiniLM-L6-v2), requirements 4, 12, 55, 57, 77."""

from __future__ import annotations

import dataclasses

import pytest

from proximity.engine.overlap import (
    ADVISORY_STATUS,
    BOOTSTRAP_POLICY,
    COVERAGE_HYBRID,
    BM25Index,
    BM25Ranker,
    PoolSnapshot,
    Viewer,
    recheck_against,
    run_overlap,
)
from proximity.fixtures import CORPUS_LABELS, load_overlap_corpus
from proximity.sources.embedding import SentenceEmbedder, dense_ranker_for

CORPUS = {pair.pair_id: pair for pair in load_overlap_corpus()}
VIEWER = Viewer("lead", frozenset({"payments"}), frozenset({"internal"}))
POLICY = dataclasses.replace(BOOTSTRAP_POLICY, depth=3)  # small depth: retrieval must rank well


@pytest.fixture(scope="module")
def runs():
    embedder = SentenceEmbedder()
    records = [
        dataclasses.replace(r, space_id=embedder.space_id)
        for pair in CORPUS.values()
        for r in pair.records
    ]
    snapshot = PoolSnapshot.build("fixtures", records)
    lexical, dense = BM25Ranker(BM25Index.build(snapshot)), dense_ranker_for(snapshot, embedder)
    return {
        pair_id: run_overlap(
            pair.query,
            snapshot,
            VIEWER,
            POLICY,
            lexical=lexical,
            dense=dense,
            recheck=recheck_against(snapshot, VIEWER),
        )
        for pair_id, pair in CORPUS.items()
    }


def advisory_for(run, task_id):
    return next((a for a in run.advisories if a.candidate.task_id == task_id), None)


def features(advisory):
    return {f.name: f.value for f in advisory.features}


def test_corpus_ships_six_labelled_constructed_pairs_with_rationale():
    """Requirements 55, 57: six fixtures, expected labels, rationale, paraphrase positive and
    independent-review hard negative included."""
    assert len(CORPUS) == 6
    assert {p.source for p in CORPUS.values()} == {"constructed-fixture"}
    assert all(p.expected_label in CORPUS_LABELS and len(p.rationale) > 40 for p in CORPUS.values())
    labels = {p.pair_id: p.expected_label for p in CORPUS.values()}
    assert labels == {
        "two-owners-same-validation": "same_task",
        "same-file-disjoint-outputs": "related_distinct",
        "change-plus-independent-review": "related_distinct",
        "shared-prerequisite-different-deliverables": "partial_overlap",
        "same-path-new-requirement-version": "insufficient_evidence",
        "paraphrase-same-output": "same_task",
    }


def test_all_fixture_runs_are_hybrid_and_emit_only_adjudication_advisories(runs):
    assert {r.coverage for r in runs.values()} == {COVERAGE_HYBRID}
    assert {a.status for r in runs.values() for a in r.advisories} == {ADVISORY_STATUS}


def test_two_owners_same_validation_is_advised_with_same_plan_serialization(runs):
    """Requirement 3: different owners, same deliverable and acceptance -> candidate."""
    advisory = advisory_for(runs["two-owners-same-validation"], "FX-1A")
    assert advisory is not None
    assert features(advisory)["plan.exact_key"] == "same serialization"
    assert features(advisory)["acceptance.shared_checks_jaccard"] == 1.0


def test_same_file_disjoint_outputs_is_never_labelled(runs):
    # The fixture allows "advisory-or-absent", but at depth 3 these rankers retrieve the pair:
    # require it, so the checks below always have an advisory to check (issue 16, item 8).
    advisory = advisory_for(runs["same-file-disjoint-outputs"], "FX-2A")
    assert advisory is not None
    assert features(advisory)["deliverable.same_normalised_text"] is False
    assert advisory.status == ADVISORY_STATUS


def test_independent_review_pair_is_advised_with_review_evidence_not_duplicate(runs):
    """Requirements 4, 77: same owner, same artifact, mandated review -> advisory + evidence."""
    advisory = advisory_for(runs["change-plus-independent-review"], "FX-3A")
    assert advisory is not None
    assert advisory.status == ADVISORY_STATUS
    assert features(advisory)["purpose.review_evidence"] is True


def test_shared_prerequisite_pair_carries_the_dependency_overlap(runs):
    advisory = advisory_for(runs["shared-prerequisite-different-deliverables"], "FX-4A")
    assert advisory is not None
    assert features(advisory)["dependencies.jaccard"] == 1.0


def test_new_requirement_version_excludes_the_superseded_record(runs):
    """Requirements 12, 54: the pair with the superseded version is never compared."""
    run = runs["same-path-new-requirement-version"]
    compared = {a.candidate for a in run.advisories} | {u.candidate for u in run.unknowns}
    assert CORPUS["same-path-new-requirement-version"].pair[1] not in compared


def test_paraphrase_pair_is_retrieved_as_a_candidate(runs):
    """Issue item 6: the paraphrase is found within depth 3 by the hybrid retrieval."""
    assert advisory_for(runs["paraphrase-same-output"], "FX-6A") is not None
