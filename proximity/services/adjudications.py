"""Record a reviewer's label for an overlap advisory, and set up the adjudicators group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import Group, Permission
from django.db import IntegrityError, transaction
from django.utils import timezone

from proximity.exceptions import ConflictError, InvalidInputError, NotFoundError
from proximity.models import Adjudication, OverlapAdvisory, TaskVersion
from proximity.selectors.adjudications import AUTHORIZED_FIELDS, pair_visible, principal_for_user

__all__ = [
    "ADJUDICATORS_GROUP",
    "ADJUDICATOR_PERMISSIONS",
    "adjudication_record",
    "adjudicators_group_setup",
    "label_is_blind",
    "validated_label",
]

ADJUDICATORS_GROUP = "adjudicators"
# Exactly what the desk needs: read both records and the pair, add one's own label. No change or
# delete (labels are append-only; disagreement is kept, not overwritten).
ADJUDICATOR_PERMISSIONS = (
    "proximity.view_overlapadvisory",
    "proximity.view_taskversion",
    "proximity.add_adjudication",
)
MAX_RATIONALE = 4000
VIEW_LABELS = "view_adjudication"  # not an adjudicator's: it shows other reviewers' labels


def adjudicators_group_setup() -> Group:
    """Create or repair the group so it holds exactly ``ADJUDICATOR_PERMISSIONS``."""
    perms = []
    for dotted in ADJUDICATOR_PERMISSIONS:
        app_label, codename = dotted.split(".")
        perms.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    group, _ = Group.objects.get_or_create(name=ADJUDICATORS_GROUP)
    group.permissions.set(perms)
    return group


def validated_label(
    label: str, rationale: str, fields_shown: Sequence[str]
) -> tuple[str, list[str]]:
    """The rationale trimmed and the fields shown, or an error naming the field at fault."""
    if label not in Adjudication.Label.values:
        raise InvalidInputError(
            f"label must be one of {', '.join(Adjudication.Label.values)}", field="label"
        )
    text = (rationale or "").strip()
    if not text:
        raise InvalidInputError("a rationale is required", field="rationale")
    if len(text) > MAX_RATIONALE:
        raise InvalidInputError(f"at most {MAX_RATIONALE} characters", field="rationale")
    unknown = [f for f in fields_shown if f not in AUTHORIZED_FIELDS]
    if unknown:
        raise InvalidInputError(f"not an authorized field: {unknown[0]}", field="fields_shown")
    return text, list(fields_shown)


def adjudication_record(
    *,
    advisory: OverlapAdvisory,
    reviewer: Any,
    label: str,
    rationale: str,
    fields_shown: Sequence[str],
) -> Adjudication:
    """Store one reviewer's label, re-reading both versions inside the transaction.

    Stored as blind unless the reviewer may have seen another reviewer's label of the pair
    first (``label_is_blind``).

    A pair where either version was superseded is stale: it can only be labelled
    ``insufficient_evidence`` until it is reconciled (TASK-OVERLAP-REQUIREMENTS 53-54).
    """
    text, shown = validated_label(label, rationale, fields_shown)
    principal = principal_for_user(reviewer)
    with transaction.atomic():
        # Lock both versions so a new version cannot supersede them between check and insert.
        versions = TaskVersion.objects.select_for_update().in_bulk(
            [advisory.version_a_id, advisory.version_b_id]
        )
        a, b = versions.get(advisory.version_a_id), versions.get(advisory.version_b_id)
        if a is None or b is None or not pair_visible(principal, a, b):
            raise NotFoundError("advisory")
        stale = not (a.is_current and b.is_current)
        if stale and label != Adjudication.Label.INSUFFICIENT_EVIDENCE:
            raise ConflictError(
                "a record version changed since this pair was raised: the pair is stale and can "
                "only be labelled insufficient_evidence until it is reconciled",
                field="label",
            )
        return _insert(advisory, reviewer, label, text, shown, a, b)


def label_is_blind(advisory: OverlapAdvisory, reviewer: Any) -> bool:
    """False when the reviewer may have read another reviewer's label of the pair before this one.

    The desk shows others' labels only on pairs one has labelled (``disagreement_list``); the
    Adjudication admin lists every visible label to whoever holds ``view_adjudication``. Which
    rows someone looked at is not recorded, so holding that permission while another label of
    the pair exists is what counts: a label that might have been influenced is never blind.
    """
    if not reviewer.has_perm(f"proximity.{VIEW_LABELS}"):
        return True
    return not Adjudication.objects.filter(advisory=advisory).exclude(reviewer=reviewer).exists()


def _insert(
    advisory: OverlapAdvisory,
    reviewer: Any,
    label: str,
    text: str,
    shown: list[str],
    a: TaskVersion,
    b: TaskVersion,
) -> Adjudication:
    blind = label_is_blind(advisory, reviewer)  # read in the transaction that inserts the label
    try:
        with transaction.atomic():  # savepoint: the unique constraint decides a double submit
            return Adjudication.objects.create(
                advisory=advisory,
                reviewer=reviewer,
                label=label,
                rationale=text,
                fields_shown=shown,
                version_a=a.work_version,
                version_b=b.work_version,
                blind=blind,
                created_at=timezone.now(),
            )
    except IntegrityError:
        raise ConflictError("you already labelled this pair", field="advisory") from None
