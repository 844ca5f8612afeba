"""``manage.py tokens issue --agent``: one token per agent, bound so no other token reads it."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from proximity.models import Agent, ApiToken, Principal
from tests.factories import file_entry, make_caller, make_inbox, make_repository, working_set

pytestmark = pytest.mark.django_db


def _issue(*args: str) -> str:
    out, err = StringIO(), StringIO()
    call_command("tokens", "issue", *args, stdout=out, stderr=err)
    return out.getvalue().strip()


def _stored() -> list[Any]:
    return [
        *Principal.objects.order_by("pk").values_list("pk", "name"),
        *ApiToken.objects.order_by("pk").values_list("pk", "principal_id"),
        *Agent.objects.order_by("pk").values_list("pk", "agent_id", "principal_id"),
    ]


@pytest.fixture
def web() -> Any:
    return make_repository("web", scope="team-a")


def test_issue_with_an_agent_creates_the_agent_bound_to_the_new_principal(web) -> None:
    raw = _issue("alpha-bot", "--scope", "team-a", "--agent", "web:feature/login")
    agent = Agent.objects.get(agent_id="feature/login")
    assert agent.principal == Principal.objects.get(name="alpha-bot")
    assert raw.startswith("orad_")


def test_the_agent_id_is_everything_after_the_first_colon(web) -> None:
    _issue("alpha-bot", "--scope", "team-a", "--agent", "web:task:42/fix")
    assert Agent.objects.get().agent_id == "task:42/fix"


def test_issue_binds_an_agent_the_watcher_created_unbound(web) -> None:
    Agent.objects.create(repository=web, agent_id="alpha")
    _issue("alpha-bot", "--scope", "team-a", "--agent", "web:alpha")
    assert Agent.objects.get().principal.name == "alpha-bot"


def test_a_second_token_for_the_same_principal_and_agent_is_fine(web) -> None:
    first = _issue("alpha-bot", "--scope", "team-a", "--agent", "web:alpha")
    second = _issue("alpha-bot", "--agent", "web:alpha")
    assert first != second
    assert Agent.objects.get().principal.name == "alpha-bot"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--agent", "web"], "expected REPOSITORY:AGENT_ID"),
        (["--agent", ":alpha"], "expected REPOSITORY:AGENT_ID"),
        (["--agent", "web:"], "expected REPOSITORY:AGENT_ID"),
        (["--agent", "web:has space"], "expected REPOSITORY:AGENT_ID"),
        (["--agent", "nope:alpha"], "repository not found"),
        (["--agent", "web:alpha", "--agent", "web:taken"], "bound to another principal"),
    ],
)
def test_a_refused_agent_leaves_no_principal_binding_or_token(web, args, words) -> None:
    other = make_caller("beta-bot", scopes=["team-a"], kind="agent")
    Agent.objects.create(repository=web, agent_id="taken", principal=other.principal)
    before = _stored()
    with pytest.raises(CommandError, match=words) as caught:
        _issue("alpha-bot", "--scope", "team-a", *args)
    assert "\n" not in str(caught.value)
    assert _stored() == before


def test_a_principal_without_the_repositorys_scope_is_refused(web) -> None:
    with pytest.raises(CommandError, match="cannot see repository web"):
        _issue("alpha-bot", "--scope", "team-b", "--agent", "web:alpha")
    assert not Principal.objects.exists()


def test_only_the_bound_token_reports_under_and_reads_that_agent(web, client, post_json) -> None:
    raw = _issue("alpha-bot", "--scope", "team-a", "--agent", "web:feature/login")
    person = make_caller("lead-person", scopes=["team-a"])
    body = working_set("web", "feature/login", [file_entry("x.py", [[1, 3]])])
    assert post_json("/api/working-sets", body, person).status_code == 404
    owner = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    reported = client.post("/api/working-sets", body, content_type="application/json", **owner)
    assert reported.status_code == 201
    other = Agent.objects.create(repository=web, agent_id="beta")
    make_inbox(Agent.objects.get(agent_id="feature/login"), other, 1)
    inbox = "/api/repositories/web/agents/feature%2Flogin/messages"
    assert client.get(inbox, **person.headers).status_code == 404
    assert [m["content"] for m in client.get(inbox, **owner).json()] == ["message 0"]


def test_issue_out_writes_the_token_to_a_new_file_readable_by_its_owner_only(tmp_path) -> None:
    target = tmp_path / "login.token"
    printed = _issue("alpha-bot", "--scope", "team-a", "--out", str(target))
    assert printed == ""
    assert target.stat().st_mode & 0o777 == 0o600
    raw = target.read_text().strip()
    assert ApiToken.objects.get().prefix == raw[:12]


def test_issue_out_refuses_an_existing_file_and_issues_nothing(tmp_path) -> None:
    target = tmp_path / "login.token"
    target.write_text("someone else's\n")
    with pytest.raises(CommandError, match=r"^--out: .* exists; nothing was issued$"):
        _issue("alpha-bot", "--scope", "team-a", "--out", str(target))
    assert _stored() == []
    assert target.read_text() == "someone else's\n"
