"""The board's task-overlap column: the budgeted review queue, per viewer.

Only pairs of runs delivered under a frozen review policy become cards (requirement 70); the
column also counts candidates held back beyond the budget and pairs stored shadow-only, so
neither reads as "no overlap". Visibility goes through ``visible_overlap_advisories``.

The queued pairs of every task are ordered together by their calibrated probability, most
probable first, and split at ``LIKELY_PROBABILITY``: the likely ones are shown, the rest form
the counted "possible" group (docs/DECISIONS.md, "The task column: likely cards first").
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, F, Q, QuerySet
from django.urls import reverse

from proximity.engine.overlap.delivery import DELIVER
from proximity.models import OverlapAdvisory, Principal, UnknownEmission
from proximity.selectors.access import can_see
from proximity.selectors.adjudications import visible_overlap_advisories
from proximity.selectors.board_records import (
    LIKELY_PROBABILITY,
    EvidenceLine,
    TaskCard,
    TaskColumn,
)
from proximity.selectors.overlap_coverage import run_problem_cards

__all__ = ["LIKELY_PROBABILITY", "board_task_cards"]


def _evidence(review: dict[str, Any], top: int = 6) -> tuple[EvidenceLine, ...]:
    """The terms that moved the score most, strongest first (unknown terms contribute 0)."""
    terms = sorted(review.get("terms", []), key=lambda t: -abs(t["contribution"]))
    return tuple(
        EvidenceLine(t["name"], t["value"] if t["status"] == "value" else None, t["contribution"])
        for t in terms[:top]
        if t["contribution"] != 0.0
    )


def _pair_card(r: OverlapAdvisory, held: dict[int, int]) -> TaskCard:
    review = (r.evidence or {}).get("review", {})
    first = r.queue_rank == 1
    score = r.evidence_score
    return TaskCard(
        id=r.pk,
        task_a=str(r.version_a),
        task_b=str(r.version_b),
        objective_a=r.version_a.objective[:200],
        objective_b=r.version_b.objective[:200],
        coverage=r.coverage or "unknown",
        stale=not (r.version_a.is_current and r.version_b.is_current),
        open_url=reverse("admin:proximity_overlapadvisory_label", args=[r.pk]),
        pair_url=reverse("admin:proximity_overlapadvisory_pair", args=[r.pk]),
        queue_rank=r.queue_rank,
        score=score,
        likely=score is not None and score >= LIKELY_PROBABILITY,
        evidence_model=", ".join(v for v in (review.get("version"), review.get("status")) if v),
        evidence=_evidence(review),
        held_back=held.get(r.run_id, 0) if first else 0,
        more_url=_more_url(r.run_id) if first and held.get(r.run_id) else "",
    )


def _more_url(run_id: int) -> str:
    return f"{reverse('admin:proximity_overlapadvisory_desk')}?run={run_id}&held=yes"


def _summary_cards(held_total: int, shadow_total: int) -> list[TaskCard]:
    cards = []
    if held_total:
        text = (
            f"{held_total} candidate(s) held back beyond the review budget: stored, not "
            "negatives; see 'more candidates for this task' on each task's first card"
        )
        cards.append(_notice(-(10**13), "held-back", text, held_total))
    if shadow_total:
        text = (
            f"{shadow_total} pair(s) not shown: the settings that found them were never "
            "approved with their limits written down, so they are kept for evaluation in the "
            "adjudication desk only"
        )
        cards.append(_notice(-(10**13) - 1, "shadow", text, shadow_total))
    return cards


def _notice(card_id: int, kind: str, text: str, count: int) -> TaskCard:
    return TaskCard(
        id=card_id,
        task_a="",
        task_b="",
        objective_a="",
        objective_b="",
        coverage="",
        kind=kind,
        unknown_reason=text,
        held_back=count if kind == "held-back" else 0,
    )


def _by_evidence(rows: QuerySet[OverlapAdvisory]) -> QuerySet[OverlapAdvisory]:
    """Most probable first across tasks; unscored pairs last; then the newest run first."""
    score = F("evidence_score").desc(nulls_last=True)
    return rows.order_by(score, "-created_at", "-run_id", "queue_rank", "pk")


def board_task_cards(principal: Principal | None, *, limit: int = 50) -> TaskColumn:
    """The review queue: delivered, queued pairs of every task ordered together by evidence
    (the likely ones, then the possible ones, each page at most ``limit`` cards, each counted in
    full), a count of candidates held back, a count of shadow-only pairs, and explicit unknowns.

    Requirement 70: only pairs of runs whose review policy was frozen with documented limits
    (``run.delivery == "deliver"``) are delivered as cards; others are counted, never shown
    as "no overlap".
    """
    visible = visible_overlap_advisories(principal)
    delivered = visible.filter(run__delivery=DELIVER)
    rows = delivered.filter(queued=True)
    likely_q = Q(evidence_score__gte=LIKELY_PROBABILITY)
    likely = list(_by_evidence(rows.filter(likely_q))[:limit])
    possible = list(_by_evidence(rows.exclude(likely_q))[:limit])
    page = likely + possible
    held_rows = delivered.filter(queued=False)
    per_run = held_rows.filter(run_id__in={r.run_id for r in page}).values("run_id")
    held = dict(per_run.annotate(n=Count("pk")).order_by().values_list("run_id", "n"))
    shadow_total = visible.exclude(run__delivery=DELIVER).count()
    cards = [_pair_card(r, held) for r in page]
    cards += _unknown_cards(principal, limit)
    cards += run_problem_cards(principal, limit)  # failed or overdue runs: degraded, not clear
    cards += _summary_cards(held_rows.count(), shadow_total)
    counts = rows.aggregate(total=Count("pk"), likely=Count("pk", filter=likely_q))
    return TaskColumn(counts["total"], cards, counts["likely"])


def _unknown_cards(principal: Principal | None, limit: int) -> list[TaskCard]:
    rows = UnknownEmission.objects.select_related("version__record").order_by("-created_at")
    return [
        TaskCard(
            id=-u.pk,
            task_a=str(u.version),
            task_b="",
            objective_a=u.version.objective[:200],
            objective_b="",
            coverage="unknown",
            unknown_reason=f"{u.reason}: {u.detail}"[:200],
        )
        for u in rows[:limit]
        if can_see(principal, u.version.scope, u.version.disclosure)
    ]
