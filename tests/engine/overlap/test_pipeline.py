"""Behaviour of the shadow-mode pipeline (requirements 3-31, 77-78), with real rankers."""

from __future__ import annotations

import dataclasses
import inspect
import re

import numpy as np
import pytest

import proximity.engine.overlap as overlap
from proximity.engine.overlap import (
    ADVISORY_STATUS,
    BOOTSTRAP_POLICY,
    COVERAGE_DEGRADED,
    COVERAGE_HYBRID,
    REPAIR_ROUTE,
    Advisory,
    DenseRanker,
    OverlapRun,
    PoolSnapshot,
    Provenance,
    RankerResult,
    TaskRef,
    UnavailableRanker,
    Viewer,
    coverage_for_viewer,
    recheck_against,
    revise,
    run_overlap,
    shadow_queue_entries,
    verify_advisory_current,
)

from .builders import LEAD, OTHER_SPACE, SPACE, rankers, record, unit

TEXT = "reject a negative item quantity in the order api validation"
VECTORS = {
    "Q": [1.0, 0.0, 0.0],
    "A": [0.9, 0.1, 0.0],
    "C": [0.8, 0.3, 0.0],
    "H": [1.0, 0.0, 0.0],
    "S": [1.0, 0.0, 0.0],
    "B": [0.0, 0.0, 1.0],
}


def world(*extra):
    q_old = record("Q", TEXT + " old", version=1)
    records = [
        q_old,
        revise(q_old, objective=TEXT),
        record("A", TEXT),
        record(
            "B",
            "refactor the search ranking cache",
            scope="search",
            deliverable="faster search ranking",
            acceptance=("search benchmark improves",),
        ),
        record("H", TEXT, scope="legal"),
        record("S", TEXT, disclosure=frozenset({"internal", "board-only"})),
        record("C", TEXT + " first draft", version=1),
        record("C", "rewrite the invoice pdf renderer", version=2),
        record("M", TEXT, space_id=OTHER_SPACE),
        record("N", TEXT, space_id=None),
        *extra,
    ]
    return PoolSnapshot.build("snap-1", records)


def run(snapshot, viewer=LEAD, policy=BOOTSTRAP_POLICY, *, lexical=None, dense=None, **kw):
    lex, den = rankers(snapshot, VECTORS)
    return run_overlap(
        TaskRef("Q", 2),
        snapshot,
        viewer,
        policy,
        lexical=lexical or lex,
        dense=dense or den,
        recheck=kw.pop("recheck", recheck_against(snapshot, viewer)),
        **kw,
    )


def candidate_ids(result: OverlapRun) -> set[str]:
    return {a.candidate.task_id for a in result.advisories} | {
        u.candidate.task_id for u in result.unknowns if u.candidate
    }


@pytest.mark.parametrize(
    ("ref", "viewer"),
    [
        (TaskRef("missing", 1), LEAD),
        (TaskRef("Q", 1), LEAD),
        (TaskRef("H", 1), LEAD),
        (TaskRef("Q", 2), Viewer("outsider", frozenset({"search"}), frozenset({"internal"}))),
    ],
)
def test_unobtainable_query_yields_authorization_unknown_and_no_retrieval(ref, viewer):
    """Requirements 5, 8: absent, stale or unauthorized query -> unknown, no ranker runs."""
    snapshot = world()
    lex, den = rankers(snapshot, VECTORS)
    result = run_overlap(
        ref,
        snapshot,
        viewer,
        BOOTSTRAP_POLICY,
        lexical=lex,
        dense=den,
        recheck=recheck_against(snapshot, viewer),
    )
    assert [u.reason for u in result.unknowns] == ["authorization-or-freshness"]
    assert result.rankers == ()
    assert result.advisories == ()
    assert result.coverage is None


def test_records_outside_authorized_scope_never_reach_ranks_features_or_advisories():
    """Requirements 9, 10: scope and disclosure filtering happens before ranking."""
    result = run(world())
    seen = candidate_ids(result) | {o.candidate.task_id for o in result.omissions}
    assert "H" not in seen
    assert "S" not in seen
    assert "A" in seen


def test_pool_excludes_own_versions_and_superseded_versions_of_others():
    """Requirements 11, 12: no version of the query's task, no superseded version of others."""
    result = run(world())
    refs = {a.candidate for a in result.advisories} | {o.candidate for o in result.omissions}
    assert all(r.task_id != "Q" for r in refs)
    assert TaskRef("C", 1) not in refs


def test_space_incompatible_records_are_omitted_not_ranked_even_lexically():
    """Requirements 13, 14: exact spaceId partition; omissions carry a reason; no lexical rescue."""
    result = run(world())
    omitted = {o.candidate.task_id: o.reason for o in result.omissions}
    assert omitted == {"M": "space-mismatch", "N": "space-missing"}
    assert {"M", "N"}.isdisjoint(candidate_ids(result))


def test_query_without_space_is_unknown_never_a_negative():
    """Requirement 5: a missing space on the query gives unknown, with every pair omitted."""
    q = dataclasses.replace(record("Z", TEXT), space_id=None)
    snapshot = PoolSnapshot.build("snap-z", [q, record("A", TEXT)])
    lex, den = rankers(snapshot, VECTORS)
    result = run_overlap(
        TaskRef("Z", 1),
        snapshot,
        LEAD,
        BOOTSTRAP_POLICY,
        lexical=lex,
        dense=den,
        recheck=recheck_against(snapshot, LEAD),
    )
    assert [u.reason for u in result.unknowns] == ["embedding-space-missing"]
    assert [o.candidate.task_id for o in result.omissions] == ["A"]
    assert result.advisories == ()


def test_hybrid_run_fuses_ranks_and_labels_coverage():
    """Requirements 20, 21, 22: RRF by ranks only; coverage hybrid-with-recorded-omissions."""
    result = run(world())
    assert result.coverage == COVERAGE_HYBRID
    for advisory in result.advisories:
        expected = sum(1 / (BOOTSTRAP_POLICY.rrf_k + r) for _, r in advisory.ranks if r)
        assert advisory.fused_score == pytest.approx(expected, abs=1e-12)


def test_candidate_in_one_list_gets_only_that_lists_contribution():
    """Requirement 21: B shares no term with Q, so only its dense rank contributes."""
    result = run(world())
    b = next(a for a in result.advisories if a.candidate.task_id == "B")
    ranks = dict(b.ranks)
    assert ranks["lexical"] is None
    assert ranks["dense"] is not None
    assert b.fused_score == pytest.approx(1 / (60 + ranks["dense"]))


def test_empty_ranking_is_available_with_zero_candidates_not_an_outage():
    """Requirements 17, 18: an available ranker with no match is not degraded mode."""
    q = record("Q", "zzz", version=1, deliverable="qqq", acceptance=("www",))
    a = record("A", "alpha", deliverable="beta", acceptance=("gamma",))
    snapshot = PoolSnapshot.build("snap-e", [q, a])
    lex, _ = rankers(snapshot, VECTORS)
    _, den = rankers(snapshot, {"Q": [1, 0, 0]})  # A has no vector: dense returns nothing
    result = run_overlap(
        q.ref,
        snapshot,
        LEAD,
        BOOTSTRAP_POLICY,
        lexical=lex,
        dense=den,
        recheck=recheck_against(snapshot, LEAD),
    )
    assert result.coverage == COVERAGE_HYBRID
    assert result.repairs == ()
    assert result.unknowns == ()
    assert result.advisories == ()
    assert all(s.available and s.candidates == 0 for s in result.rankers)


def test_dense_outage_with_permission_degrades_to_lexical_and_names_repair_route():
    """Requirements 23, 31: degraded-lexical-only, repair record naming the doctor command."""
    result = run(world(), dense=UnavailableRanker("model folder empty"))
    assert result.coverage == COVERAGE_DEGRADED
    (repair,) = result.repairs
    assert repair.kind == "dense-retrieval-unavailable"
    assert repair.reason == "model folder empty"
    assert repair.route == REPAIR_ROUTE == "python manage.py doctor"
    assert not repair.started
    assert result.advisories
    assert all(a.repair_route == REPAIR_ROUTE for a in result.advisories)
    assert all(dict(a.ranks)["dense"] is None for a in result.advisories)


def test_halt_keeps_repair_diagnostics_without_starting_anything():
    """Requirement 31: while halted the repair record is kept, marked halted, never started."""
    result = run(world(), dense=UnavailableRanker("down"), halted=True)
    assert result.repairs[0].halted
    assert not result.repairs[0].started


@pytest.mark.parametrize(("permits", "lexical_down"), [(False, False), (True, True), (False, True)])
def test_required_retriever_missing_yields_unknown_and_no_candidates(permits, lexical_down):
    """Requirement 24: dense down without permission, or lexical down, -> unknown."""
    policy = dataclasses.replace(BOOTSTRAP_POLICY, permits_lexical_only=permits)
    lexical = UnavailableRanker("bm25 index missing") if lexical_down else None
    result = run(world(), policy=policy, lexical=lexical, dense=UnavailableRanker("dense down"))
    assert [u.reason for u in result.unknowns] == ["required-retriever-unavailable"]
    assert result.advisories == ()
    assert result.coverage is None


def test_ranker_failures_are_classified_before_fusion():
    """Requirements 19, 25: a raising ranker and an index of another snapshot are outages."""
    snapshot = world()
    other = world(record("X", "extra"))
    _, stale_dense = rankers(PoolSnapshot.build("snap-old", other.records), VECTORS)
    result = run(snapshot, dense=stale_dense)
    assert result.coverage == COVERAGE_DEGRADED
    assert "dense-index-snapshot-mismatch" in result.repairs[0].reason
    _, good = rankers(snapshot, VECTORS)
    broken = DenseRanker(good.index, snapshot, query_vector=unit([1.0, 0.0]))  # wrong dimension
    result = run(snapshot, dense=broken)
    assert result.repairs[0].reason.startswith("ranker-raised: ValueError")


def test_policy_constant_and_depth_come_from_the_versioned_policy():
    """Requirements 26, 27: k changes fused scores, depth bounds emitted candidates."""
    extra = [record(f"D{i}", TEXT + f" variant {i}") for i in range(8)]
    snapshot = world(*extra)
    vectors = dict(VECTORS) | {f"D{i}": [1.0, 0.1 * i, 0.0] for i in range(8)}
    lex, den = rankers(snapshot, vectors)
    small = dataclasses.replace(BOOTSTRAP_POLICY, rrf_k=1, depth=3)
    result = run(snapshot, policy=small, lexical=lex, dense=den)
    assert len(result.advisories) + len(result.unknowns) <= 3
    assert result.policy_digest == small.digest != BOOTSTRAP_POLICY.digest
    top = result.advisories[0]
    assert top.fused_score == pytest.approx(sum(1 / (1 + r) for _, r in top.ranks if r))


def test_recheck_failure_emits_unknown_and_continues_with_next_candidate():
    """Requirement 28: a candidate superseded after the snapshot -> record-or-authority-changed."""
    snapshot = world()
    later = PoolSnapshot.build(
        "snap-2", [*snapshot.records, revise(record("A", TEXT), purpose="x")]
    )
    result = run(snapshot, recheck=recheck_against(later, LEAD))
    changed = [u for u in result.unknowns if u.reason == "record-or-authority-changed"]
    assert [u.candidate for u in changed] == [TaskRef("A", 1)]
    assert result.advisories, "processing continued with the next candidates"


def test_advisory_carries_ids_versions_coverage_ranks_features_and_identity():
    """Requirements 7, 19, 29: everything needed to re-find and re-check the evidence."""
    snapshot = world()
    result = run(snapshot)
    advisory = next(a for a in result.advisories if a.candidate.task_id == "A")
    assert advisory.query == TaskRef("Q", 2)
    assert advisory.candidate == TaskRef("A", 1)
    assert advisory.status == ADVISORY_STATUS == "needs-independent-adjudication"
    assert advisory.snapshot_id == "snap-1" == result.snapshot_id
    assert advisory.policy_digest == BOOTSTRAP_POLICY.digest
    assert dict(advisory.index_ids)["lexical"].endswith("@snap-1")
    assert dict(advisory.index_ids)["dense"].endswith("@snap-1")
    assert {n for n, _ in advisory.ranks} == {"lexical", "dense"}
    assert any(f.name == "deliverable.token_jaccard" for f in advisory.features)
    assert "status" not in inspect.signature(Advisory).parameters


def test_owner_is_not_identity_evidence():
    """Requirement 3: changing only owners changes nothing in the run's evidence."""
    base = run(world())
    snapshot = world()
    reowned = PoolSnapshot.build(
        "snap-1",
        [
            dataclasses.replace(r, provenance=Provenance(owner="same-owner"))
            for r in snapshot.records
        ],
    )
    again = run(reowned)
    assert [(a.candidate, a.ranks, a.features) for a in base.advisories] == [
        (a.candidate, a.ranks, a.features) for a in again.advisories
    ]
    names = {f.name for a in base.advisories for f in a.features}
    assert not any("owner" in n for n in names)


def test_advisory_becomes_stale_when_either_version_is_superseded():
    """Requirement 30: re-verification when a coordinator acts."""
    advisory = run(world()).advisories[0]
    current = {
        advisory.query.task_id: 2,
        advisory.candidate.task_id: advisory.candidate.work_version,
    }
    assert verify_advisory_current(advisory, current).status == "current"
    bumped = current | {advisory.candidate.task_id: advisory.candidate.work_version + 1}
    verdict = verify_advisory_current(advisory, bumped)
    assert verdict.status == "stale"
    assert verdict.stale == (advisory.candidate,)


def test_omitted_coverage_shows_details_only_to_viewers_authorized_for_both_records():
    """Decision on omitted coverage: counts for everyone, pairs only when both are visible."""
    result = run(world())
    lead_view = coverage_for_viewer(result, LEAD)
    assert lead_view.omitted_count == 2
    assert len(lead_view.visible_pairs) == 2
    searcher = Viewer("s", frozenset({"search"}), frozenset({"internal"}))
    view = coverage_for_viewer(result, searcher)
    assert view.omitted_count == 2
    assert view.visible_pairs == ()
    assert dict(view.by_reason) == {"space-mismatch": 1, "space-missing": 1}


def test_insufficient_declared_evidence_goes_to_the_queue_as_unknown():
    """Requirement 77: a candidate without declared acceptance is an unknown, not an advisory."""
    vague = record("V", TEXT, acceptance=None)
    result = run(world(vague), policy=dataclasses.replace(BOOTSTRAP_POLICY, depth=50))
    (unknown,) = [u for u in result.unknowns if u.candidate == TaskRef("V", 1)]
    assert unknown.reason == "insufficient-declared-evidence"
    assert unknown.features
    assert TaskRef("V", 1) not in {a.candidate for a in result.advisories}


def test_review_purpose_pair_is_advised_with_its_evidence_never_labelled():
    """Requirements 4, 77: same owner, same artifact, mandated review -> advisory + evidence."""
    review = record("R", TEXT, purpose="independent-review", provenance=Provenance("owner-Q"))
    result = run(world(review))
    advisory = next(a for a in result.advisories if a.candidate.task_id == "R")
    evidence = {f.name: f for f in advisory.features}["purpose.review_evidence"]
    assert evidence.value is True
    assert "distinct purpose" in (evidence.detail or "")
    assert advisory.status == ADVISORY_STATUS


def test_shadow_queue_holds_every_advisory_and_unknown_with_versions_and_rationale():
    """Requirement 78: the shadow evaluation queue gets all outputs, with versions."""
    vague = record("V", TEXT, acceptance=None)
    result = run(world(vague), policy=dataclasses.replace(BOOTSTRAP_POLICY, depth=50))
    entries = shadow_queue_entries(result)
    assert len(entries) == len(result.advisories) + len(result.unknowns)
    assert all(e.query == TaskRef("Q", 2) and e.rationale for e in entries)
    assert {e.kind for e in entries} == {"advisory", "unknown"}


def test_detector_exposes_no_actuator():
    """Requirement 6: nothing that cancels, kills, merges, reassigns, transfers or blocks."""
    verbs = re.compile(r"cancel|kill|merge|reassign|transfer|block", re.IGNORECASE)
    assert not [name for name in overlap.__all__ if verbs.search(name)]
    source = inspect.getsource(overlap.pipeline) + inspect.getsource(overlap.advisories)
    assert not re.findall(r"def \w*(cancel|kill|merge|reassign|transfer|block)\w*", source)


def test_every_emitted_advisory_has_the_single_status():
    """Requirement 7: the detector emits no other status."""
    result = run(world(record("R", TEXT, purpose="independent-review")))
    assert result.advisories
    assert {a.status for a in result.advisories} == {ADVISORY_STATUS}
    assert np.all([isinstance(a, Advisory) for a in result.advisories])
    assert SPACE != OTHER_SPACE


def test_ranker_returning_ineligible_rows_is_an_outage_not_a_leak():
    """Requirements 10, 25: rows outside the eligible set are never used, whatever a ranker says."""

    def leaky(query, eligible, *, depth):
        return RankerResult(True, tuple(range(eligible.mask.size))[:depth])

    result = run(world(), dense=leaky)
    assert result.coverage == COVERAGE_DEGRADED
    assert result.repairs[0].reason == "ranker-returned-ineligible-row"
    assert {"H", "S", "M", "N"}.isdisjoint(candidate_ids(result))
