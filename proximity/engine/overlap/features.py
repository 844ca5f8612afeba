"""Declared-field and plan-sketch features of a candidate pair, reported as features only.

A feature never sets a label (requirements 40, 45): there are no cutoffs here. A field that
either record does not declare yields an ``unknown`` feature, never a zero (requirement 33).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from proximity.engine.overlap.hashing import (
    hamming_distance,
    minhash_resemblance,
    minhash_signature,
    simhash64,
)
from proximity.engine.overlap.plan_sketch import plan_atoms, plan_exact_key
from proximity.engine.overlap.records import TaskRecord

__all__ = ["Feature", "declared_features", "plan_features"]

FeatureValue = float | int | bool | str | None


@dataclass(frozen=True, slots=True)
class Feature:
    """A named feature: a value, or ``unknown`` / ``unavailable`` with the reason in ``detail``."""

    name: str
    status: Literal["value", "unknown", "unavailable"]
    value: FeatureValue = None
    detail: str | None = None


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _jaccard(left: Iterable[str], right: Iterable[str]) -> float:
    a, b = set(left), set(right)
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def _unknown(name: str, a: object, b: object) -> Feature | None:
    if a is None or b is None:
        side = "both" if a is None and b is None else ("a" if a is None else "b")
        return Feature(name, "unknown", None, f"not declared by {side}")
    return None


def _pair(
    name: str, a: object, b: object, value: FeatureValue, detail: str | None = None
) -> Feature:
    return _unknown(name, a, b) or Feature(name, "value", value, detail)


def _text_features(a: TaskRecord, b: TaskRecord) -> list[Feature]:
    da, db = a.deliverable, b.deliverable
    same = da is not None and db is not None and _norm(da) == _norm(db)
    jac = _jaccard(_norm(da or "").split(), _norm(db or "").split())
    return [
        _pair("scope.same", a.scope, b.scope, a.scope == b.scope),
        _pair("deliverable.same_normalised_text", da, db, same),
        _pair("deliverable.token_jaccard", da, db, jac),
    ]


def _list_features(a: TaskRecord, b: TaskRecord) -> list[Feature]:
    acc = _jaccard(map(_norm, a.acceptance or ()), map(_norm, b.acceptance or ()))
    deps = _jaccard(a.dependencies or (), b.dependencies or ())
    link = a.task_id in (b.dependencies or ()) or b.task_id in (a.dependencies or ())
    facts = _jaccard(map(_norm, a.plan_facts or ()), map(_norm, b.plan_facts or ()))
    return [
        _pair("acceptance.shared_checks_jaccard", a.acceptance, b.acceptance, acc),
        _pair("dependencies.jaccard", a.dependencies, b.dependencies, deps),
        _pair("dependencies.declared_link", a.dependencies, b.dependencies, link),
        _pair("plan_facts.jaccard", a.plan_facts, b.plan_facts, facts),
    ]


def _purpose_features(
    a: TaskRecord, b: TaskRecord, review_purposes: tuple[str, ...]
) -> list[Feature]:
    pa, pb = a.purpose, b.purpose
    review = pa != pb and (pa in review_purposes or pb in review_purposes)
    detail = f"distinct purpose: {pa} vs {pb} (review-purpose evidence)" if review else None
    return [
        _pair("purpose.same", pa, pb, pa == pb, None if pa == pb else f"{pa} vs {pb}"),
        _pair("purpose.review_evidence", pa, pb, review, detail),
    ]


def declared_features(
    a: TaskRecord,
    b: TaskRecord,
    *,
    review_purposes: tuple[str, ...] = ("independent-review", "review", "audit"),
) -> tuple[Feature, ...]:
    """Overlap features of the declared scope, deliverable, acceptance, dependency and purpose.

    The owner is deliberately absent: it is coordination evidence, never identity (requirement 3).
    """
    return tuple(
        _text_features(a, b) + _list_features(a, b) + _purpose_features(a, b, review_purposes)
    )


def plan_features(
    a: TaskRecord, b: TaskRecord, *, num_perm: int = 128, seed: int = 1
) -> tuple[Feature, ...]:
    """Exact key, MinHash resemblance and SimHash distance of the two plan sketches.

    Parameters
    ----------
    num_perm, seed : int
        MinHash permutations (Broder 1997); both from the policy's feature recipe.
    """
    names = ("plan.exact_key", "plan.minhash_resemblance", "plan.simhash_hamming")
    if a.plan_sketch is None or b.plan_sketch is None:
        return tuple(_unknown(n, a.plan_sketch, b.plan_sketch) for n in names)  # type: ignore[misc]
    same = plan_exact_key(a.plan_sketch) == plan_exact_key(b.plan_sketch)
    atoms_a, atoms_b = plan_atoms(a.plan_sketch), plan_atoms(b.plan_sketch)
    sig_a = minhash_signature(atoms_a, num_perm=num_perm, seed=seed)
    sig_b = minhash_signature(atoms_b, num_perm=num_perm, seed=seed)
    return (
        Feature(names[0], "value", "same serialization" if same else "different serialization"),
        Feature(
            names[1],
            "value",
            minhash_resemblance(sig_a, sig_b),
            f"estimated set resemblance of declared atoms, num_perm={num_perm}",
        ),
        Feature(
            names[2],
            "value",
            hamming_distance(simhash64(sorted(atoms_a)), simhash64(sorted(atoms_b))),
            "Hamming distance of 64-bit SimHash over declared feature tokens",
        ),
    )
