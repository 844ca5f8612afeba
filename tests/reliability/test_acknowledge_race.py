"""Two acknowledgements of one advisory at once on real PostgreSQL: both are kept.

The acknowledgement list is one JSON value rewritten whole; without a row lock the second
writer, which read the list before the first committed, would store only its own entry.
"""

from __future__ import annotations

import threading

import pytest
from django.db import transaction
from django.utils import timezone

from proximity.models import Agent, ProximityAdvisory
from proximity.services.advisories import advisory_acknowledge
from tests.factories import make_caller, make_repository
from tests.reliability.locks import a_session_waits_on_a_lock, in_thread

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def advisory() -> ProximityAdvisory:
    repo = make_repository("web", scope="team-a")
    a = Agent.objects.create(repository=repo, agent_id="alice")
    b = Agent.objects.create(repository=repo, agent_id="bob")
    now = timezone.now()
    return ProximityAdvisory.objects.create(
        repository=repo,
        agent_a=a,
        agent_b=b,
        band="resolution",
        risk=1.0,
        profile="radar-v1",
        scorer_version="test",
        first_seen=now,
        last_seen=now,
    )


def test_an_acknowledgement_that_waited_on_the_first_keeps_both(advisory) -> None:
    first, second = (make_caller(n, scopes=["team-a"], kind="agent") for n in ("alice", "bob"))
    acknowledged, release = threading.Event(), threading.Event()

    def slow() -> None:
        # The first acknowledgement keeps its transaction (and the row lock) open.
        with transaction.atomic():
            advisory_acknowledge(advisory_id=advisory.pk, principal=first.principal, note="a")
            acknowledged.set()
            release.wait(10)

    slow_thread = in_thread(slow)
    assert acknowledged.wait(10)
    fast_thread = in_thread(
        lambda: advisory_acknowledge(advisory_id=advisory.pk, principal=second.principal, note="b")
    )
    assert a_session_waits_on_a_lock(), "the second acknowledgement did not wait for the first"
    release.set()
    slow_thread.join(10)
    fast_thread.join(10)
    advisory.refresh_from_db()
    assert [e["by"] for e in advisory.acknowledged_by] == ["alice", "bob"]
    assert advisory.state == ProximityAdvisory.State.ACKNOWLEDGED
