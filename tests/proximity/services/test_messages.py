"""Trigger messages: transmit on Traffic, steer/hold on Resolution, cooldown that survives restarts,
and an escalation that is never suppressed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from proximity.models import ProximityAdvisory, TriggerCooldown, TriggerMessage
from proximity.services.messages import messages_for_advisory
from tests.factories import make_repository

pytestmark = pytest.mark.django_db


@pytest.fixture
def advisory():
    from proximity.models import Agent

    repo = make_repository("web", scope="team-a")
    a1 = Agent.objects.create(repository=repo, agent_id="a1")
    a2 = Agent.objects.create(repository=repo, agent_id="a2")
    now = timezone.now()
    return ProximityAdvisory.objects.create(
        repository=repo,
        agent_a=a1,
        agent_b=a2,
        band="traffic",
        risk=0.4,
        profile="radar-v1",
        scorer_version="t",
        first_seen=now,
        last_seen=now,
    )


def _kinds(messages):
    return sorted((m.kind, m.to_agent.agent_id) for m in messages)


@override_settings(OVERLAP_TRIGGER_COOLDOWN_SECONDS=300)
def test_traffic_transmits_to_both_and_repeats_are_suppressed_within_cooldown(advisory) -> None:
    now = timezone.now()
    first = messages_for_advisory(advisory=advisory, now=now)
    assert _kinds(first) == [("proximity_transmit", "a1"), ("proximity_transmit", "a2")]
    assert messages_for_advisory(advisory=advisory, now=now + timedelta(seconds=60)) == []
    later = messages_for_advisory(advisory=advisory, now=now + timedelta(seconds=301))
    assert len(later) == 2


@override_settings(OVERLAP_TRIGGER_COOLDOWN_SECONDS=300)
def test_escalation_to_resolution_fires_at_once_with_steer_and_hold(advisory) -> None:
    now = timezone.now()
    messages_for_advisory(advisory=advisory, now=now)
    advisory.band, advisory.risk = "resolution", 0.8
    advisory.steer, advisory.hold = advisory.agent_b, advisory.agent_a
    advisory.save()
    fired = messages_for_advisory(advisory=advisory, now=now + timedelta(seconds=10))
    assert _kinds(fired) == [("proximity_hold", "a1"), ("proximity_steer", "a2")]
    assert messages_for_advisory(advisory=advisory, now=now + timedelta(seconds=20)) == []


@override_settings(OVERLAP_TRIGGER_COOLDOWN_SECONDS=300)
def test_cooldown_is_persisted_so_a_restart_does_not_resend(advisory) -> None:
    now = timezone.now()
    messages_for_advisory(advisory=advisory, now=now)
    assert TriggerCooldown.objects.count() == 2
    fresh = ProximityAdvisory.objects.get(pk=advisory.pk)  # as a new process would load it
    assert messages_for_advisory(advisory=fresh, now=now + timedelta(seconds=5)) == []
    assert TriggerMessage.objects.count() == 2


def test_a_claim_takes_the_oldest_pending_messages_up_to_the_limit(advisory) -> None:
    from proximity.services.messages import messages_claim_pending
    from tests.factories import make_inbox

    make_inbox(advisory.agent_a, advisory.agent_b, 5)
    now = timezone.now()
    first = messages_claim_pending(agent=advisory.agent_a, now=now, limit=2)
    rest = messages_claim_pending(agent=advisory.agent_a, now=now, limit=10)
    assert [m.content for m in first] == ["message 0", "message 1"]
    assert [m.content for m in rest] == ["message 2", "message 3", "message 4"]
    assert messages_claim_pending(agent=advisory.agent_a, now=now) == []
    assert {m.delivery_claim for m in first}.isdisjoint({m.delivery_claim for m in rest})
    assert not TriggerMessage.objects.filter(delivered_at__isnull=True).exists()


def test_a_claim_never_takes_another_agents_messages(advisory) -> None:
    from proximity.services.messages import messages_claim_pending
    from tests.factories import make_inbox

    make_inbox(advisory.agent_b, advisory.agent_a, 2)
    assert messages_claim_pending(agent=advisory.agent_a, now=timezone.now()) == []
    assert TriggerMessage.objects.filter(delivered_at__isnull=True).count() == 2
