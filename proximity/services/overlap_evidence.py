"""The review stage of an overlap run: evidence scores, the budgeted queue and its delivery.

The evidence model and the delivery registry are data files under ``proximity/fixtures/``
(read once per process); the budget is ``OVERLAP_REVIEW_BUDGET`` (a default and per-scope
overrides). Nothing here decides what a candidate *is*: every candidate is stored, the queue
only orders them and marks those beyond the budget as held back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings

from proximity import fixtures
from proximity.engine.overlap import OverlapRun as EngineRun
from proximity.engine.overlap import TaskRecord as EngineRecord
from proximity.engine.overlap import TaskRef
from proximity.engine.overlap.delivery import ReviewDelivery, review_delivery
from proximity.engine.overlap.evidence import (
    EvidenceModel,
    QueuedCandidate,
    review_queue,
    score_candidate,
)
from proximity.models import TaskVersion
from proximity.services.task_records import engine_record

__all__ = [
    "DELIVERY_REGISTRY",
    "EVIDENCE_MODEL_FILE",
    "ReviewStage",
    "active_delivery",
    "evidence_model",
    "review_budget",
    "review_stage",
]

_DIR = Path(fixtures.__file__).parent
EVIDENCE_MODEL_FILE = _DIR / "overlap_evidence_model.json"
DELIVERY_REGISTRY = _DIR / "overlap_delivery.json"


@cache
def evidence_model() -> EvidenceModel:
    return EvidenceModel.from_mapping(json.loads(EVIDENCE_MODEL_FILE.read_text(encoding="utf-8")))


@cache
def _registry() -> tuple[Mapping[str, object], ...]:
    return tuple(json.loads(DELIVERY_REGISTRY.read_text(encoding="utf-8"))["frozen"])


def active_delivery(policy_digest: str) -> ReviewDelivery:
    """Requirement 70 for a run's policy and the loaded model: deliver only if that pair is
    frozen with documented limits in the registry."""
    return review_delivery(policy_digest, evidence_model().digest, _registry())


def review_budget(scope: str) -> int:
    """Cards per new task version in ``scope``: its override, else the default."""
    budget = settings.OVERLAP_REVIEW_BUDGET
    return int(budget["scopes"].get(scope, budget["default"]))


@dataclass(frozen=True)
class ReviewStage:
    """What the store writes besides the engine run: each advisory's place, and run totals."""

    budget: int
    delivery: ReviewDelivery
    model: EvidenceModel
    by_candidate: Mapping[TaskRef, QueuedCandidate]

    @property
    def held_back(self) -> int:
        return sum(not q.queued for q in self.by_candidate.values())


def review_stage(
    query: TaskVersion,
    result: EngineRun,
    version_id: Callable[[TaskRef], int],
    policy_digest: str,
    records: Callable[[TaskRef], EngineRecord | None] | None = None,
) -> ReviewStage:
    """Score every advisory of ``result``, order them and mark the budget.

    ``records`` gives the candidates' records the run already holds (its snapshot: stored
    versions do not change, and the recheck has just confirmed them); those it lacks are read
    in one query.
    """
    model = evidence_model()
    held: dict[TaskRef, EngineRecord] = {}
    for a in result.advisories:
        record = records(a.candidate) if records else None
        if record is not None:
            held[a.candidate] = record
    missing = {
        a.candidate: version_id(a.candidate) for a in result.advisories if a.candidate not in held
    }
    if missing:
        rows = TaskVersion.objects.select_related("record").defer(
            "embedding", "objective_embedding"
        )
        found = rows.in_bulk(list(missing.values()))
        held |= {ref: engine_record(found[pk]) for ref, pk in missing.items()}
    query_record = engine_record(query)
    scored = [
        score_candidate(model, a, query_record, held[a.candidate], fused_position=n)
        for n, a in enumerate(result.advisories, start=1)
    ]
    budget = review_budget(query.record.scope)
    queue = review_queue(scored, budget=budget)
    by = {q.scored.advisory.candidate: q for q in queue}
    return ReviewStage(budget, active_delivery(policy_digest), model, by)
