"""Speculative merge checks: one row per pair of worktree states (trees) and rule version."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from proximity.models.airspace import Repository


class MergeCheck(models.Model):
    """The static build and migration checks of the merge of two trees, and what they found.

    Keyed by the trees, not the agents: the same two states are checked once whoever holds
    them, and ``tree_a <= tree_b`` makes ``(a, b)`` and ``(b, a)`` one row. ``agent_a`` and
    ``agent_b`` are who held each tree when the check was planned (a check is cancelled when
    either has moved on). ``problems`` are the merge-only findings, trimmed.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Outcome(models.TextChoices):
        CLEAN = "clean"  # merged cleanly, no merge-only problem
        PROBLEMS = "problems"  # merged cleanly, and the merge has problems neither side has
        CONFLICT = "conflict"  # a textual conflict: the dry-run channel's, not checked here

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="merge_checks_run"
    )
    tree_a = models.CharField(max_length=64)
    tree_b = models.CharField(max_length=64)
    version = models.CharField(max_length=32)
    agent_a = models.CharField(max_length=120)
    agent_b = models.CharField(max_length=120)
    base = models.CharField(max_length=64, blank=True)
    merged = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    problems = models.JSONField(default=list, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "tree_a", "tree_b", "version"], name="merge_check_unique"
            ),
            models.CheckConstraint(
                condition=Q(tree_a__lte=F("tree_b")), name="merge_check_trees_ordered"
            ),
        ]
        indexes = [models.Index(fields=["repository", "status"])]

    def __str__(self) -> str:
        return f"{self.repository} merge {self.tree_a[:8]}+{self.tree_b[:8]} [{self.status}]"
