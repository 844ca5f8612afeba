"""GET /api/repositories/{name}/agents/{agent_id}/messages: the agent's own principal reads it,
once; agent ids may hold '/'."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.models import Agent, TriggerMessage
from tests.factories import make_caller, make_inbox, make_repository

pytestmark = pytest.mark.django_db

INBOX = "/api/repositories/web/agents/{}/messages"


@pytest.fixture
def owner() -> Any:
    return make_caller("login-bot", scopes=["team-a"], kind="agent")


@pytest.fixture
def agents(owner) -> dict[str, Agent]:
    web = make_repository("web", scope="team-a")
    mine = Agent.objects.create(repository=web, agent_id="feature/login", principal=owner.principal)
    other = Agent.objects.create(repository=web, agent_id="feature/cart")
    make_inbox(mine, other, 3)
    return {"mine": mine, "other": other}


def _pending(agent: Agent) -> int:
    return TriggerMessage.objects.filter(to_agent=agent, delivered_at__isnull=True).count()


@pytest.mark.parametrize("agent_id", ["feature/login", "feature%2Flogin"])
def test_an_agent_id_with_a_slash_reads_its_inbox(agents, owner, client, agent_id) -> None:
    response = client.get(INBOX.format(agent_id), **owner.headers)
    assert response.status_code == 200
    assert [m["content"] for m in response.json()] == ["message 0", "message 1", "message 2"]


def test_messages_are_delivered_once_oldest_first(agents, owner, client) -> None:
    first = client.get(INBOX.format("feature/login"), **owner.headers).json()
    again = client.get(INBOX.format("feature/login"), **owner.headers).json()
    assert len(first) == 3
    assert again == []
    claims = set(TriggerMessage.objects.values_list("delivery_claim", flat=True))
    assert len(claims) == 1
    assert len(claims.pop()) == 32


@pytest.mark.parametrize("agent_id", ["feature/nobody", "deep/er/still", "nobody", "line%0Abreak"])
def test_an_unknown_agent_is_a_json_404(agents, owner, client, agent_id) -> None:
    response = client.get(INBOX.format(agent_id), **owner.headers)
    assert response.status_code == 404
    assert response.json() == {"detail": "agent not found", "field": None}


def test_a_person_holding_the_scope_no_longer_consumes_an_agents_messages(
    agents, partial, lead, client
) -> None:
    for person in (partial, lead):
        response = client.get(INBOX.format("feature/login"), **person.headers)
        assert response.status_code == 404
        assert response.json()["detail"] == "agent not found"
    assert _pending(agents["mine"]) == 3


def test_another_agent_principal_cannot_read_it(agents, client) -> None:
    intruder = make_caller("cart-bot", scopes=["team-a"], kind="agent")
    assert client.get(INBOX.format("feature/login"), **intruder.headers).status_code == 404
    assert _pending(agents["mine"]) == 3


def test_an_unbound_agents_inbox_is_readable_by_no_one(agents, owner, lead, client) -> None:
    make_inbox(agents["other"], agents["mine"], 2)
    for caller in (owner, lead):
        response = client.get(INBOX.format("feature/cart"), **caller.headers)
        assert response.status_code == 404
        assert response.json()["detail"] == "agent not found"
    assert _pending(agents["other"]) == 2


def test_an_owner_who_lost_the_scope_reads_nothing(agents, owner, client) -> None:
    owner.principal.scopes = ["team-b"]
    owner.principal.save()
    assert client.get(INBOX.format("feature/login"), **owner.headers).status_code == 404
    assert _pending(agents["mine"]) == 3


def test_reading_an_inbox_costs_the_same_queries_for_one_message_or_many(
    agents, owner, client, django_assert_num_queries
) -> None:
    client.get(INBOX.format("feature/login"), **owner.headers)  # token touched, inbox emptied
    make_inbox(agents["mine"], agents["other"], 1)
    with django_assert_num_queries(5):  # token, repository, agent, claim, read back
        assert len(client.get(INBOX.format("feature/login"), **owner.headers).json()) == 1
    make_inbox(agents["mine"], agents["other"], 20)
    with django_assert_num_queries(5):
        assert len(client.get(INBOX.format("feature/login"), **owner.headers).json()) == 20
