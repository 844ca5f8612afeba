"""Adjudicated pairs as training rows for the evidence model.

Only blind labels count (a label given after seeing other reviewers' labels is not independent),
``insufficient_evidence`` is no label at all, and ``same_task`` and ``partial_overlap`` are the
positive class (both mean the pair needed a reviewer). Feature values are the ones the evidence
model stored on the advisory when it was scored, so a label trains on what the queue saw.
"""

from __future__ import annotations

from proximity.engine.overlap.evidence import EVIDENCE_FEATURES
from proximity.engine.overlap.evidence_fit import TrainingRow
from proximity.models import Adjudication

__all__ = ["POSITIVE_LABELS", "adjudicated_rows"]

Label = Adjudication.Label
POSITIVE_LABELS = frozenset({Label.SAME_TASK, Label.PARTIAL_OVERLAP})
_NEGATIVE_LABELS = frozenset({Label.RELATED_DISTINCT})


def adjudicated_rows() -> tuple[TrainingRow, ...]:
    """One row per blind, decisive label whose advisory carries stored evidence terms."""
    rows = []
    labels = (
        Adjudication.objects.filter(blind=True, label__in=POSITIVE_LABELS | _NEGATIVE_LABELS)
        .select_related("advisory")
        .order_by("pk")
    )
    for adj in labels:
        review = (adj.advisory.evidence or {}).get("review") or {}  # as overlap_store writes it
        terms = {t["name"]: t for t in review.get("terms", [])}
        if not terms:
            continue  # scored before the evidence model existed: nothing to learn from
        known = [terms.get(n, {}).get("status") == "value" for n in EVIDENCE_FEATURES]
        pairs = zip(EVIDENCE_FEATURES, known, strict=True)
        values = [float(terms[n]["value"]) if k else 0.0 for n, k in pairs]
        fused = float(terms.get("rank.fused", {}).get("value") or 0.0)
        rows.append(
            TrainingRow(
                query_id=f"adjudication:{adj.pk}",
                candidate_id=str(adj.advisory_id),
                group=-adj.advisory_id,  # one group per pair: never split across folds
                fused_position=round(1 / fused) if fused > 0 else 0,
                values=tuple(values),
                known=tuple(known),
                label=adj.label in POSITIVE_LABELS,
            )
        )
    return tuple(rows)
