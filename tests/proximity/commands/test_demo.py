"""The live demo replays a real multi-worktree session; every kind of advisory appears."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import override_settings

from proximity.models import OverlapAdvisory, ProximityAdvisory, Repository

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_replay_fills_the_board_with_each_kind_of_advisory(tmp_path, in_process_tasks):
    out = io.StringIO()
    with override_settings(VAR_DIR=tmp_path, DEBUG=True):  # the demo runs locally
        call_command("demo", "--no-server", "--step-seconds", "0", stdout=out)
    text = out.getvalue()
    assert "demo step 10/10: alpha commits its validation work" in text
    live = Repository.objects.get(name="demo-live")
    pairs = {
        (a.agent_a.agent_id, a.agent_b.agent_id): a
        for a in ProximityAdvisory.objects.filter(repository=live, state="open")
    }
    alpha_beta = pairs[("alpha", "beta")]
    assert alpha_beta.band == "resolution"
    assert alpha_beta.conflict is True  # the dry-run merge of the two worktrees conflicts
    shared = {f["path"]: f for f in alpha_beta.detail["sharedFiles"]}
    assert "+# beta: quantity limits 10" in shared["shop/orders/validators.py"]["b"]["excerpt"]
    assert "epsilon" not in {a for pair in pairs for a in pair}  # docs work stays clear
    queries = set(OverlapAdvisory.objects.values_list("version_a__record__task_id", flat=True))
    assert {"FX-1B", "FX-6B"} <= queries
    assert set(OverlapAdvisory.objects.values_list("status", flat=True)) == {
        "needs-independent-adjudication"
    }
