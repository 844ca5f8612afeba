"""Who may see what: principals and their API tokens."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class WorkerHeartbeat(models.Model):
    """Last time each Celery worker host executed the periodic heartbeat task."""

    hostname = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()
    beats = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["-seen_at"]

    def __str__(self) -> str:
        return f"{self.hostname} @ {self.seen_at:%Y-%m-%d %H:%M:%S}"


class Principal(models.Model):
    """A person, agent or service that reads or writes through the API.

    Visibility rule (TASK-OVERLAP-REQUIREMENTS.md): a record is visible when its scope is in
    ``scopes`` and every one of its disclosure labels is in ``clearances``.
    """

    class Kind(models.TextChoices):
        HUMAN = "human"
        AGENT = "agent"
        SERVICE = "service"

    name = models.SlugField(max_length=120, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.HUMAN)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="principal",
    )
    scopes = models.JSONField(default=list, blank=True)
    clearances = models.JSONField(default=list, blank=True)
    # The lead role: in these scopes the principal may revise any task it can see, not only its
    # own. A lead scope grants no visibility; ``scopes`` and ``clearances`` still decide that.
    lead_scopes = models.JSONField(default=list, blank=True)
    # The explicit right to report under agent ids nobody was issued (services/agent_identity.py):
    # granted by the operator (`tokens issue --create-agents`), never by reporting first.
    creates_agents = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ApiToken(models.Model):
    """A bearer token, stored only as its SHA-256 digest; revoked tokens stay for the audit."""

    principal = models.ForeignKey(Principal, on_delete=models.CASCADE, related_name="tokens")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    label = models.CharField(max_length=120, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.principal})"
