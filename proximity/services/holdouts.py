"""The holdout ledger: every holdout evaluation logged in the database, replayed by the engine.

A table rather than a file so that every machine of a deployment writes and reads the same ledger
and it survives a rebuilt container; the state machine (fresh, inspected, consumed) stays in
:mod:`proximity.engine.evaluation.holdout`.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from proximity.engine.evaluation.holdout import LedgerEntry, LedgerStatus, ledger_status
from proximity.exceptions import InvalidInputError
from proximity.models import HoldoutEvaluation

__all__ = ["holdout_evaluation_record", "holdout_ledger", "holdout_status"]


def holdout_ledger(dataset: str | None = None) -> tuple[LedgerEntry, ...]:
    """Entries in the order they were logged (all datasets, or one)."""
    rows = HoldoutEvaluation.objects.order_by("at", "pk")
    if dataset is not None:
        rows = rows.filter(dataset=dataset)
    return tuple(
        LedgerEntry(r.dataset, r.policy_digest, r.who, r.at.isoformat(timespec="seconds"))
        for r in rows
    )


def holdout_status(dataset: str) -> LedgerStatus:
    return ledger_status(holdout_ledger(dataset), dataset)


def holdout_evaluation_record(dataset: str, policy_digest: str, who: str) -> LedgerStatus:
    """Log one evaluation now and return the dataset's state including it."""
    for field, value in (("dataset", dataset), ("policy_digest", policy_digest), ("who", who)):
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError("must be a non-empty string", field=field)
    with transaction.atomic():
        HoldoutEvaluation.objects.create(
            dataset=dataset, policy_digest=policy_digest, who=who, at=timezone.now()
        )
        return holdout_status(dataset)
