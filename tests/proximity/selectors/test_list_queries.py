"""A page of advisories (API list, kanban tick) costs the same queries however many there are."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from proximity.models import Agent, ProximityAdvisory, Repository
from proximity.selectors.board import board_cards, board_task_cards
from tests.factories import Caller, make_caller, make_repository

pytestmark = pytest.mark.django_db


def _advisories(repo: Repository, count: int) -> None:
    now = timezone.now()
    start = Agent.objects.filter(repository=repo).count()
    made = range(start, start + count + 1)
    agents = [Agent.objects.create(repository=repo, agent_id=f"a{n:03d}") for n in made]
    ProximityAdvisory.objects.bulk_create(
        ProximityAdvisory(
            repository=repo,
            agent_a=agents[n],
            agent_b=agents[n + 1],
            steer=agents[n],
            hold=agents[n + 1],
            band=("traffic", "resolution")[n % 2],
            state=("open", "open", "acknowledged", "resolved")[n % 4],
            risk=0.5,
            profile="radar-v1",
            scorer_version="t",
            first_seen=now,
            last_seen=now - timedelta(seconds=n),
        )
        for n in range(count)
    )


@pytest.fixture
def caller() -> Caller:
    make_repository("vault", scope="team-a", disclosure=["internal"])  # in scope, not cleared
    return make_caller("reader", scopes=["team-a"])


def _grow(size: int) -> None:
    web = Repository.objects.filter(name="web").first() or make_repository("web", scope="team-a")
    _advisories(web, size - ProximityAdvisory.objects.filter(repository=web).count())


def _api_page(client, caller: Caller) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/advisories?limit=5&state=open", **caller.headers)
    assert response.status_code == 200
    return len(queries), len(response.json())


def test_an_api_page_of_advisories_costs_the_same_at_any_size(client, caller) -> None:
    _grow(10)
    _api_page(client, caller)  # the first use of a token also records it: not counted below
    small = _api_page(client, caller)
    _grow(60)
    large = _api_page(client, caller)
    assert small == large == (small[0], 5)
    assert small[0] == 3  # the token, the visible repositories' label sets, the page


def _tick(caller: Caller) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        columns = board_cards(caller.principal, repository="web", limit=3)
        board_task_cards(caller.principal, limit=3)
    assert all(len(cards) == 3 for _, cards in columns.values())
    return len(queries), sum(total for total, _ in columns.values())


def test_a_kanban_tick_pages_and_counts_in_sql(caller) -> None:
    _grow(16)
    small, shown_small = _tick(caller)
    _grow(80)
    large, shown_large = _tick(caller)
    assert (shown_small, shown_large) == (16, 80)
    assert small == large
