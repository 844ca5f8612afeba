"""The demo seed fills the board through the real services; load_demo is safe to run again."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from proximity.models import Principal, ProximityAdvisory
from proximity.selectors.board import board_scene
from proximity.services.demo import DEMO_REPOSITORY

pytestmark = pytest.mark.django_db


def test_load_demo_gives_every_band_and_is_idempotent():
    call_command("load_demo")
    call_command("load_demo")
    advisories = ProximityAdvisory.objects.filter(repository__name=DEMO_REPOSITORY)
    bands = {(a.band, a.conflict) for a in advisories}
    assert ("resolution", True) in bands
    assert ("resolution", False) in bands
    assert ("traffic", False) in bands
    assert advisories.filter(state="open").count() == advisories.count()
    scene = board_scene(Principal.objects.get(name="demo-lead"), DEMO_REPOSITORY)
    assert {x.band for x in scene.links} >= {"clear", "traffic", "resolution", "conflict"}
    assert scene.coverage.status == "ok"


def test_demo_cards_carry_the_other_agents_diff_excerpt():
    call_command("load_demo")
    pair = ProximityAdvisory.objects.get(
        agent_a__agent_id="checkout-rework", agent_b__agent_id="refund-fix"
    )
    [shared] = pair.detail["sharedFiles"]
    assert "max(total - paid, 0)" in shared["b"]["excerpt"]


def test_setup_roles_reports_exactly_three_permissions(capsys):
    call_command("setup_roles")
    out = capsys.readouterr().out
    assert (
        out.strip()
        == "group adjudicators: add_adjudication, view_overlapadvisory, view_taskversion"
    )
