"""The readable pair pages behind the board's "Open pair": both sides side by side, evidence in
sentences, the probability in percent; the desk's access and blindness rules hold."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from proximity.selectors.board import board_cards
from proximity.services.demo import DEMO_REPOSITORY, demo_airspace_seed
from tests.proximity.admin.factories import make_adjudicator
from tests.proximity.dashboard.test_task_column import scored_pair

pytestmark = pytest.mark.django_db

LONG_FLOAT = re.compile(r"\d\.\d{6,}")


def _pair_url(pair) -> str:
    return reverse("admin:proximity_overlapadvisory_pair", args=[pair.pk])


def _as_lead(client, lead, django_user_model):
    user = django_user_model.objects.create_superuser("root", password="x")
    lead.principal.user = user
    lead.principal.save(update_fields=["user"])
    client.force_login(user)


def test_a_lead_reads_both_records_the_evidence_in_sentences_and_a_percentage(
    client, lead, django_user_model
):
    pair = scored_pair(lead.principal, "S-1", "S-2", 0.8763123456789012)
    _as_lead(client, lead, django_user_model)
    page = client.get(_pair_url(pair)).content.decode()
    assert "Duplicate probability 88%" in page
    assert not LONG_FLOAT.search(page)  # no raw stored float anywhere
    assert "S-1@1" in page
    assert "S-2@1" in page
    assert page.count("make refunds round half-even") == 2  # both objectives, side by side
    assert "The two records read alike (cosine 0.91): strongly raises the probability" in page
    assert "The deliverables are the same text: strongly raises the probability" in page
    assert "The tasks were declared 7 day(s) apart: lowers the probability" in page
    assert "nli.entailment: unknown" in page  # unknown is said, and counts for nothing


def test_a_reviewer_sees_the_records_but_no_score_so_labels_stay_blind(client, lead):
    pair = scored_pair(lead.principal, "S-1", "S-2", 0.8763)
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    response = client.get(_pair_url(pair))
    assert response.status_code == 200
    page = response.content.decode()
    assert "S-1@1" in page
    assert "make refunds round half-even" in page
    for secret in ("88%", "probability", "4242", "cosine", "secret_score_feature"):
        assert secret not in page
    assert "without any score or rank (blind review)" in page


def test_a_pair_with_one_record_out_of_sight_is_refused_like_a_missing_one(client, lead):
    pair = scored_pair(lead.principal, "B-1", "B-2", 0.9, scope="team-b")
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    assert client.get(_pair_url(pair)).status_code == 403
    missing = reverse("admin:proximity_overlapadvisory_pair", args=[pair.pk + 1000])
    assert client.get(missing).status_code == 403


def test_open_pair_on_an_agent_card_leads_to_both_agents_side_by_side(
    client, django_user_model, lead
):
    from proximity.models import Principal

    principal = Principal.objects.create(name="demo-lead", scopes=["demo"])
    demo_airspace_seed(principal=principal)
    user = django_user_model.objects.create_user("dl", password="x", is_staff=True)
    principal.user = user
    principal.save(update_fields=["user"])
    client.force_login(user)
    card = next(
        c
        for _, cards in board_cards(principal, repository=DEMO_REPOSITORY).values()
        for c in cards
        if c.band == "resolution"
    )
    response = client.get(card.open_url)
    assert response.status_code == 200
    page = response.content.decode()
    assert card.agent_a in page
    assert card.agent_b in page
    assert f"Risk {card.risk:.2f} of 1" in page
    assert not LONG_FLOAT.search(page)
    assert "(strength" in page  # the channels in sentences
    # another login without the repository's scope gets nothing
    client.force_login(make_adjudicator("olga", scopes=["elsewhere"]))
    assert client.get(card.open_url).status_code == 403
