"""The review stage's evidence model, queue and delivery rule (pure engine, no database)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proximity import fixtures
from proximity.engine.overlap import (
    COVERAGE_DEGRADED,
    COVERAGE_HYBRID,
    SHIPPED_POLICY,
    Advisory,
    declared_features,
    plan_features,
    plan_sketch_from_mapping,
)
from proximity.engine.overlap.delivery import DELIVER, SHADOW_ONLY, review_delivery
from proximity.engine.overlap.evidence import (
    EVIDENCE_FEATURES,
    EvidenceModel,
    ScoredCandidate,
    declared_scope,
    review_queue,
    score_candidate,
)
from proximity.engine.overlap.records import AccessLabels
from tests.engine.overlap.builders import record

FIXTURES = Path(fixtures.__file__).parent
MODEL = EvidenceModel.from_mapping(
    json.loads((FIXTURES / "overlap_evidence_model.json").read_text(encoding="utf-8"))
)
CORPUS = [
    json.loads(line)
    for line in (FIXTURES / "task_overlap_corpus.jsonl").read_text(encoding="utf-8").splitlines()
]


def _advisory(a, b, *, ranks=(("dense", 1), ("lexical", 1)), coverage=COVERAGE_HYBRID):
    features = declared_features(a, b) + plan_features(a, b)
    labels = AccessLabels("payments")
    return Advisory(
        a.ref, b.ref, coverage, ranks, 0.03, features, "s", "p", "v", (), labels, labels
    )


def _corpus_record(raw):
    sketch = raw.get("planSketch")
    return record(
        raw["taskId"],
        version=raw["workVersion"],
        objective=raw["objective"],
        deliverable=raw["deliverable"],
        acceptance=tuple(raw["acceptance"]),
        dependencies=tuple(raw["dependencies"]),
        purpose=raw["purpose"],
        plan_sketch=plan_sketch_from_mapping(sketch) if sketch else None,
    )


def test_declared_scope_reads_paths_modules_and_identifiers():
    r = record(
        "T",
        objective="Fix rounding in billing/invoice.py and org.apache.hadoop.fs.Path",
        deliverable="refund_total() rounds half-even in money.py",
        acceptance=("test_invoice_total_rounds_half_even passes", "parseRate handles commas"),
    )
    scope = declared_scope(r)
    assert scope.paths == {"billing/invoice.py", "money.py"}
    assert scope.modules == {"org.apache.hadoop.fs.path"}
    assert {"refund_total", "test_invoice_total_rounds_half_even", "parseRate"} <= scope.symbols


def test_undeclared_features_are_unknown_and_contribute_nothing():
    a = record("A", acceptance=None, plan_sketch=None)
    b = record("B")
    terms = {
        t.name: t for t in score_candidate(MODEL, _advisory(a, b), a, b, fused_position=1).terms
    }
    assert set(terms) == set(EVIDENCE_FEATURES)
    for name in ("acceptance.jaccard", "plan.same_key", "plan.resemblance", "nli.entailment"):
        assert terms[name].status == "unknown"
        assert terms[name].contribution == 0.0
    assert terms["deliverable.jaccard"].status == "value"


def test_dense_rank_is_unknown_in_degraded_mode_not_a_zero():
    a, b = record("A", "same words"), record("B", "same words")
    adv = _advisory(a, b, ranks=(("dense", None), ("lexical", 2)), coverage=COVERAGE_DEGRADED)
    terms = {t.name: t for t in score_candidate(MODEL, adv, a, b, fused_position=1).terms}
    assert terms["rank.dense"].status == "unknown"
    assert terms["rank.lexical"].value == 0.5


def test_logit_is_intercept_plus_contributions_and_probability_is_its_platt_map():
    a, b = record("A", "cache currency rates"), record("B", "cache currency rates")
    s = score_candidate(MODEL, _advisory(a, b), a, b, fused_position=2)
    assert s.logit == pytest.approx(MODEL.intercept + sum(t.weight * t.value for t in s.terms))
    z = MODEL.platt_a * s.logit + MODEL.platt_b
    assert s.probability == pytest.approx(1.0 / (1.0 + math.exp(z)))


def _scored(logits):
    a = record("Q")
    return [
        ScoredCandidate(_advisory(a, record(f"C{i}")), i + 1, logit, 0.0, ())
        for i, logit in enumerate(logits)
    ]


@given(st.lists(st.floats(-50, 50), max_size=25), st.integers(0, 30))
def test_the_queue_keeps_every_candidate_and_queues_the_best_budget(logits, budget):
    queue = review_queue(_scored(logits), budget=budget)
    assert len(queue) == len(logits)  # nothing dropped: beyond the budget is held back
    assert [q.queue_rank for q in queue] == list(range(1, len(logits) + 1))
    assert sum(q.queued for q in queue) == min(budget, len(logits))
    ordered = [q.scored.logit for q in queue]
    assert ordered == sorted(ordered, reverse=True)
    assert all(q.queued == (q.queue_rank <= budget) for q in queue)


def test_ties_keep_the_fused_order_and_a_negative_budget_is_refused():
    queue = review_queue(_scored([1.0, 1.0, 1.0]), budget=1)
    assert [q.scored.fused_position for q in queue] == [1, 2, 3]
    with pytest.raises(ValueError, match="budget"):
        review_queue([], budget=-1)


@pytest.mark.parametrize("pair_id", ["two-owners-same-validation", "paraphrase-same-output"])
def test_the_fixture_duplicate_outscores_every_other_fixture_record(pair_id):
    """Budget and ordering on the six fixtures: the expected duplicate is the query's top card."""
    records = {
        (r["taskId"], r["workVersion"]): _corpus_record(r) for p in CORPUS for r in p["records"]
    }
    pair = next(p for p in CORPUS if p["pairId"] == pair_id)
    query, expected = (records[tuple(ref)] for ref in pair["pair"])
    others = [r for key, r in records.items() if key[0] != query.task_id]
    # Every candidate at the same retrieval rank: the order comes from declared evidence.
    scored = [
        score_candidate(MODEL, _advisory(query, c), query, c, fused_position=1) for c in others
    ]
    queue = review_queue(scored, budget=3)
    assert queue[0].scored.advisory.candidate == expected.ref
    assert len(queue) == len(others)
    assert sum(q.queued for q in queue) == 3


def test_a_model_naming_an_unknown_feature_or_a_decreasing_map_is_refused():
    with pytest.raises(ValueError, match="unknown features"):
        dataclasses.replace(MODEL, weights=(("owner.same", 1.0),))
    with pytest.raises(ValueError, match="increasing"):
        dataclasses.replace(MODEL, platt_a=1.0)


def test_the_owner_is_not_a_feature():
    assert not [name for name in EVIDENCE_FEATURES if "owner" in name]
    a, b = record("A", "x y z"), record("B", "x y z")
    same = score_candidate(MODEL, _advisory(a, b), a, b, fused_position=1)
    b2 = dataclasses.replace(
        b, provenance=dataclasses.replace(b.provenance, owner=a.provenance.owner)
    )
    assert score_candidate(MODEL, _advisory(a, b2), a, b2, fused_position=1).logit == same.logit


def test_the_model_digest_changes_with_any_coefficient():
    bumped = dataclasses.replace(MODEL, intercept=MODEL.intercept + 0.5)
    assert bumped.digest != MODEL.digest
    assert MODEL.digest.startswith("evidence:")


def test_delivery_needs_a_registry_entry_for_both_digests_with_limits():
    entry = {"policyDigest": "policy:a", "evidenceModel": "evidence:b", "limits": "dev only"}
    assert review_delivery("policy:a", "evidence:b", [entry]).mode == DELIVER
    assert review_delivery("policy:a", "evidence:c", [entry]).mode == SHADOW_ONLY
    assert review_delivery("policy:z", "evidence:b", [entry]).mode == SHADOW_ONLY
    no_limits = {**entry, "limits": "  "}
    assert review_delivery("policy:a", "evidence:b", [no_limits]).mode == SHADOW_ONLY
    assert review_delivery("policy:a", "evidence:b", []).frozen is None


def test_the_shipped_review_policy_is_frozen_with_documented_limits():
    """Fails when the shipped policy or the evidence model changes without a new freeze."""
    registry = json.loads((FIXTURES / "overlap_delivery.json").read_text(encoding="utf-8"))
    got = review_delivery(SHIPPED_POLICY.digest, MODEL.digest, registry["frozen"])
    assert got.mode == DELIVER, "freeze the new (policy, evidence model) pair with its limits"
    assert "holdout" in got.frozen.limits
    assert "locally selected" in got.frozen.limits.lower()
