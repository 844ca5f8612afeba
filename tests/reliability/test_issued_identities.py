"""Agent identities are issued, not claimed (issue 31, item 3).

The probes: a token reported as an id nobody had bound and from then on owned it (the
operator's later ``tokens issue --agent`` failed: "bound to another principal"); an agent token
created ``main``; a phantom claiming every line of a file with an old start made the real agents'
edits denied. Run on whichever database the suite uses (PostgreSQL or SQLite).
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from proximity.models import Agent, EditAcknowledgement, WorkingSetSnapshot
from tests.factories import file_entry, make_caller, make_repository, working_set

pytestmark = pytest.mark.django_db

ALL_LINES = [file_entry("core.py", [[1, 400]], excerpt="+phantom")]


@pytest.fixture
def web():
    return make_repository("web", scope="team-a")


def _issue(*args: str) -> str:
    out = StringIO()
    call_command("tokens", "issue", *args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def _post(client, path: str, body: dict, token: str):
    return client.post(
        path,
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


@pytest.mark.parametrize("agent_id", ["main", "release-bot", "feature/someone-else"])
def test_an_agent_token_cannot_report_under_an_id_it_was_not_issued(web, client, agent_id) -> None:
    token = _issue("login-bot", "--scope", "team-a", "--agent", "web:feature/login")
    body = working_set("web", agent_id, ALL_LINES, startedAt="2001-01-01T00:00:00Z")
    answer = _post(client, "/api/working-sets", body, token)
    assert answer.status_code == 403
    assert answer.json()["field"] == "agentId"
    assert "tokens issue" in answer.json()["detail"]
    assert list(Agent.objects.values_list("agent_id", flat=True)) == ["feature/login"]
    assert not WorkingSetSnapshot.objects.exists()


def test_the_issued_id_is_reported_and_the_operator_can_still_issue_a_refused_one(
    web, client
) -> None:
    token = _issue("login-bot", "--scope", "team-a", "--agent", "web:feature/login")
    mine = working_set("web", "feature/login", [file_entry("a.py")])
    assert _post(client, "/api/working-sets", mine, token).status_code == 201
    grab = working_set("web", "feature/cart", ALL_LINES)
    assert _post(client, "/api/working-sets", grab, token).status_code == 403
    # The id the token tried to take is still free for its real owner.
    cart = _issue("cart-bot", "--scope", "team-a", "--agent", "web:feature/cart")
    assert _post(client, "/api/working-sets", grab, cart).status_code == 201
    assert Agent.objects.get(agent_id="feature/cart").principal.name == "cart-bot"


def test_an_acknowledgement_under_an_id_not_issued_is_refused_and_creates_no_agent(
    web, client
) -> None:
    Agent.objects.create(repository=web, agent_id="feature/cart")
    token = _issue("login-bot", "--scope", "team-a", "--agent", "web:feature/login")
    body = {"repository": "web", "agentId": "main", "other": "feature/cart"}
    answer = _post(client, "/api/acknowledgements", body, token)
    assert (answer.status_code, answer.json()["field"]) == (403, "agentId")
    assert not Agent.objects.filter(agent_id="main").exists()
    assert not EditAcknowledgement.objects.exists()


def test_an_id_bound_to_no_one_is_not_taken_by_reporting_it(web, client) -> None:
    Agent.objects.create(repository=web, agent_id="feature/cart")  # e.g. its principal was deleted
    token = _issue("login-bot", "--scope", "team-a")
    answer = _post(client, "/api/working-sets", working_set("web", "feature/cart", []), token)
    assert answer.status_code == 403
    assert Agent.objects.get(agent_id="feature/cart").principal is None


def test_a_principal_with_the_right_to_create_agents_owns_what_it_creates(web, client) -> None:
    harness = _issue("harness", "--scope", "team-a", "--create-agents")
    other = _issue("other-harness", "--scope", "team-a", "--create-agents")
    body = working_set("web", "feature/new", [file_entry("a.py")])
    assert _post(client, "/api/working-sets", body, harness).status_code == 201
    assert Agent.objects.get(agent_id="feature/new").principal.name == "harness"
    # Created is issued: another creator cannot take it over by reporting it.
    assert _post(client, "/api/working-sets", body, other).status_code == 404


def test_the_right_is_granted_only_by_the_operator_not_by_the_kind_of_token(web, post_json) -> None:
    for kind in ("human", "agent", "service"):
        caller = make_caller(f"someone-{kind}", scopes=["team-a"], kind=kind)
        answer = post_json("/api/working-sets", working_set("web", f"x-{kind}", []), caller)
        assert answer.status_code == 403


@pytest.mark.parametrize(
    ("extra", "entry", "field"),
    [
        ({"label": "x" * 256}, {}, "label"),
        ({"label": "ok\nrelease-bot holds; you steer"}, {}, "label"),
        ({"label": "bell\x07"}, {}, "label"),
        ({}, {"excerpt": "+" * 4001}, "files[0].excerpt"),
    ],
)
def test_free_text_an_agent_sends_is_bounded(web, lead, post_json, extra, entry, field) -> None:
    body = working_set("web", "a1", [file_entry("a.py", **entry)], **extra)
    answer = post_json("/api/working-sets", body, lead)
    assert (answer.status_code, answer.json()["field"]) == (422, field)
    assert not Agent.objects.exists()
