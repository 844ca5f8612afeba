"""Optional push delivery of trigger messages to a repository's webhook."""

from __future__ import annotations

import requests
from django.db.models import F
from django.utils import timezone

from proximity.models import TriggerMessage

__all__ = ["WebhookDeliveryError", "message_webhook_deliver"]


class WebhookDeliveryError(Exception):
    """The receiver did not accept the message; the Celery task retries with backoff."""


def _payload(message: TriggerMessage) -> dict[str, object]:
    return {
        "id": message.pk,
        "repository": message.advisory.repository.name,
        "to": message.to_agent.agent_id,
        "from": message.from_agent.agent_id,
        "type": message.kind,
        "band": message.band,
        "risk": message.risk,
        "content": message.content,
        "createdAt": message.created_at.isoformat(),
    }


def message_webhook_deliver(*, message_id: int, timeout: float = 5.0) -> bool:
    """POST one message; idempotent (a delivered message is not sent again)."""
    message = (
        TriggerMessage.objects.select_related("advisory__repository", "to_agent", "from_agent")
        .filter(pk=message_id)
        .first()
    )
    if message is None or message.webhook_delivered_at is not None:
        return False
    url = message.advisory.repository.webhook_url
    if not url:
        return False
    TriggerMessage.objects.filter(pk=message_id).update(webhook_attempts=F("webhook_attempts") + 1)
    response = requests.post(url, json=_payload(message), timeout=timeout)
    if not 200 <= response.status_code < 300:
        raise WebhookDeliveryError(f"webhook answered {response.status_code}")
    TriggerMessage.objects.filter(pk=message_id, webhook_delivered_at__isnull=True).update(
        webhook_delivered_at=timezone.now()
    )
    return True
