"""Requirement 70: advisories reach coordinators only under a documented, frozen review policy.

A review policy is the pair (overlap policy digest, evidence model digest): what decides which
candidates exist and which of them become cards. It is frozen by an entry in a registry (data,
reviewed like code: ``proximity/fixtures/overlap_delivery.json``) naming both digests and the
documented limits. Any change to either digest leaves the registry without a match, so delivery
falls back to shadow-only until someone freezes the new pair and writes its limits: the check
fails closed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from proximity.engine.evaluation.holdout import FrozenPolicy, delivery_mode, freeze_policy

__all__ = ["DELIVER", "SHADOW_ONLY", "ReviewDelivery", "review_delivery"]

DELIVER: Final = "deliver"
SHADOW_ONLY: Final = "shadow-only"


@dataclass(frozen=True, slots=True)
class ReviewDelivery:
    """The delivery mode of one review policy, the frozen policy behind it and why."""

    mode: Literal["shadow-only", "deliver"]
    frozen: FrozenPolicy | None
    reason: str


def review_delivery(
    policy_digest: str, evidence_digest: str, registry: Iterable[Mapping[str, Any]]
) -> ReviewDelivery:
    """``deliver`` only when a registry entry freezes exactly these two digests with limits."""
    for entry in registry:
        if (entry.get("policyDigest"), entry.get("evidenceModel")) != (
            policy_digest,
            evidence_digest,
        ):
            continue
        frozen = freeze_policy(
            {"policyDigest": policy_digest, "evidenceModel": evidence_digest},
            limits=str(entry.get("limits") or ""),
        )
        mode = delivery_mode(frozen)
        why = "frozen with documented limits" if mode == DELIVER else "frozen without limits"
        return ReviewDelivery(mode, frozen, why)
    return ReviewDelivery(SHADOW_ONLY, None, "review policy not frozen (requirement 70)")
