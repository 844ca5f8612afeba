"""The demo seed fills the board through the real services; load_demo is safe to run again."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from proximity.models import Principal, ProximityAdvisory
from proximity.selectors.board import board_scene
from proximity.services.demo import DEMO_REPOSITORY

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _local_demo(request, settings):
    # load_demo runs only where DEBUG is on (the local demo), as `make demo` has it.
    settings.DEBUG = "refused" not in request.node.name


def test_load_demo_is_refused_with_debug_off_and_creates_no_login():
    from django.contrib.auth import get_user_model
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("load_demo")
    assert not get_user_model().objects.exists()
    assert not Principal.objects.exists()


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


def test_load_demo_puts_a_replayed_encounter_of_real_history_on_the_board():
    call_command("load_demo")
    call_command("load_demo")
    [advisory] = ProximityAdvisory.objects.filter(repository__name="replay-tornado")
    assert advisory.band == "resolution"
    assert {advisory.agent_a.agent_id, advisory.agent_b.agent_id} == {"pr-1909", "pr-1917"}
    assert advisory.channels.get("overlap", 0) > 0  # two insertions at one point: overlap
    scene = board_scene(Principal.objects.get(name="demo-lead"), "replay-tornado")
    assert {x.band for x in scene.links} == {"resolution"}
    assert any("replayed, tornadoweb/tornado 2017-02-26" in a.label for a in scene.agents)
