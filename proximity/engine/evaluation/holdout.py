"""Frozen policies and the holdout ledger's state machine.

A policy (model, features, thresholds, review workflow) is frozen by hashing its canonical JSON
before any holdout evaluation (requirement 67). Every holdout evaluation is an entry in an
append-only ledger (who, when, dataset, policy digest). The first evaluation inspects the holdout;
an evaluation with a different policy digest afterwards means the policy was changed after looking,
so the holdout is consumed and can no longer back a claim (requirement 69). Claims from this
machinery are labelled "locally selected", never "validated" (requirement 72).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

__all__ = [
    "CLAIM_LABEL",
    "FrozenPolicy",
    "HoldoutAccessError",
    "LedgerEntry",
    "LedgerStatus",
    "SealedHoldout",
    "claim_label",
    "delivery_mode",
    "freeze_policy",
    "ledger_status",
    "missing_claim_evidence",
    "policy_digest",
]

CLAIM_LABEL = "locally selected"
CLAIM_EVIDENCE: Mapping[str, tuple[str, ...]] = {
    "eligible": ("authorization", "scope", "current_version", "space_id"),
    "retrieved": ("rank_lists", "ranks", "policy_version", "index_version"),
    "adjudicated": ("shown_fields", "label", "rationale", "disagreements"),
    "coverage": ("eligible", "unknown", "no_candidate"),
    "cost": ("environment", "results"),
}
T = TypeVar("T")


class HoldoutAccessError(PermissionError):
    """Holdout labels were requested without a frozen policy, or for a consumed holdout."""


def policy_digest(policy: Mapping[str, Any]) -> str:
    """``sha256:`` of the canonical JSON (sorted keys, no spaces), so key order never matters."""
    body = json.dumps(policy, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class FrozenPolicy:
    """A policy that can no longer change: its content and the digest of that content."""

    content: str
    digest: str
    limits: str

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.content)
        return data


def freeze_policy(policy: Mapping[str, Any], *, limits: str = "") -> FrozenPolicy:
    """Freeze a policy before holdout evaluation (requirement 67).

    ``limits`` is the documented scope of validity (data, populations, known failure modes); a
    policy frozen without it stays shadow-only (requirement 70).
    """
    content = json.dumps(policy, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return FrozenPolicy(content=content, digest=policy_digest(policy), limits=limits.strip())


def delivery_mode(policy: FrozenPolicy | None) -> Literal["shadow-only", "deliver"]:
    """Advisories reach coordinators only under a frozen policy with documented limits."""
    return "deliver" if policy is not None and policy.limits else "shadow-only"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One holdout evaluation: which dataset, under which policy, by whom, when (ISO-8601 with
    zone).
    """

    dataset: str
    policy_digest: str
    who: str
    at: str


@dataclass(frozen=True, slots=True)
class LedgerStatus:
    """State of one holdout: ``fresh`` (never inspected), ``inspected`` or ``consumed``."""

    dataset: str
    state: Literal["fresh", "inspected", "consumed"]
    first_policy: str | None
    policies: tuple[str, ...]
    evaluations: int
    consumed_at: str | None

    @property
    def can_back_claims(self) -> bool:
        return self.state != "consumed"


def ledger_status(entries: Iterable[LedgerEntry], dataset: str) -> LedgerStatus:
    """Replay the ledger for one dataset.

    The first evaluation inspects the holdout under its policy; any later evaluation under another
    digest consumes it, for good: going back to the first policy does not restore it.
    """
    mine = [e for e in entries if e.dataset == dataset]
    if not mine:
        return LedgerStatus(dataset, "fresh", None, (), 0, None)
    first = mine[0].policy_digest
    consumed = next((e.at for e in mine if e.policy_digest != first), None)
    policies = tuple(dict.fromkeys(e.policy_digest for e in mine))
    state: Literal["inspected", "consumed"] = "consumed" if consumed else "inspected"
    return LedgerStatus(dataset, state, first, policies, len(mine), consumed)


def claim_label(status: LedgerStatus) -> str:
    """How a figure may be described: always "locally selected", with "(holdout consumed)" when it
    is.
    """
    return CLAIM_LABEL if status.can_back_claims else f"{CLAIM_LABEL} (holdout consumed)"


class SealedHoldout(Generic[T]):
    """Holdout items that tuning code cannot read without a frozen policy (requirement 66).

    ``open`` needs the FrozenPolicy and the ledger so far, and returns the items, the ledger entry
    the caller must append (the ledger itself lives outside the engine) and the holdout's resulting
    status.
    """

    __slots__ = ("_dataset", "_items")

    def __init__(self, dataset: str, items: Sequence[T]) -> None:
        self._dataset = dataset
        self._items = tuple(items)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Any:
        raise HoldoutAccessError(f"{self._dataset}: holdout items are sealed; use open()")

    def open(
        self, policy: FrozenPolicy, ledger: Iterable[LedgerEntry], *, who: str, at: str
    ) -> tuple[tuple[T, ...], LedgerEntry, LedgerStatus]:
        if not isinstance(policy, FrozenPolicy):
            raise HoldoutAccessError("policy: holdout evaluation needs a FrozenPolicy")
        entry = LedgerEntry(self._dataset, policy.digest, who, at)
        # The evaluation still runs under a changed policy, but the returned status says the holdout
        # is consumed, and every later report replaying the ledger will say so too.
        return self._items, entry, ledger_status([*ledger, entry], self._dataset)


def missing_claim_evidence(kind: str, evidence: Mapping[str, Any]) -> tuple[str, ...]:
    """Evidence the protocol lists for this kind of claim that is absent (requirement 71)."""
    if kind not in CLAIM_EVIDENCE:
        raise ValueError(f"kind: {kind!r} is not one of {sorted(CLAIM_EVIDENCE)}")
    return tuple(f for f in CLAIM_EVIDENCE[kind] if evidence.get(f) is None)
