"""POST /api/check and /api/acknowledgements: the pre-edit question for agents elsewhere."""

from __future__ import annotations

import json

import pytest

from proximity.engine.trail import verify_shadow_trail
from proximity.models import EditAcknowledgement, ProximityAdvisory, ShadowTrail
from tests.factories import bind_agents, file_entry, make_caller, make_repository, working_set

pytestmark = pytest.mark.django_db

BASE = "a" * 40


@pytest.fixture
def repo():
    return make_repository("web", scope="team-a")


@pytest.fixture
def alice(repo):
    caller = make_caller("alice", scopes=["team-a"], kind="agent")
    return bind_agents(caller, "web", "feature/alice", "alice")


@pytest.fixture
def bob(repo):
    return bind_agents(make_caller("bob", scopes=["team-a"], kind="agent"), "web", "bob")


@pytest.fixture
def alice_on_line_22(repo, alice, post_json):
    entry = file_entry("core.py", [[22, 22]], excerpt="-line 22\n+line 22 alice")
    body = working_set(
        "web", "feature/alice", [entry], label="Fix rounding", intent=[{"path": "core.py"}]
    )
    assert post_json("/api/working-sets", body, alice).status_code == 201


def _check(post_json, caller, lines, agent="bob", path="core.py"):
    files = [{"path": path, "lines": lines, "baseHunks": [[s, e - s + 1] for s, e in lines]}]
    return post_json("/api/check", {"repository": "web", "agentId": agent, "files": files}, caller)


def test_same_line_edit_is_a_resolution_naming_the_other_agent_and_its_lines(
    alice_on_line_22, bob, post_json
) -> None:
    answer = _check(post_json, bob, [[22, 22]])
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["coverage"] == "ok"
    assert body["source"] == "server"
    [finding] = body["findings"]
    assert finding["other"] == "feature/alice"
    assert finding["level"] == "resolution"
    assert finding["theirLines"] == {"core.py": [[22, 22]]}
    assert "line 22 alice" in finding["theirExcerpt"]["core.py"]
    assert finding["theirLabel"] == "Fix rounding"
    assert finding["theirIntent"] == ["core.py"]
    assert finding["acknowledged"] is False


def test_disjoint_edit_of_the_same_file_is_only_traffic_from_the_declared_intent(
    alice_on_line_22, bob, post_json
) -> None:
    before = ProximityAdvisory.objects.count()
    answer = _check(post_json, bob, [[50, 52]])
    assert answer.status_code == 200
    [finding] = answer.json()["findings"]
    assert finding["level"] == "advisory"
    assert "intent" in finding["channels"]
    assert "overlap" not in finding["channels"]
    assert ProximityAdvisory.objects.count() == before  # a check writes nothing


def test_disjoint_edit_without_declared_intent_finds_nothing(repo, alice, bob, post_json) -> None:
    body = working_set("web", "alice", [file_entry("core.py", [[22, 22]])])
    post_json("/api/working-sets", body, alice)
    assert _check(post_json, bob, [[50, 52]]).json()["findings"] == []


def test_a_check_with_nobody_else_reported_is_unknown_not_clear(repo, bob, post_json) -> None:
    body = _check(post_json, bob, [[22, 22]]).json()
    assert body["coverage"] == "unknown"
    assert body["reason"]
    assert body["findings"] == []


def test_acknowledgement_allows_the_same_edit_and_lands_in_the_pairs_trail(
    alice_on_line_22, bob, post_json
) -> None:
    ack = {
        "repository": "web",
        "agentId": "bob",
        "other": "feature/alice",
        "paths": ["core.py"],
        "baseRevision": BASE,
        "note": "talked to alice",
    }
    response = post_json("/api/acknowledgements", ack, bob)
    assert response.status_code == 201, response.content
    assert EditAcknowledgement.objects.get().note == "talked to alice"
    [finding] = _check(post_json, bob, [[22, 22]]).json()["findings"]
    assert finding["acknowledged"] is True
    trail = ShadowTrail.objects.get()
    document = json.loads(trail.document)
    verify_shadow_trail(document)  # raises on any fault
    assert [r["kind"] for r in document["receipts"]] == [
        "observation",
        "advisory",
        "acknowledgement",
    ]
    assert document["receipts"][-1]["payload"]["agentId"] == "bob"


def test_second_acknowledgement_by_the_other_side_extends_the_same_trail(
    alice_on_line_22, alice, bob, post_json
) -> None:
    post_json(
        "/api/working-sets", working_set("web", "bob", [file_entry("core.py", [[22, 22]])]), bob
    )
    for caller, me, other in ((bob, "bob", "feature/alice"), (alice, "feature/alice", "bob")):
        body = {
            "repository": "web",
            "agentId": me,
            "other": other,
            "paths": ["core.py"],
            "baseRevision": BASE,
        }
        assert post_json("/api/acknowledgements", body, caller).status_code == 201
    document = json.loads(ShadowTrail.objects.get().document)
    kinds = [r["kind"] for r in document["receipts"]]
    assert kinds == ["observation", "advisory", "acknowledgement", "acknowledgement"]


def test_an_outsider_learns_nothing(alice_on_line_22, outsider, post_json) -> None:
    answer = _check(post_json, outsider, [[22, 22]])
    assert answer.status_code == 404
    assert answer.json()["detail"] == "repository not found"


def test_another_principal_cannot_check_as_a_bound_agent(alice_on_line_22, bob, post_json) -> None:
    answer = _check(post_json, bob, [[22, 22]], agent="feature/alice")
    assert answer.status_code == 404
    assert answer.json()["detail"] == "agent not found"


@pytest.mark.parametrize(
    ("files", "field"),
    [
        ([], "files"),
        ([{"path": "../x.py"}], "files[0].path"),
        ([{"path": "a.py", "lines": [[9, 3]]}], "files[0].lines[0]"),
        ([{"path": "a.py", "size": 3}], "files[0].size"),
    ],
)
def test_bad_check_input_is_422_naming_the_field(repo, bob, post_json, files, field) -> None:
    body = {"repository": "web", "agentId": "bob", "files": files}
    answer = post_json("/api/check", body, bob)
    assert answer.status_code == 422, answer.content
    assert answer.json()["field"] == field


def test_acknowledging_an_unknown_agent_is_404_and_stores_nothing(repo, bob, post_json) -> None:
    body = {"repository": "web", "agentId": "bob", "other": "nobody"}
    assert post_json("/api/acknowledgements", body, bob).status_code == 404
    assert EditAcknowledgement.objects.count() == 0


def test_agents_route_lists_current_working_sets(alice_on_line_22, bob, client) -> None:
    answer = client.get("/api/repositories/web/agents", **bob.headers)
    assert answer.status_code == 200
    [row] = answer.json()
    assert row["agentId"] == "feature/alice"
    assert row["files"][0]["path"] == "core.py"


def test_the_stored_symbol_evidence_and_merge_check_reach_the_answer_and_the_hook_reason(
    repo, alice_on_line_22, bob, post_json
) -> None:
    """Issue 14: the server's check carries the pair's stored semantic evidence, and the hook's
    deny reason says it; a pair whose check is still running reads "checking", never clean."""
    from django.utils import timezone

    from proximity.agent.config import Policy
    from proximity.agent.decide import decide
    from proximity.engine.findings import CheckResult
    from proximity.services.scans import scan_run

    entry = file_entry("core.py", [[22, 22]], excerpt="-line 22\n+line 22 bob")
    assert (
        post_json("/api/working-sets", working_set("web", "bob", [entry]), bob).status_code == 201
    )
    scan_run(repository_id=repo.pk, now=timezone.now())
    advisory = ProximityAdvisory.objects.get(agent_a__agent_id__in=["bob", "feature/alice"])
    problem = {"kind": "undefined-name", "path": "core.py", "name": "round_half",
               "message": "name 'round_half' is not defined in the merge"}  # fmt: skip
    detail = {**advisory.detail, "symbols": [{"text": "feature/alice removes round_half"}]}
    detail["mergeCheck"] = {"state": "checked", "checkedAt": "2026-12-01T15:00:00+00:00",
                            "outcome": "problems", "problems": [problem]}  # fmt: skip
    ProximityAdvisory.objects.filter(pk=advisory.pk).update(detail=detail)
    body = _check(post_json, bob, [[22, 22]]).json()
    [finding] = body["findings"]
    assert finding["symbols"] == ["feature/alice removes round_half"]
    assert finding["mergeCheck"]["problems"] == [problem]
    decision = decide(CheckResult.from_json(body), Policy())
    assert decision.kind == "deny"
    assert 'Symbols: "feature/alice removes round_half".' in decision.text
    assert "Merge check: merging the two changes breaks what neither breaks alone:" in decision.text
    assert '"core.py": "name \'round_half\' is not defined in the merge"' in decision.text
    detail["mergeCheck"] = {"state": "checking"}
    ProximityAdvisory.objects.filter(pk=advisory.pk).update(detail=detail)
    body = _check(post_json, bob, [[22, 22]]).json()
    reason = decide(CheckResult.from_json(body), Policy()).text
    assert "Merge check: checking (not a sign the merge is clean)." in reason
