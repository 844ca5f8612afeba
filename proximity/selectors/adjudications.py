"""Reads for the adjudication desk: the blind queue and the disagreement view, per reviewer.

A pair is visible only when the reviewer's principal may see BOTH task versions (``can_see`` on
each); the queue never carries scores, ranks or features, so a template cannot leak them, nor
other reviewers' labels or rationales (only their count): those appear only in the disagreement
view, and only for pairs the reviewer has labelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, QuerySet

from proximity.models import Adjudication, OverlapAdvisory, Principal, TaskVersion
from proximity.selectors.access import can_see, visible_labels_q

__all__ = [
    "AUTHORIZED_FIELDS",
    "Disagreement",
    "QueueItem",
    "adjudication_queue",
    "disagreement_list",
    "pair_fields",
    "pair_visible",
    "principal_for_user",
    "visible_overlap_advisories",
]

# What a reviewer is shown of each record: identity-bearing content, never detector output.
AUTHORIZED_FIELDS = (
    "task_id",
    "work_version",
    "scope",
    "objective",
    "deliverable",
    "acceptance",
    "dependencies",
    "owner",
)


def principal_for_user(user: Any) -> Principal | None:
    """The principal linked to a Django user; none (so nothing visible) when unlinked."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    return Principal.objects.filter(user_id=user.pk, is_active=True).first()


def pair_visible(principal: Principal | None, a: TaskVersion, b: TaskVersion) -> bool:
    return can_see(principal, a.scope, a.disclosure) and can_see(principal, b.scope, b.disclosure)


def visible_overlap_advisories(principal: Principal | None) -> QuerySet[OverlapAdvisory]:
    """Advisories whose two versions are both visible, filtered in SQL (so callers can page)."""
    versions = TaskVersion.objects.filter(visible_labels_q(principal, TaskVersion)).values("pk")
    return (
        OverlapAdvisory.objects.filter(version_a__in=versions, version_b__in=versions)
        .select_related("version_a__record", "version_b__record")
        .order_by("created_at", "pk")
    )


def pair_fields(version: TaskVersion) -> dict[str, Any]:
    values = {name: getattr(version, name, None) for name in AUTHORIZED_FIELDS[1:]}
    return {"task_id": version.record.task_id, **values}


@dataclass(frozen=True)
class QueueItem:
    """One pair as the blind queue shows it: both records' authorized fields, no scores."""

    advisory_id: int
    a: dict[str, Any]
    b: dict[str, Any]
    stale: bool
    labels: int


def _item(row: OverlapAdvisory) -> QueueItem:
    stale = not (row.version_a.is_current and row.version_b.is_current)
    labels = getattr(row, "label_count", 0)
    return QueueItem(row.pk, pair_fields(row.version_a), pair_fields(row.version_b), stale, labels)


def adjudication_queue(
    user: Any,
    *,
    query: str = "",
    stale: bool | None = None,
    run: int | None = None,
    held: bool = False,
) -> list[QueueItem]:
    """Pairs this reviewer may see and has not labelled yet, oldest first.

    By default the review queue (candidates within their run's budget); ``held`` lists the
    candidates held back beyond it instead ("more candidates for this task", with ``run``).
    The order within a run is the evidence order, but no score is carried (blind labelling).
    """
    principal = principal_for_user(user)
    if principal is None:
        return []
    rows = visible_overlap_advisories(principal).exclude(adjudications__reviewer_id=user.pk)
    rows = rows.filter(queued=not held).order_by("created_at", "run_id", "queue_rank", "pk")
    if run is not None:
        rows = rows.filter(run_id=run)
    if query:
        rows = rows.filter(version_a__record__task_id__icontains=query) | rows.filter(
            version_b__record__task_id__icontains=query
        )
    items = [_item(r) for r in rows.annotate(label_count=Count("adjudications"))]
    return [i for i in items if stale is None or i.stale == stale]


@dataclass(frozen=True)
class Disagreement:
    advisory_id: int
    a: dict[str, Any]
    b: dict[str, Any]
    labels: list[dict[str, Any]]


def disagreement_list(user: Any) -> list[Disagreement]:
    """Visible pairs with two or more distinct labels, each reviewer's label and rationale.

    Only pairs this reviewer has labelled: another reviewer's label of a pair is never shown
    before one's own, so every label the desk takes is given blind.
    """
    principal = principal_for_user(user)
    if principal is None:
        return []
    # A subquery, not a filter on the joined labels, so the count below counts every label.
    mine = Adjudication.objects.filter(reviewer_id=user.pk).values("advisory_id")
    rows = (
        visible_overlap_advisories(principal)
        .filter(pk__in=mine)
        .annotate(distinct_labels=Count("adjudications__label", distinct=True))
        .filter(distinct_labels__gte=2)
    )
    labels: dict[int, list[dict[str, Any]]] = {}
    for adj in Adjudication.objects.filter(advisory__in=rows).select_related("reviewer"):
        labels.setdefault(adj.advisory_id, []).append(
            {
                "reviewer": adj.reviewer.get_username(),
                "label": adj.label,
                "rationale": adj.rationale,
                "at": adj.created_at,
            }
        )
    return [
        Disagreement(r.pk, pair_fields(r.version_a), pair_fields(r.version_b), labels[r.pk])
        for r in rows
    ]
