"""Two polls of one inbox on real PostgreSQL: no message reaches both, none is lost.

The old read-then-mark let a second poll, started before the first committed, read the same
pending rows and return them too. The claim's conditional UPDATE makes the second poll wait on
the row locks and re-check ``delivered_at IS NULL`` against the committed rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from proximity.models import Agent, TriggerMessage
from proximity.services.messages import messages_claim_pending
from tests.factories import make_inbox, make_repository
from tests.reliability.locks import a_session_waits_on_a_lock, in_thread

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def inbox() -> Agent:
    repo = make_repository("web", scope="team-a")
    to = Agent.objects.create(repository=repo, agent_id="feature/login")
    make_inbox(to, Agent.objects.create(repository=repo, agent_id="feature/cart"), 60)
    return to


def _poll_into(out: list[Any], agent: Agent) -> Callable[[], None]:
    return lambda: out.extend(messages_claim_pending(agent=agent, now=timezone.now()))


def test_a_poll_that_waited_on_the_first_ones_claim_receives_none_of_its_messages(inbox) -> None:
    claimed, release = threading.Event(), threading.Event()
    first: list[Any] = []
    second: list[Any] = []

    def slow_poll() -> None:
        # The first poll claims inside a transaction it keeps open until told to commit.
        with transaction.atomic():
            first.extend(messages_claim_pending(agent=inbox, now=timezone.now()))
            claimed.set()
            release.wait(10)

    slow = in_thread(slow_poll)
    assert claimed.wait(10)
    fast = in_thread(_poll_into(second, inbox))
    assert a_session_waits_on_a_lock(), "the second poll never waited on the row locks"
    release.set()
    slow.join(10)
    fast.join(10)
    assert len(first) == 60
    assert second == []


def test_two_pollers_together_receive_every_message_exactly_once(inbox) -> None:
    start = threading.Barrier(2)
    received: dict[str, list[int]] = {"a": [], "b": []}

    def poller(name: str) -> Callable[[], None]:
        def poll() -> None:
            start.wait(10)
            while batch := messages_claim_pending(agent=inbox, now=timezone.now(), limit=3):
                received[name].extend(m.pk for m in batch)

        return poll

    threads = [in_thread(poller(name)) for name in received]
    for thread in threads:
        thread.join(30)
    a, b = set(received["a"]), set(received["b"])
    assert len(received["a"]) == len(a)
    assert len(received["b"]) == len(b)
    assert not a & b, "a message reached both pollers"
    assert a | b == set(TriggerMessage.objects.values_list("pk", flat=True))
