"""A replayed denial on the board: the replay of a constructed history (tests/sources/
replay_scenario.py) stores its encounters, and loading one goes through the product's own
report, scan and advisory, so the pair shows as a Resolution Advisory with its right of way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from proximity.lab.replay_history import read_window
from proximity.lab.replay_report import replay_window
from proximity.models import Agent, ProximityAdvisory, Repository
from proximity.services.replay_encounter import read_replay_events, replay_encounter_load
from tests.factories import make_caller
from tests.lab.replay_scenario import build_scenario

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("replay")
    repo = build_scenario(root / "source")
    replay_window(read_window(repo, max_prs=10), policies=["obey"], out=root / "out", work=root,
                  resamples=20)  # fmt: skip
    return root / "out" / "events-obey.jsonl"


def test_the_first_denial_becomes_a_resolution_advisory_on_the_board(
    replayed: Path, in_process_tasks: None, client
) -> None:
    events = read_replay_events(replayed)
    denial = next(e for e in events if e["kind"] == "deny")
    assert [a["agentId"] for a in denial["encounter"]["agents"]] == ["pr-2", "pr-1"]
    repo, loaded = replay_encounter_load(events, repository="replay", scope="team-a",
                                         source="scenario")  # fmt: skip
    assert loaded["seq"] == denial["seq"]
    advisory = ProximityAdvisory.objects.get(repository=repo)
    assert advisory.band == ProximityAdvisory.Band.RESOLUTION
    assert {advisory.agent_a.agent_id, advisory.agent_b.agent_id} == {"pr-1", "pr-2"}
    assert advisory.hold is not None  # #1 started first: it holds, #2 (denied) steers
    assert advisory.hold.agent_id == "pr-1"
    assert advisory.steer is not None
    assert advisory.steer.agent_id == "pr-2"
    labels = set(Agent.objects.filter(repository=repo).values_list("label", flat=True))
    assert labels == {"pr-1 (replayed, scenario)", "pr-2 (replayed, scenario)"}
    lead = make_caller("lead", scopes=["team-a"])
    shown = client.get("/api/advisories?repository=replay", **lead.headers)
    assert shown.status_code == 200
    assert [a["band"] for a in shown.json()] == ["resolution"]


def test_the_command_loads_a_named_denial_and_refuses_what_it_cannot_read(
    replayed: Path, in_process_tasks: None, tmp_path: Path
) -> None:
    events = read_replay_events(replayed)
    named = [e for e in events if e["kind"] == "deny"][-1]
    call_command("load_replay_encounter", str(replayed), "--seq", str(named["seq"]),
                 "--scope", "team-a")  # fmt: skip
    agents = set(Agent.objects.values_list("agent_id", flat=True))
    assert agents == {named["agent"], *named["others"]}
    with pytest.raises(CommandError, match="seq: no denial 99999"):
        call_command("load_replay_encounter", str(replayed), "--seq", "99999")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps({"kind": "deny"}) + "\nnot json\n")
    with pytest.raises(CommandError, match="line 2 is not JSON"):
        call_command("load_replay_encounter", str(broken), "--repository", "other")
    assert not Repository.objects.filter(name="other").exists()
