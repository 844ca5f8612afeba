"""The review queue's evidence model: a versioned logistic score over a candidate pair's features.

Two stages, measured separately: retrieval (RRF over the rankers) decides which pairs are
*candidates*; this model only orders a run's candidates so that at most a budget of them become
review cards. A candidate beyond the budget is *held back*: stored, reachable, never a negative.
The score is a logistic model (coefficients are data, see ``EvidenceModel.from_mapping``) passed
through a Platt map (Platt 1999; ``calibration.PlattMap``); each feature's contribution
``weight * value`` is kept so a reader can see why a pair is first.

Unknown is never negative: a feature either record does not declare contributes exactly 0 and is
reported as ``unknown``. The owner is not a feature (requirement 3): a pair is never held back
because of who declared it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from proximity.engine.evaluation.calibration import PlattMap
from proximity.engine.overlap.advisories import COVERAGE_DEGRADED, Advisory
from proximity.engine.overlap.features import Feature
from proximity.engine.overlap.lexical import identifier_tokens
from proximity.engine.overlap.records import TaskRecord
from proximity.engine.overlap.similarity import SIMILARITY_FEATURES

__all__ = [
    "EVIDENCE_FEATURES",
    "DeclaredScope",
    "EvidenceModel",
    "EvidenceTerm",
    "QueuedCandidate",
    "ScoredCandidate",
    "declared_scope",
    "evidence_terms",
    "review_queue",
    "score_candidate",
]

#: Every feature the model reads, in a fixed order (a fitted artefact names the same list).
EVIDENCE_FEATURES = (
    "rank.lexical",
    "rank.dense",
    "rank.fused",
    "objective.jaccard",
    "deliverable.same",
    "deliverable.jaccard",
    "acceptance.jaccard",
    "dependencies.jaccard",
    "plan.same_key",
    "plan.resemblance",
    "scope.paths_jaccard",
    "scope.modules_jaccard",
    "scope.symbols_jaccard",
    "purpose.review",
    "version.gap",
    "time.gap",
    "nli.entailment",
    "similarity.dense_cosine",
    "similarity.objective_idf_overlap",
    "similarity.objective_cosine",
)
_EXT = r"(?:py|pyi|js|ts|tsx|go|java|rb|rs|c|h|cc|cpp|md|rst|json|ya?ml|toml|sql|html|css|sh)"
_PATH = re.compile(rf"(?:[\w.-]*/[\w./-]*\w|\b[\w-]+\.{_EXT}\b)")
_MODULE = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_SYMBOL = re.compile(r"\b(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z]\w*|\w+\(\))")
_FILE_SUFFIX = re.compile(rf"\.{_EXT}$")


@dataclass(frozen=True, slots=True)
class DeclaredScope:
    """Paths, dotted modules and identifiers a record declares (plan targets and its text)."""

    paths: frozenset[str]
    modules: frozenset[str]
    symbols: frozenset[str]


def declared_scope(record: TaskRecord) -> DeclaredScope:
    """What ``record`` says it touches: plan-sketch targets, and path, module and identifier
    tokens of its objective, deliverable and acceptance checks."""
    texts = [record.objective or "", record.deliverable or "", *(record.acceptance or ())]
    targets = [n.target for n in (record.plan_sketch.nodes if record.plan_sketch else ())]
    text = "\n".join(texts)
    paths = {p.strip("./").lower() for p in _PATH.findall(text)} | {
        t.strip("./").lower() for t in targets if t
    }
    modules = {m for m in _MODULE.findall(text) if not _FILE_SUFFIX.search(m)}
    return DeclaredScope(
        frozenset(p for p in paths if p),
        frozenset(m.lower() for m in modules),
        frozenset(s.rstrip("()") for s in _SYMBOL.findall(text)),
    )


@dataclass(frozen=True, slots=True)
class EvidenceTerm:
    """One feature's value, its weight and its contribution ``weight * value`` to the logit."""

    name: str
    status: Literal["value", "unknown"]
    value: float
    weight: float
    contribution: float
    detail: str = ""


@dataclass(frozen=True, slots=True)
class EvidenceModel:
    """A frozen logistic model: ``logit = intercept + sum(weight * value)``, then a Platt map.

    ``status`` says where the coefficients come from ("hand-set" or "fitted on <data>"); the
    digest (SHA-256 of the canonical JSON) is carried into every stored result.
    """

    version: str
    status: str
    intercept: float
    weights: tuple[tuple[str, float], ...]
    platt_a: float = -1.0
    platt_b: float = 0.0
    notes: str = ""

    def __post_init__(self) -> None:
        unknown = [n for n, _ in self.weights if n not in EVIDENCE_FEATURES]
        if unknown:
            raise ValueError(f"weights name unknown features: {unknown}")
        if not all(math.isfinite(w) for _, w in self.weights) or not math.isfinite(self.intercept):
            raise ValueError("weights and intercept must be finite")
        if not self.platt_a < 0:  # the queue orders by logit: the map must be increasing
            raise ValueError(f"calibration a must be < 0 (an increasing map), got {self.platt_a}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> EvidenceModel:
        calibration = data.get("calibration") or {}
        return cls(
            version=str(data["version"]),
            status=str(data["status"]),
            intercept=float(data["intercept"]),
            weights=tuple((str(k), float(v)) for k, v in sorted(data["weights"].items())),
            platt_a=float(calibration.get("a", -1.0)),
            platt_b=float(calibration.get("b", 0.0)),
            notes=str(data.get("notes", "")),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "status": self.status,
            "intercept": self.intercept,
            "weights": dict(self.weights),
            "calibration": {"kind": "platt", "a": self.platt_a, "b": self.platt_b},
            "notes": self.notes,
        }

    @property
    def digest(self) -> str:
        body = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
        return "evidence:" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]

    def weight(self, name: str) -> float:
        return dict(self.weights).get(name, 0.0)


def _feature(features: Sequence[Feature], name: str) -> Feature | None:
    return next((f for f in features if f.name == name), None)


def _numeric(features: Sequence[Feature], name: str) -> float | None:
    f = _feature(features, name)
    if f is None or f.status != "value" or f.value is None or isinstance(f.value, str):
        return None
    return float(f.value)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float | None:
    return None if not a and not b else len(a & b) / len(a | b)


def _rank_values(advisory: Advisory, fused_position: int) -> dict[str, float | None]:
    ranks = dict(advisory.ranks)
    dense_down = advisory.coverage == COVERAGE_DEGRADED
    lexical, dense = ranks.get("lexical"), ranks.get("dense")
    return {
        "rank.lexical": 1.0 / lexical if lexical else 0.0,
        "rank.dense": None if dense_down else (1.0 / dense if dense else 0.0),
        "rank.fused": 1.0 / fused_position,
    }


def _declared_values(features: Sequence[Feature]) -> dict[str, float | None]:
    key = _feature(features, "plan.exact_key")
    same_key = (
        None if key is None or key.status != "value" else float(key.value == "same serialization")
    )
    nli = [_numeric(features, f"nli.{d}.entailment") for d in ("a_to_b", "b_to_a")]
    known = [v for v in nli if v is not None]
    return {
        "deliverable.same": _numeric(features, "deliverable.same_normalised_text"),
        "deliverable.jaccard": _numeric(features, "deliverable.token_jaccard"),
        "acceptance.jaccard": _numeric(features, "acceptance.shared_checks_jaccard"),
        "dependencies.jaccard": _numeric(features, "dependencies.jaccard"),
        "plan.same_key": same_key,
        "plan.resemblance": _numeric(features, "plan.minhash_resemblance"),
        "purpose.review": _numeric(features, "purpose.review_evidence"),
        "nli.entailment": max(known) if known else None,
        **{name: _numeric(features, name) for name in SIMILARITY_FEATURES},
    }


def _gap_days(a: TaskRecord, b: TaskRecord) -> float | None:
    from datetime import datetime  # stdlib parsing only: no clock is read

    try:
        ta = datetime.fromisoformat(a.provenance.declared_at or "")
        tb = datetime.fromisoformat(b.provenance.declared_at or "")
        return abs((ta - tb).total_seconds()) / 86400.0
    except (TypeError, ValueError):
        return None


#: Days at which ``time.gap`` reaches 1 (log scale: a week apart is 0.25, a year 0.72).
_GAP_HORIZON_DAYS = 3650.0


def _objective_jaccard(a: TaskRecord, b: TaskRecord) -> float | None:
    if not a.objective or not b.objective:
        return None
    return _jaccard(
        frozenset(identifier_tokens(a.objective)), frozenset(identifier_tokens(b.objective))
    )


def _pair_values(query: TaskRecord, cand: TaskRecord) -> dict[str, float | None]:
    sa, sb = declared_scope(query), declared_scope(cand)
    days = _gap_days(query, cand)
    gap = None if days is None else min(math.log1p(days) / math.log1p(_GAP_HORIZON_DAYS), 1.0)
    return {
        "objective.jaccard": _objective_jaccard(query, cand),
        "scope.paths_jaccard": _jaccard(sa.paths, sb.paths),
        "scope.modules_jaccard": _jaccard(sa.modules, sb.modules),
        "scope.symbols_jaccard": _jaccard(sa.symbols, sb.symbols),
        "version.gap": min(abs(query.work_version - cand.work_version), 5) / 5.0,
        "time.gap": gap,
    }


def evidence_terms(
    model: EvidenceModel,
    advisory: Advisory,
    query: TaskRecord,
    candidate: TaskRecord,
    *,
    fused_position: int,
) -> tuple[EvidenceTerm, ...]:
    """Every feature of ``EVIDENCE_FEATURES`` for one advisory, with its contribution.

    ``fused_position`` is the advisory's 1-based position in the run's fused list.
    """
    values = {
        **_rank_values(advisory, fused_position),
        **_declared_values(advisory.features),
        **_pair_values(query, candidate),
    }
    why = {f.name: f"{f.status}: {f.detail}" for f in advisory.features if f.status != "value"}
    terms = []
    for name in EVIDENCE_FEATURES:
        value, weight = values[name], model.weight(name)
        if value is None:
            detail = why.get(name, "not declared by both")
            terms.append(EvidenceTerm(name, "unknown", 0.0, weight, 0.0, detail))
        else:
            terms.append(EvidenceTerm(name, "value", value, weight, weight * value))
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class ScoredCandidate:
    advisory: Advisory
    fused_position: int
    logit: float
    probability: float
    terms: tuple[EvidenceTerm, ...]


def score_candidate(
    model: EvidenceModel,
    advisory: Advisory,
    query: TaskRecord,
    candidate: TaskRecord,
    *,
    fused_position: int,
) -> ScoredCandidate:
    """The calibrated evidence score of one candidate pair, with its per-feature terms."""
    terms = evidence_terms(model, advisory, query, candidate, fused_position=fused_position)
    logit = model.intercept + math.fsum(t.contribution for t in terms)
    probability = float(PlattMap(model.platt_a, model.platt_b)([logit])[0])
    return ScoredCandidate(advisory, fused_position, logit, probability, terms)


@dataclass(frozen=True, slots=True)
class QueuedCandidate:
    """A scored candidate's place in the review queue; ``queued`` False means held back."""

    scored: ScoredCandidate
    queue_rank: int
    queued: bool


def review_queue(scored: Iterable[ScoredCandidate], *, budget: int) -> tuple[QueuedCandidate, ...]:
    """Order candidates by calibrated score (ties: fused position) and mark the first ``budget``.

    Every candidate is returned: the ones beyond the budget are held back, not dropped.
    """
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    ordered = sorted(scored, key=lambda s: (-s.logit, s.fused_position))
    return tuple(
        QueuedCandidate(s, rank, rank <= budget) for rank, s in enumerate(ordered, start=1)
    )
