"""Trigger messages are pushed to a webhook, retried on failure, and never sent twice."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from proximity.models import TriggerMessage
from proximity.services.webhooks import WebhookDeliveryError, message_webhook_deliver
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository

pytestmark = pytest.mark.django_db(transaction=True)


class Receiver:
    def __init__(self) -> None:
        self.bodies: list[dict] = []
        self.fail_next = 0


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if state.fail_next:
                state.fail_next -= 1
                self.send_response(503)
            else:
                state.bodies.append(body)
                self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_port}/hook"
    server.shutdown()


def _raise_resolution(repo_name: str, owner) -> None:
    for agent, lines in (("a1", [[1, 30]]), ("a2", [[3, 4]])):
        report = WorkingSetReport(repo_name, agent, [file_entry("core.py", lines)], [])
        working_set_report(principal=owner, report=report, now=timezone.now())


def test_messages_are_pushed_once_each_to_the_webhook(receiver, lead, in_process_tasks) -> None:
    state, url = receiver
    make_repository("web", scope="team-a", webhook_url=url)
    _raise_resolution("web", lead.principal)
    assert sorted(b["type"] for b in state.bodies) == ["proximity_hold", "proximity_steer"]
    assert all(m.webhook_delivered_at for m in TriggerMessage.objects.all())
    for message in TriggerMessage.objects.all():
        assert message_webhook_deliver(message_id=message.pk) is False  # redelivery: no resend
    assert len(state.bodies) == 2


def test_a_failing_receiver_raises_for_retry_and_counts_attempts(
    receiver, lead, in_process_tasks
) -> None:
    state, url = receiver
    repo = make_repository("web", scope="team-a")
    _raise_resolution("web", lead.principal)  # no webhook configured yet: nothing pushed
    repo.webhook_url = url
    repo.save(update_fields=["webhook_url"])
    message = TriggerMessage.objects.order_by("pk").first()
    assert message is not None
    state.fail_next = 1
    with pytest.raises(WebhookDeliveryError):
        message_webhook_deliver(message_id=message.pk)
    assert message_webhook_deliver(message_id=message.pk) is True
    message.refresh_from_db()
    assert message.webhook_attempts == 2
    assert message.webhook_delivered_at is not None
    assert [b["id"] for b in state.bodies] == [message.pk]
