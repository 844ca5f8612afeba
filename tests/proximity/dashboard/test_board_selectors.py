"""Board selectors: coverage is never 'clear' by default, cards per column, bounded queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from proximity.models import ProximityScan, WorkingSetSnapshot
from proximity.selectors.board import board_cards, board_scene
from proximity.services.scans import scan_run
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(lead):
    repo = make_repository("web", scope="team-a")
    now = timezone.now()
    for agent, lines in (("a1", [[1, 40]]), ("a2", [[5, 9]]), ("a3", [[300, 310]])):
        report = WorkingSetReport("web", agent, [file_entry("src/core.py", lines)], [])
        working_set_report(principal=lead.principal, report=report, now=now)
    scan_run(repository_id=repo.pk, now=now)
    return repo


def test_a_failed_scan_after_the_shown_one_is_degraded(web, lead):
    ProximityScan.objects.create(
        repository=web,
        input_hash="x",
        profile="radar-v1",
        scorer_version="v",
        status="failed",
        error="bad input",
        requested_at=timezone.now(),
        finished_at=timezone.now() + timedelta(seconds=1),
    )
    coverage = board_scene(lead.principal, "web").coverage
    assert coverage.status == "degraded"
    assert "bad input" in coverage.message


def test_expired_reports_make_their_agents_unknown(web, lead):
    WorkingSetSnapshot.objects.filter(agent__agent_id="a3").update(expires_at=timezone.now())
    coverage = board_scene(lead.principal, "web").coverage
    assert coverage.status == "degraded"
    assert coverage.unknown_agents == ("a3",)


def test_cards_land_in_their_columns_and_queries_are_bounded(
    web, lead, django_assert_max_num_queries
):
    with django_assert_max_num_queries(14):
        columns = board_cards(lead.principal, repository="web")
    total, cards = columns["resolution"]
    assert total == 1
    assert (cards[0].agent_a, cards[0].agent_b) == ("a1", "a2")
    assert {cards[0].hold, cards[0].steer} == {"a1", "a2"}
    assert cards[0].files[0].lines_a == [[1, 40]]
    assert columns["acknowledged"] == (0, [])


def test_scene_reads_files_of_the_clicked_agent_only(web, lead):
    assert board_scene(lead.principal, "web").agent_files == {}
    assert board_scene(lead.principal, "web", files_of="a1").agent_files == {"a1": ["src/core.py"]}


def test_outsider_gets_no_scene(web, outsider):
    assert board_scene(outsider.principal, "web") is None


def test_a_card_carries_the_stored_symbol_evidence_and_merge_check_state(web, lead):
    from proximity.models import ProximityAdvisory

    advisory = ProximityAdvisory.objects.get(agent_a__agent_id="a1", agent_b__agent_id="a2")
    detail = {**advisory.detail, "symbols": [{"text": "a1 renames f while a2 calls it"}, {}]}
    detail["mergeCheck"] = {"state": "checking"}
    ProximityAdvisory.objects.filter(pk=advisory.pk).update(detail=detail)
    (card,) = board_cards(lead.principal, repository="web")["resolution"][1]
    assert card.symbols == ["a1 renames f while a2 calls it"]  # items without text left out
    assert card.merge_check == {"state": "checking"}
    bare = {k: v for k, v in detail.items() if k not in ("symbols", "mergeCheck")}
    ProximityAdvisory.objects.filter(pk=advisory.pk).update(detail=bare)
    (card,) = board_cards(lead.principal, repository="web")["resolution"][1]
    assert (card.symbols, card.merge_check) == ([], {})  # rendered "not checked", never clear
