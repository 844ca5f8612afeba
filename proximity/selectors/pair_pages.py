"""The readable page of one task-overlap pair: both records side by side, the evidence in
sentences and the probability in percent, for a viewer who may see both records.

Blind review (the desk's rule) holds here too: a viewer who labels pairs gets the records
without any score, rank or evidence term (``scores=False``); the page says why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from proximity.models import Principal
from proximity.selectors.adjudications import (
    AUTHORIZED_FIELDS,
    pair_fields,
    visible_overlap_advisories,
)
from proximity.selectors.wording import evidence_sentence, probability_text

__all__ = ["FIELD_NAMES", "OverlapPairPage", "overlap_pair_page"]

FIELD_NAMES = {
    "task_id": "Task",
    "work_version": "Version",
    "scope": "Scope",
    "objective": "Objective",
    "deliverable": "Deliverable",
    "acceptance": "Acceptance checks",
    "dependencies": "Dependencies",
    "owner": "Owner",
}


@dataclass(frozen=True)
class OverlapPairPage:
    advisory_id: int
    task_a: str
    task_b: str
    rows: list[tuple[str, str, str]]
    stale: bool
    scores: bool
    probability: str = ""
    queue_rank: int | None = None
    queued: bool = True
    model: str = ""
    evidence: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()


def _text(value: Any) -> str:
    if value is None or value == "" or value == []:
        return "(not declared)"
    if isinstance(value, list | tuple):
        return "; ".join(str(v) for v in value)
    return str(value)


def overlap_pair_page(
    principal: Principal | None, advisory_id: int, *, scores: bool
) -> OverlapPairPage | None:
    """``None`` when either record is out of the viewer's sight (absent and hidden look alike)."""
    advisory = visible_overlap_advisories(principal).filter(pk=advisory_id).first()
    if advisory is None:
        return None
    a, b = pair_fields(advisory.version_a), pair_fields(advisory.version_b)
    rows = [(FIELD_NAMES[n], _text(a[n]), _text(b[n])) for n in AUTHORIZED_FIELDS]
    page = OverlapPairPage(
        advisory_id=advisory.pk,
        task_a=str(advisory.version_a),
        task_b=str(advisory.version_b),
        rows=rows,
        stale=not (advisory.version_a.is_current and advisory.version_b.is_current),
        scores=scores,
    )
    if not scores:
        return page
    review = (advisory.evidence or {}).get("review", {})
    terms = sorted(review.get("terms", []), key=lambda t: -abs(t.get("contribution") or 0.0))
    known = [t for t in terms if t.get("status", "value") == "value" and t.get("value") is not None]
    unknown = [t for t in terms if t not in known]
    score = advisory.evidence_score
    return replace(
        page,
        probability="" if score is None else probability_text(score),
        queue_rank=advisory.queue_rank,
        queued=advisory.queued,
        model=", ".join(v for v in (review.get("version"), review.get("status")) if v),
        evidence=tuple(evidence_sentence(t) for t in known),
        unknown=tuple(evidence_sentence(t) for t in unknown),
    )
