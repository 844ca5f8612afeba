"""Evaluation bookkeeping that must outlive any one machine: the holdout ledger."""

from __future__ import annotations

from typing import Any

from django.db import models


class HoldoutEvaluation(models.Model):
    """One evaluation of a holdout dataset under a frozen policy digest. Append-only: the
    sequence of rows is the ledger the engine replays into fresh / inspected / consumed."""

    dataset = models.CharField(max_length=120, db_index=True)
    policy_digest = models.CharField(max_length=100)
    who = models.CharField(max_length=150)
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.dataset} under {self.policy_digest[:16]} by {self.who}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValueError("the holdout ledger is append-only: an entry is never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("the holdout ledger is append-only: an entry is never deleted")
