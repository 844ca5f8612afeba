"""Task overlap: records, versions, runs, advisories, unknowns, omissions, repairs, labels."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from proximity.models.access import Principal


class TaskRecord(models.Model):
    """The immutable identity of a declared task: (scope, task id). Content lives in versions.

    Ids are namespaced per scope, so the same id declared in a scope one cannot see is another
    task, and declaring it reveals nothing. ``scope`` is the scope of version 1; a revision never
    moves a task to another scope. ``declared_by`` is the task's owner: the one principal, with
    the leads of the scope, that may revise it (``TaskVersion.owner`` is free text, never a right).
    """

    scope = models.CharField(max_length=120)
    task_id = models.CharField(max_length=120)
    declared_by = models.ForeignKey(Principal, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "task_id"], name="task_id_unique_in_scope")
        ]

    def __str__(self) -> str:
        return self.task_id


class TaskVersion(models.Model):
    """One workVersion of a task. Never rewritten: a change of content is a new row."""

    record = models.ForeignKey(TaskRecord, on_delete=models.CASCADE, related_name="versions")
    work_version = models.PositiveIntegerField()
    scope = models.CharField(max_length=120, db_index=True)
    disclosure = models.JSONField(default=list, blank=True)
    objective = models.TextField()
    deliverable = models.TextField()
    acceptance = models.JSONField(default=list)
    dependencies = models.JSONField(null=True, blank=True)
    purpose = models.TextField(blank=True)
    plan_facts = models.JSONField(null=True, blank=True)
    plan_sketch = models.JSONField(null=True, blank=True)
    provenance = models.JSONField(default=dict, blank=True)
    owner = models.CharField(max_length=120, blank=True)
    # Who wrote this version (the declarer for version 1, the reviser after): its run's pool is
    # this principal's scopes.
    declared_by = models.ForeignKey(Principal, on_delete=models.PROTECT, related_name="+")
    space_id = models.CharField(max_length=64, blank=True)
    embedding = models.BinaryField(null=True, blank=True)
    # The objective embedded alone by the same model (the review stage's objective cosine);
    # written with ``embedding``, so ``space_id`` tells whether it is current too.
    objective_embedding = models.BinaryField(null=True, blank=True)
    created_at = models.DateTimeField()
    superseded_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["record", "work_version"]
        constraints = [
            models.UniqueConstraint(fields=["record", "work_version"], name="work_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.record.task_id}@{self.work_version}"

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None


class OverlapRun(models.Model):
    """One pipeline run for a task version under one policy; unique so a retry is a no-op.

    A failed run keeps its reason in ``error`` and counts its claims in ``attempts``; readers
    show a failed run, or one pending or running for too long, as degraded coverage.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    #: The coverage readers see for a run that failed, or that has no result long after it was
    #: requested: never "no overlap".
    COVERAGE_FAILED = "degraded-run-failed"
    COVERAGE_STALE = "degraded-run-stale"

    query = models.ForeignKey(TaskVersion, on_delete=models.CASCADE, related_name="runs")
    policy_digest = models.CharField(max_length=64)
    policy_version = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    coverage = models.CharField(max_length=40, blank=True)
    snapshot_id = models.CharField(max_length=64, blank=True)
    pool_size = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The review stage (issue 15): the budget applied, how many candidates were held back beyond
    # it, the evidence model that ordered them, and requirement 70's delivery mode. "" on runs
    # stored before the review stage existed; readers treat it as shadow-only (fail closed).
    review_budget = models.PositiveIntegerField(null=True, blank=True)
    held_back = models.PositiveIntegerField(default=0)
    evidence_model = models.CharField(max_length=64, blank=True)
    delivery = models.CharField(max_length=16, blank=True)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["query", "policy_digest"], name="overlap_run_idempotent"
            )
        ]
        # The sweep and the board read the few runs that are not done.
        indexes = [models.Index(fields=["status"], name="overlap_run_status")]

    def __str__(self) -> str:
        return f"run {self.pk} for {self.query} [{self.status}]"


class OverlapAdvisory(models.Model):
    """A candidate pair that needs independent adjudication; never a verdict.

    ``queue_rank`` is its place in the run's evidence order; ``queued`` False means held back
    beyond the review budget: stored, reachable ("more candidates"), never a negative.
    """

    STATUS = "needs-independent-adjudication"

    run = models.ForeignKey(OverlapRun, on_delete=models.CASCADE, related_name="advisories")
    version_a = models.ForeignKey(TaskVersion, on_delete=models.CASCADE, related_name="+")
    version_b = models.ForeignKey(TaskVersion, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=40, default=STATUS, editable=False)
    coverage = models.CharField(max_length=40)
    ranks = models.JSONField(default=dict)
    fused_rank = models.PositiveIntegerField()
    features = models.JSONField(default=dict)
    evidence = models.JSONField(default=dict, blank=True)
    queue_rank = models.PositiveIntegerField(null=True, blank=True)
    queued = models.BooleanField(default=True)
    evidence_score = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["run", "fused_rank"]
        verbose_name_plural = "overlap advisories"
        constraints = [
            models.UniqueConstraint(fields=["run", "version_b"], name="overlap_advisory_once"),
            models.CheckConstraint(
                condition=Q(status="needs-independent-adjudication"), name="advisory_status_only"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.version_a} ~ {self.version_b}"


class UnknownEmission(models.Model):
    """An explicit unknown with its reason: never read as "no overlap"."""

    run = models.ForeignKey(
        OverlapRun, null=True, on_delete=models.CASCADE, related_name="unknowns"
    )
    version = models.ForeignKey(TaskVersion, on_delete=models.CASCADE, related_name="+")
    candidate = models.ForeignKey(
        TaskVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.CharField(max_length=64)
    detail = models.TextField(blank=True)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"unknown {self.reason} for {self.version}"


class CoverageOmission(models.Model):
    """A pair the run could not compare (e.g. incompatible embedding space), with the reason."""

    run = models.ForeignKey(OverlapRun, on_delete=models.CASCADE, related_name="omissions")
    omitted = models.ForeignKey(TaskVersion, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "omitted"], name="omission_once")]

    def __str__(self) -> str:
        return f"omitted {self.omitted} ({self.reason})"


class RepairRecord(models.Model):
    """A degraded mode that needs a person; names the repair route, never runs it."""

    kind = models.CharField(max_length=64)
    reason = models.TextField()
    route = models.CharField(max_length=120, default="python manage.py doctor")
    run = models.ForeignKey(OverlapRun, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"repair {self.kind}: {self.route}"


class Adjudication(models.Model):
    """One reviewer's label for one advisory pair; several reviewers keep their disagreement."""

    class Label(models.TextChoices):
        SAME_TASK = "same_task"
        PARTIAL_OVERLAP = "partial_overlap"
        RELATED_DISTINCT = "related_distinct"
        INSUFFICIENT_EVIDENCE = "insufficient_evidence"

    advisory = models.ForeignKey(
        OverlapAdvisory, on_delete=models.PROTECT, related_name="adjudications"
    )
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    label = models.CharField(max_length=24, choices=Label.choices)
    rationale = models.TextField()
    fields_shown = models.JSONField(default=list)
    version_a = models.PositiveIntegerField()
    version_b = models.PositiveIntegerField()
    blind = models.BooleanField(default=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["advisory", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["advisory", "reviewer"], name="one_label_per_reviewer"),
            models.CheckConstraint(condition=~Q(rationale=""), name="rationale_required"),
        ]

    def __str__(self) -> str:
        return f"{self.label} by {self.reviewer} on {self.advisory_id}"
