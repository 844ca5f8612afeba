"""Code-space proximity: repositories, agents, snapshots, scans, advisories, messages, trails."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import models
from django.db.models import Q

from proximity.engine.airspace.profiles import DEFAULT_PROFILE
from proximity.models.access import Principal

# The earliest time an agent may send (services/time_bounds.py), also a database constraint.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)


class Repository(models.Model):
    """One code base shared by agents; its scope and disclosure labels govern who sees it."""

    name = models.SlugField(max_length=120, unique=True)
    scope = models.CharField(max_length=120, db_index=True)
    disclosure = models.JSONField(default=list, blank=True)
    path = models.CharField(max_length=1024, blank=True, help_text="local clone to watch")
    base_branch = models.CharField(max_length=255, default="main")
    watch = models.BooleanField(default=False)
    # Opt-in: speculative merge checks of this repository's worktree pairs (services/merge_checks).
    merge_checks = models.BooleanField(default=False)
    # Opt-in on top: the merge checks also run this repository's tests that reach both sides'
    # changes, on the merge and on each side (runs the repository's code on the worker).
    merge_check_tests = models.BooleanField(default=False)
    profile = models.CharField(max_length=32, default=DEFAULT_PROFILE)
    # The profile's parked time replaced (0: never parked), as the repository's ``[radar]
    # parked_hours`` replaces it for its agents' local checks; null: the profile's.
    parked_hours = models.FloatField(
        null=True,
        blank=True,
        help_text="hours idle before a branch yields right of way; 0: never; empty: the profile's",
    )
    webhook_url = models.URLField(blank=True, help_text="POST each trigger message here too")
    # Exact textual conflicts found by the last watch tick's dry-run merges (engine options shape).
    watch_conflicts = models.JSONField(default=list, blank=True)
    # Debounce and outbox in one place: set when a scan is wanted, cleared by the scan's claim.
    scan_requested_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Set when a watch tick is enqueued, cleared when it ends: the beat enqueues no second tick
    # while one is queued or running (a stale claim, from a dead worker, expires).
    watch_claimed_at = models.DateTimeField(null=True, blank=True)
    # When a watch tick last read the worktrees: doctor reports a watched repository nobody has
    # read within twice the interval (no beat, no worker), never a silent no-op.
    watched_at = models.DateTimeField(null=True, blank=True)
    # Input order: a counter taken, under this row's lock, each time a scan reads its inputs, and
    # the order of the last scan applied. A scan whose read is older is never applied over it.
    scan_input_order = models.BigIntegerField(default=0)
    applied_input_order = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # Removing a repository archives it (services/repositories.py): agents stop, its records and
    # trails stay readable and verifiable, and who removed it and when are kept here.
    archived_at = models.DateTimeField(null=True, blank=True, db_index=True)
    archived_by = models.CharField(max_length=150, blank=True)

    class Meta:
        verbose_name_plural = "repositories"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Agent(models.Model):
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="agents")
    agent_id = models.CharField(max_length=120)
    label = models.CharField(max_length=255, blank=True)
    principal = models.ForeignKey(
        Principal, null=True, blank=True, on_delete=models.SET_NULL, related_name="agents"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    # The agent's last edit the radar denied, as its reports carry it: waiting on the radar is
    # not idleness, so right of way parks the agent only a week after it (``askedAt``).
    asked_at = models.DateTimeField(null=True, blank=True)
    # Its last report said the work is published (committed, its head on a remote): waiting on
    # review, so right of way never parks it (``published``).
    published = models.BooleanField(default=False)
    last_report_at = models.DateTimeField(null=True, blank=True)
    worktree_path = models.CharField(max_length=1024, blank=True)

    class Meta:
        ordering = ["repository", "agent_id"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "agent_id"], name="agent_unique_in_repo"),
            # A start before 2000 is refused at the edge (services/time_bounds.py); the database
            # refuses it too, since year 1 at +14:00 is stored by PostgreSQL but not read back.
            models.CheckConstraint(
                condition=Q(started_at__isnull=True) | Q(started_at__gte=EARLIEST),
                name="agent_started_in_window",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.repository}/{self.agent_id}"


class WorkingSetSnapshot(models.Model):
    """What an agent was touching at one moment; versions only grow, old ones are pruned."""

    class Source(models.TextChoices):
        API = "api"
        WATCH = "watch"

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="snapshots")
    version = models.PositiveIntegerField()
    files = models.JSONField(default=list)
    intent = models.JSONField(default=list)
    content_hash = models.CharField(max_length=64)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.API)
    reported_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["agent", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "version"], name="snapshot_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.agent} v{self.version}"


class DependencyGraphSnapshot(models.Model):
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="graphs")
    content_hash = models.CharField(max_length=64)
    adjacency = models.JSONField(default=dict)
    file_count = models.PositiveIntegerField(default=0)
    edge_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "content_hash"], name="graph_unique")
        ]

    def __str__(self) -> str:
        return f"{self.repository} graph {self.content_hash[:8]} ({self.edge_count} edges)"


class ProximityScan(models.Model):
    """One engine run over a repository's current snapshots, keyed by its exact inputs."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        # Finished, but its inputs were read before those of a scan already applied: not applied.
        SUPERSEDED = "superseded"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="scans")
    input_hash = models.CharField(max_length=64)
    profile = models.CharField(max_length=32)
    scorer_version = models.CharField(max_length=32)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    # Repository.scan_input_order of the latest read of these inputs (see scans.py).
    input_order = models.BigIntegerField(default=0)
    # Times this row was claimed to run; bounded by OVERLAP_SCAN_MAX_ATTEMPTS.
    attempts = models.PositiveSmallIntegerField(default=0)
    graph = models.ForeignKey(
        DependencyGraphSnapshot, null=True, blank=True, on_delete=models.SET_NULL
    )
    snapshot_ids = models.JSONField(default=list)
    result = models.JSONField(default=dict, blank=True)
    agent_count = models.PositiveIntegerField(default=0)
    advisory_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "input_hash", "profile", "scorer_version"],
                name="scan_idempotent",
            )
        ]
        indexes = [models.Index(fields=["repository", "status", "-finished_at"])]

    def __str__(self) -> str:
        return f"{self.repository} scan {self.pk} [{self.status}]"


class ProximityAdvisory(models.Model):
    """A pair of agents in a Traffic or Resolution band, tracked from first to last sighting."""

    class Band(models.TextChoices):
        TRAFFIC = "traffic", "Traffic Advisory"
        RESOLUTION = "resolution", "Resolution Advisory"

        @classmethod
        def of_level(cls, level: str) -> ProximityAdvisory.Band:
            """The band of an engine advisory level ("advisory" is the engine's Traffic)."""
            return cls.RESOLUTION if level == "resolution" else cls.TRAFFIC

        @property
        def level(self) -> str:
            """The engine's level name for this band (the inverse of :meth:`of_level`)."""
            return "resolution" if self == "resolution" else "advisory"

    class State(models.TextChoices):
        OPEN = "open"
        ACKNOWLEDGED = "acknowledged"
        RESOLVED = "resolved"
        EXPIRED = "expired"

    class Trend(models.TextChoices):
        CLOSING = "closing"
        OPENING = "opening"
        STEADY = "steady"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="advisories")
    agent_a = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    agent_b = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    band = models.CharField(max_length=10, choices=Band.choices)
    risk = models.FloatField()
    calibrated_probability = models.FloatField(null=True, blank=True)
    calibration_label = models.CharField(max_length=200, blank=True)
    channels = models.JSONField(default=dict)
    conflict = models.BooleanField(default=False)
    escalated = models.BooleanField(default=False)
    detail = models.JSONField(default=dict, blank=True)
    steer = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hold = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    closure_rate = models.FloatField(null=True, blank=True)
    trend = models.CharField(max_length=8, choices=Trend.choices, default=Trend.STEADY)
    state = models.CharField(max_length=12, choices=State.choices, default=State.OPEN)
    profile = models.CharField(max_length=32)
    scorer_version = models.CharField(max_length=32)
    last_scan = models.ForeignKey(
        ProximityScan, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.JSONField(default=list, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-risk", "id"]
        verbose_name_plural = "proximity advisories"
        constraints = [
            # At most one live advisory per pair: scans update it instead of adding rows.
            models.UniqueConstraint(
                fields=["repository", "agent_a", "agent_b"],
                condition=Q(state__in=["open", "acknowledged"]),
                name="one_live_advisory_per_pair",
            ),
            models.CheckConstraint(condition=Q(risk__gte=0) & Q(risk__lte=1), name="risk_in_unit"),
        ]
        indexes = [models.Index(fields=["repository", "state", "band"])]

    def __str__(self) -> str:
        return f"{self.get_band_display()}: {self.agent_a.agent_id} ↔ {self.agent_b.agent_id}"


class RiskSample(models.Model):
    """Risk of a pair at one scan; the history the closure rate is computed from."""

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="+")
    pair_key = models.CharField(max_length=245, db_index=True)
    scan = models.ForeignKey(ProximityScan, on_delete=models.CASCADE, related_name="samples")
    risk = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        ordering = ["pair_key", "at"]
        constraints = [models.UniqueConstraint(fields=["scan", "pair_key"], name="sample_once")]

    def __str__(self) -> str:
        return f"{self.pair_key} {self.risk:.3f} @ {self.at:%H:%M:%S}"


class TriggerMessage(models.Model):
    """A message to one agent (transmit / steer / hold), delivered by polling or webhook."""

    class Kind(models.TextChoices):
        TRANSMIT = "proximity_transmit"
        STEER = "proximity_steer"
        HOLD = "proximity_hold"

    advisory = models.ForeignKey(
        ProximityAdvisory, on_delete=models.CASCADE, related_name="messages"
    )
    to_agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="inbox")
    from_agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    band = models.CharField(max_length=10)
    risk = models.FloatField()
    content = models.TextField()
    created_at = models.DateTimeField(db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # Set together with delivered_at by one conditional UPDATE: the poll that wrote its token
    # owns the message, so two concurrent polls never both receive it.
    delivery_claim = models.CharField(max_length=32, blank=True, db_index=True)
    webhook_attempts = models.PositiveSmallIntegerField(default=0)
    webhook_delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["to_agent", "delivered_at"])]

    def __str__(self) -> str:
        return f"{self.kind} → {self.to_agent.agent_id}"


class TriggerCooldown(models.Model):
    """Persisted cooldown per (to, from, kind) so a restart does not re-send every message."""

    to_agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    from_agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=24)
    band = models.CharField(max_length=10)
    last_fired_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["to_agent", "from_agent", "kind"], name="cooldown_key")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.from_agent_id}→{self.to_agent_id}"


class EditAcknowledgement(models.Model):
    """An agent acknowledged its encounter with another: its edits near them are allowed.

    Written by ``radar ack`` (or the MCP tool) after a pre-edit denial; current until
    ``expires_at``, so an acknowledgement does not silence a later, unrelated encounter.
    """

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="acknowledgements")
    other = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    principal = models.ForeignKey(
        Principal, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    advisory = models.ForeignKey(
        ProximityAdvisory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["agent", "other", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.agent.agent_id} acknowledged {self.other.agent_id}"


class ShadowTrail(models.Model):
    """A verified, hash-chained receipt trail for one pair of agents (read-only once stored)."""

    trail_id = models.CharField(max_length=120, unique=True)
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="trails")
    # Text, not JSONField: PostgreSQL's jsonb reorders keys, and key order is part of the hash.
    document = models.TextField()
    receipt_count = models.PositiveSmallIntegerField()
    head_hash = models.CharField(max_length=64)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"trail {self.trail_id} ({self.receipt_count} receipts)"
