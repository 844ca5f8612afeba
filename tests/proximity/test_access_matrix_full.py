"""Every API endpoint x (full scope, partial scope, outsider, anonymous): nothing leaks.

The endpoint list is read from the live API; an endpoint without an entry in ``MATRIX`` fails
``test_every_endpoint_has_a_matrix_entry``, so nobody can add an unguarded one. Records are
seeded in two scopes with distinctive markers; a viewer's answers must not contain a marker of a
scope it does not hold (names, ids, texts), a hidden record must answer exactly like a missing
one, and counts must match what the viewer may see.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from proximity.models import (
    OverlapAdvisory,
    ProximityAdvisory,
    Repository,
    ShadowTrail,
    TaskVersion,
    TriggerMessage,
    WorkingSetSnapshot,
)
from tests.factories import file_entry, make_repository, working_set
from tests.proximity.dashboard.conftest import login, site  # noqa: F401 - fixtures

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# Markers that appear only in records of one scope.
SCOPE_A = ("orchard", "orch-agent", "T-ORCH", "ORCHSECRET", "trail-orch")
SCOPE_B = ("vault", "vault-agent", "T-VAULT", "VAULTSECRET", "trail-vault")


def _task(task_id: str, scope: str, secret: str, **extra: Any) -> dict[str, Any]:
    return {
        "taskId": task_id,
        "scope": scope,
        "objective": f"Make refunds round half-even in the payments module {secret}",
        "deliverable": f"patch to src/payments/refunds.py {secret}",
        "acceptance": ["test_refund_rounding passes", f"{secret} reviewed"],
        **extra,
    }


def _seed(lead: Any, post_json: Any) -> dict[str, Any]:
    make_repository("orchard", scope="team-a")
    make_repository("vault", scope="team-b", disclosure=["internal"])
    for repo, prefix in (("orchard", "orch-agent"), ("vault", "vault-agent")):
        for n, lines in ((1, [[1, 40]]), (2, [[5, 9]])):
            body = working_set(repo, f"{prefix}-{n}", [file_entry("src/core.py", lines)])
            assert post_json("/api/working-sets", body, lead).status_code == 201
    for repo, trail in (("orchard", "trail-orch"), ("vault", "trail-vault")):
        ShadowTrail.objects.create(
            trail_id=trail,
            repository_id=ProximityAdvisory.objects.filter(repository__name=repo)
            .values_list("repository_id", flat=True)
            .first(),
            document="{}",
            receipt_count=0,
            head_hash="0" * 64,
            updated_at=timezone.now(),
        )
    for task_id, scope, secret, extra in (
        ("T-ORCH-1", "team-a", "ORCHSECRET", {}),
        ("T-ORCH-2", "team-a", "ORCHSECRET", {}),
        ("T-VAULT-1", "team-b", "VAULTSECRET", {"disclosure": ["internal"]}),
        ("T-VAULT-2", "team-b", "VAULTSECRET", {"disclosure": ["internal"]}),
    ):
        response = post_json("/api/tasks", _task(task_id, scope, secret, **extra), lead)
        assert response.status_code == 201, response.content
    advisories = {a.repository.name: a.pk for a in ProximityAdvisory.objects.all()}
    assert set(advisories) == {"orchard", "vault"}
    vault_overlap = (
        OverlapAdvisory.objects.filter(version_a__scope="team-b")
        .values_list("pk", flat=True)
        .first()
    )
    return {"advisory": advisories, "overlap_vault": vault_overlap}


@pytest.fixture
def world(lead, partial, outsider, post_json, in_process_tasks, client) -> dict[str, Any]:
    from tests.factories import make_caller

    seeded = _seed(lead, post_json)
    # The lead role in team-a: may revise any task it sees there, not only its own.
    scope_lead = make_caller("scope-lead", scopes=["team-a"], lead_scopes=["team-a"])
    return {
        "ids": seeded,
        "lead": lead,
        "partial": partial,
        "outsider": outsider,
        "scope_lead": scope_lead,
        **_writers(),
    }


def _writers() -> dict[str, Any]:
    """An adjudicator (staff, in the Adjudicators group, to reach the desk) and a maintainer
    holding the admin's repository permissions, each with a token (issue 31, item 4)."""
    from proximity.services.tokens import token_issue
    from tests.factories import Caller, make_staff_caller
    from tests.proximity.admin.factories import make_adjudicator

    user = make_adjudicator("desk-reviewer", scopes=["team-a", "team-b"], clearances=["internal"])
    raw, _ = token_issue(principal=user.principal)
    maintainer = make_staff_caller(
        "maintainer", scopes=["team-a", "team-b"], clearances=["internal"]
    )
    return {"adjudicator": Caller(user.principal, raw), "maintainer": maintainer}


def _call(client: Any, method: str, path: str, caller: Any, body: Any = None) -> Any:
    headers = caller.headers if caller else {}
    if method in {"get", "delete"}:
        return getattr(client, method)(path, **headers)
    return client.post(path, json.dumps(body or {}), content_type="application/json", **headers)


def _leaks(response: Any, markers: tuple[str, ...]) -> list[str]:
    text = response.content.decode()
    return [m for m in markers if m.lower() in text.lower()]


def _hidden_like_missing(
    client: Any, method: str, hidden: str, missing: str, caller: Any, body=None
):
    a = _call(client, method, hidden, caller, body)
    b = _call(client, method, missing, caller, body)
    assert a.status_code == b.status_code == 404, (hidden, a.status_code, a.content)
    assert a.json() == b.json()


# ---- one checker per endpoint; each covers lead, partial, outsider and anonymous -------------

Check = Callable[[Any, dict[str, Any]], None]


def _health(client: Any, w: dict[str, Any]) -> None:
    # 503 when a check is critical (no worker in this run), the same for every caller.
    callers = (w["lead"], w["partial"], w["outsider"], w["adjudicator"], w["maintainer"], None)
    answers = [_call(client, "get", "/api/health", caller) for caller in callers]
    assert len({r.status_code for r in answers}) == 1
    assert answers[0].status_code in {200, 503}
    for response in answers:
        assert not _leaks(response, SCOPE_A + SCOPE_B)
    # Details (database name, Redis host, paths) only for staff: not for a token without one.
    for response in (answers[0], answers[1], answers[2], answers[-1]):
        checks = response.json()["checks"]
        assert all(c["detail"] == c["fix"] == "" for c in checks), checks
    assert any(c["detail"] for c in answers[4].json()["checks"])


def _probe(path: str) -> Check:
    def check(client: Any, w: dict[str, Any]) -> None:
        for caller in (w["lead"], w["partial"], w["outsider"], None):
            response = _call(client, "get", path, caller)
            assert response.status_code == 200, (path, response.content)
            assert response.json() == {"status": "ok"}

    return check


def _report(client: Any, w: dict[str, Any]) -> None:
    before = WorkingSetSnapshot.objects.count()
    body = working_set("vault", "spy", [{"path": "x.py"}])
    assert _call(client, "post", "/api/working-sets", None, body).status_code == 401
    for caller in (w["partial"], w["outsider"]):
        refused = _call(client, "post", "/api/working-sets", caller, body)
        missing = _call(client, "post", "/api/working-sets", caller, {**body, "repository": "nope"})
        assert refused.status_code == 404
        assert refused.json() == missing.json()
    assert WorkingSetSnapshot.objects.count() == before
    own = working_set("orchard", "partial-agent", [{"path": "y.py"}])
    assert _call(client, "post", "/api/working-sets", w["partial"], own).status_code == 201


def _repositories(client: Any, w: dict[str, Any]) -> None:
    names = {
        k: [r["name"] for r in _call(client, "get", "/api/repositories", w[k]).json()]
        for k in ("lead", "partial", "outsider")
    }
    assert names == {"lead": ["orchard", "vault"], "partial": ["orchard"], "outsider": []}
    assert _call(client, "get", "/api/repositories", None).status_code == 401


def _register_repository(client: Any, w: dict[str, Any]) -> None:
    # Only the maintainer holds proximity.add_repository: every other caller, the adjudicator
    # (staff, to reach the desk) included, is refused before its body is even read.
    before = list(Repository.objects.order_by("pk").values())
    probe = {"name": "spyglass", "path": "/srv", "mergeChecks": True, "mergeCheckTests": True}
    bodies = (probe, {"name": "spyglass", "scope": "team-b"}, {"name": "vault"}, {"name": "../x"})
    for body in bodies:
        for caller in (w["lead"], w["partial"], w["outsider"], w["adjudicator"]):
            assert _call(client, "post", "/api/repositories", caller, body).status_code == 403
        assert _call(client, "post", "/api/repositories", None, body).status_code == 401
    assert list(Repository.objects.order_by("pk").values()) == before
    body = {"name": "spyglass", "scope": "team-b"}
    assert _call(client, "post", "/api/repositories", w["maintainer"], body).status_code == 201
    Repository.objects.filter(name="spyglass").delete()  # leave the world as the others see it


def _remove_repository(client: Any, w: dict[str, Any]) -> None:
    for name in ("vault", "nope"):
        for caller in (w["lead"], w["partial"], w["outsider"], w["adjudicator"]):
            response = _call(client, "delete", f"/api/repositories/{name}", caller)
            assert response.status_code == 403
        assert _call(client, "delete", f"/api/repositories/{name}", None).status_code == 401
    assert Repository.objects.get(name="vault").archived_at is None
    # The maintainer holds proximity.delete_repository: removing archives, erasing nothing.
    make_repository("scratch", scope="team-b")
    gone = _call(client, "delete", "/api/repositories/scratch", w["maintainer"])
    assert gone.status_code == 204
    assert Repository.objects.get(name="scratch").archived_by == "maintainer"
    Repository.objects.filter(name="scratch").delete()  # leave the world as the others see it


def _scan(client: Any, w: dict[str, Any]) -> None:
    path = "/api/repositories/{}/scan"
    assert _call(client, "get", path.format("vault"), w["lead"]).status_code == 200
    partial_view = _call(client, "get", path.format("orchard"), w["partial"])
    assert partial_view.status_code == 200
    assert not _leaks(partial_view, SCOPE_B)
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(client, "get", path.format("vault"), path.format("nope"), caller)
    assert _call(client, "get", path.format("vault"), None).status_code == 401


def _advisory_list(client: Any, w: dict[str, Any]) -> None:
    seen = {
        k: _call(client, "get", "/api/advisories", w[k]) for k in ("lead", "partial", "outsider")
    }
    assert len(seen["lead"].json()) == 2
    assert [a["repository"] for a in seen["partial"].json()] == ["orchard"]
    assert not _leaks(seen["partial"], SCOPE_B)
    assert seen["outsider"].json() == []
    filtered = _call(client, "get", "/api/advisories?repository=vault", w["partial"])
    assert filtered.json() == []
    assert _call(client, "get", "/api/advisories", None).status_code == 401


def _advisory_detail(client: Any, w: dict[str, Any]) -> None:
    vault = w["ids"]["advisory"]["vault"]
    assert _call(client, "get", f"/api/advisories/{vault}", w["lead"]).status_code == 200
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(
            client, "get", f"/api/advisories/{vault}", "/api/advisories/999999999", caller
        )
    assert _call(client, "get", f"/api/advisories/{vault}", None).status_code == 401


def _acknowledge(client: Any, w: dict[str, Any]) -> None:
    vault = w["ids"]["advisory"]["vault"]
    path = f"/api/advisories/{vault}/acknowledge"
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(
            client, "post", path, "/api/advisories/999999999/acknowledge", caller, {"note": "x"}
        )
    assert _call(client, "post", path, None, {"note": "x"}).status_code == 401
    assert ProximityAdvisory.objects.get(pk=vault).state == "open"


def _messages(client: Any, w: dict[str, Any]) -> None:
    assert TriggerMessage.objects.filter(to_agent__repository__name="vault").exists()
    path = "/api/repositories/{}/agents/{}/messages"
    hidden, missing = path.format("vault", "vault-agent-1"), path.format("vault", "nobody")
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(client, "get", hidden, missing, caller)
    assert _call(client, "get", hidden, None).status_code == 401
    # Hidden reads must not have marked anything delivered.
    assert TriggerMessage.objects.filter(
        to_agent__agent_id="vault-agent-1", delivered_at__isnull=True
    ).exists()
    assert _call(client, "get", hidden, w["lead"]).status_code == 200


def _leave(client: Any, w: dict[str, Any]) -> None:
    """Only the agent's own principal retires its working set; to anyone else it is missing."""
    path = "/api/repositories/{}/agents/{}/working-set"
    hidden, missing = path.format("vault", "vault-agent-1"), path.format("nope", "nobody")
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(client, "delete", hidden, missing, caller)
    assert _call(client, "delete", hidden, None).status_code == 401
    # The same scope but another principal's agent: 404 as if it did not exist.
    other = _call(client, "delete", path.format("orchard", "orch-agent-1"), w["partial"])
    assert other.status_code == 404
    now = timezone.now()
    assert (
        WorkingSetSnapshot.objects.filter(
            agent__agent_id__in=["vault-agent-1", "orch-agent-1"], expires_at__gt=now
        ).count()
        == 2
    )
    # The lead retires an agent of its own (a new one: the others' checks read the seeded two).
    body = working_set("vault", "vault-agent-9", [{"path": "leaver.py"}])
    assert _call(client, "post", "/api/working-sets", w["lead"], body).status_code == 201
    own = _call(client, "delete", path.format("vault", "vault-agent-9"), w["lead"])
    assert own.status_code == 200
    assert own.json()["retired"] is True


def _trail(client: Any, w: dict[str, Any]) -> None:
    assert _call(client, "get", "/api/trails/trail-vault", w["lead"]).status_code == 200
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(client, "get", "/api/trails/trail-vault", "/api/trails/nope", caller)
    assert _call(client, "get", "/api/trails/trail-vault", None).status_code == 401


def _declare(client: Any, w: dict[str, Any]) -> None:
    before = TaskVersion.objects.count()
    body = _task("T-SPY", "team-b", "spy")
    for caller in (w["partial"], w["outsider"]):
        response = _call(client, "post", "/api/tasks", caller, body)
        assert response.status_code == 422
        assert response.json()["field"] == "scope"
        fresh = _call(client, "post", "/api/tasks", caller, _task("T-FRESH", "team-b", "x"))
        assert fresh.status_code == 422
    # Reusing a hidden task id reveals nothing: it answers as an unused id (ids are per scope).
    # T-VAULT-2, not -1: _revise still needs T-VAULT-1 to name only the hidden task.
    clash = _call(client, "post", "/api/tasks", w["partial"], _task("T-VAULT-2", "team-a", "x"))
    fresh = _call(client, "post", "/api/tasks", w["partial"], _task("T-FRESH-A", "team-a", "x"))
    assert clash.status_code == fresh.status_code == 201, clash.content
    volatile = ("taskId", "createdAt", "spaceId")
    assert {k: v for k, v in clash.json().items() if k not in volatile} == {
        k: v for k, v in fresh.json().items() if k not in volatile
    }
    assert not _leaks(clash, ("VAULTSECRET", "team-b", "vault-agent", "trail-vault"))
    again = _call(client, "post", "/api/tasks", w["partial"], _task("T-VAULT-2", "team-a", "y"))
    assert again.status_code == 409  # taken in its own scope
    assert again.json()["field"] == "taskId"
    assert _call(client, "post", "/api/tasks", None, body).status_code == 401
    assert TaskVersion.objects.filter(record__task_id="T-SPY").count() == 0
    assert TaskVersion.objects.count() == before + 2


def _revise(client: Any, w: dict[str, Any]) -> None:
    hidden, missing = "/api/tasks/T-VAULT-1/versions", "/api/tasks/T-NONE/versions"
    own = {**_task("x", "team-a", "mine"), "previousVersion": 1}
    own.pop("taskId")
    _hidden_like_missing(client, "post", hidden, missing, w["partial"], own)
    # In a scope the caller lacks, the answer is the same whether or not the task exists.
    for caller in (w["partial"], w["outsider"]):
        theirs = {**own, "scope": "team-b"}
        a, b = (_call(client, "post", p, caller, theirs) for p in (hidden, missing))
        assert (a.status_code, a.json()) == (b.status_code, b.json())
        assert a.status_code in {404, 422}
    assert _call(client, "post", hidden, None, own).status_code == 401
    assert TaskVersion.objects.filter(record__task_id="T-VAULT-1").count() == 1
    _revise_rights(client, w)


def _revise_rights(client: Any, w: dict[str, Any]) -> None:
    """Who may revise a task it can see: its declarer or a lead of its scope; others get 403."""
    path = "/api/tasks/T-ORCH-{}/versions"

    def revision(n: int, previous: int = 1) -> dict[str, Any]:
        body = {**_task("x", "team-a", f"take {n}"), "previousVersion": previous}
        body.pop("taskId")
        return body

    refused = _call(client, "post", path.format(1), w["partial"], revision(1))
    assert refused.status_code == 403, refused.content
    assert "declared this task or a lead of its scope team-a" in refused.json()["detail"]
    assert not TaskVersion.objects.filter(record__task_id="T-ORCH-1", work_version=2).exists()
    assert _call(client, "post", path.format(1), w["lead"], revision(2)).status_code == 201
    by_lead = _call(client, "post", path.format(2), w["scope_lead"], revision(3))
    assert by_lead.status_code == 201, by_lead.content
    written = TaskVersion.objects.get(record__task_id="T-ORCH-2", work_version=2)
    assert (written.declared_by.name, written.provenance["revisedBy"]) == (
        "scope-lead",
        "scope-lead",
    )
    assert written.provenance["declaredBy"] == "lead"
    # A lead of team-a is no lead of team-b: the hidden task answers as a missing one.
    theirs = {**revision(4), "scope": "team-b"}
    a, b = (
        _call(client, "post", p, w["scope_lead"], theirs)
        for p in ("/api/tasks/T-VAULT-1/versions", path.format(404))
    )
    assert (a.status_code, a.json()) == (b.status_code, b.json())
    assert (a.status_code, a.json()["field"]) == (422, "scope")


def _task_read(client: Any, w: dict[str, Any]) -> None:
    for suffix in ("", "/run"):
        hidden, missing = f"/api/tasks/T-VAULT-1{suffix}", f"/api/tasks/T-NONE{suffix}"
        assert _call(client, "get", hidden, w["lead"]).status_code == 200
        for caller in (w["partial"], w["outsider"]):
            _hidden_like_missing(client, "get", hidden, missing, caller)
        assert _call(client, "get", hidden, None).status_code == 401
    # A visible run counts only what its viewer may see.
    run = _call(client, "get", "/api/tasks/T-ORCH-2/run", w["partial"])
    assert run.status_code == 200
    assert not _leaks(run, SCOPE_B)


def _task_run(client: Any, w: dict[str, Any]) -> None:
    _task_read(client, w)


def _overlap_list(client: Any, w: dict[str, Any]) -> None:
    lead_view = _call(client, "get", "/api/overlap-advisories", w["lead"])
    partial_view = _call(client, "get", "/api/overlap-advisories", w["partial"])
    assert lead_view.status_code == partial_view.status_code == 200
    assert not _leaks(partial_view, SCOPE_B)
    assert len(partial_view.json()) <= len(lead_view.json())
    assert _call(client, "get", "/api/overlap-advisories", w["outsider"]).json() == []
    hidden = _call(client, "get", "/api/overlap-advisories?task=T-VAULT-1", w["partial"])
    assert hidden.json() == []
    assert _call(client, "get", "/api/overlap-advisories", None).status_code == 401


def _overlap_detail(client: Any, w: dict[str, Any]) -> None:
    vault = w["ids"]["overlap_vault"]
    if vault is None:  # the pipeline paired nothing in team-b: use any id the viewer cannot see
        vault = 999_999_998
    else:
        assert (
            _call(client, "get", f"/api/overlap-advisories/{vault}", w["lead"]).status_code == 200
        )
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(
            client,
            "get",
            f"/api/overlap-advisories/{vault}",
            "/api/overlap-advisories/999999999",
            caller,
        )
    assert _call(client, "get", f"/api/overlap-advisories/{vault}", None).status_code == 401


def _edit_check(client: Any, w: dict[str, Any]) -> None:
    before = ProximityAdvisory.objects.count()
    files = [{"path": "src/core.py", "lines": [[5, 5]], "baseHunks": [[5, 1]]}]

    def body(repo: str) -> dict[str, Any]:
        return {"repository": repo, "agentId": "checker", "files": files}

    lead_view = _call(client, "post", "/api/check", w["lead"], body("vault"))
    assert lead_view.status_code == 200
    assert {f["other"] for f in lead_view.json()["findings"]} >= {"vault-agent-1"}
    partial_view = _call(client, "post", "/api/check", w["partial"], body("orchard"))
    assert partial_view.status_code == 200
    assert not _leaks(partial_view, SCOPE_B)
    for caller in (w["partial"], w["outsider"]):
        hidden = _call(client, "post", "/api/check", caller, body("vault"))
        missing = _call(client, "post", "/api/check", caller, body("nope"))
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json() == missing.json()
    assert _call(client, "post", "/api/check", None, body("vault")).status_code == 401
    assert ProximityAdvisory.objects.count() == before  # a check writes nothing


def _edit_acknowledge(client: Any, w: dict[str, Any]) -> None:
    from proximity.models import EditAcknowledgement

    def body(repo: str, other: str) -> dict[str, Any]:
        return {"repository": repo, "agentId": "acker", "other": other}

    for caller in (w["partial"], w["outsider"]):
        hidden = _call(
            client, "post", "/api/acknowledgements", caller, body("vault", "vault-agent-1")
        )
        missing = _call(client, "post", "/api/acknowledgements", caller, body("nope", "x"))
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json() == missing.json()
    assert (
        _call(client, "post", "/api/acknowledgements", None, body("vault", "x")).status_code == 401
    )
    assert not EditAcknowledgement.objects.filter(repository__name="vault").exists()
    own = _call(
        client, "post", "/api/acknowledgements", w["partial"], body("orchard", "orch-agent-1")
    )
    assert own.status_code == 201
    assert not _leaks(own, SCOPE_B)


def _agents(client: Any, w: dict[str, Any]) -> None:
    path = "/api/repositories/{}/agents"
    lead_view = _call(client, "get", path.format("vault"), w["lead"])
    assert {a["agentId"] for a in lead_view.json()} == {"vault-agent-1", "vault-agent-2"}
    partial_view = _call(client, "get", path.format("orchard"), w["partial"])
    assert partial_view.status_code == 200
    assert not _leaks(partial_view, SCOPE_B)
    for caller in (w["partial"], w["outsider"]):
        _hidden_like_missing(client, "get", path.format("vault"), path.format("nope"), caller)
    assert _call(client, "get", path.format("vault"), None).status_code == 401


MATRIX: dict[tuple[str, str], Check] = {
    ("post", "/api/check"): _edit_check,
    ("post", "/api/acknowledgements"): _edit_acknowledge,
    ("get", "/api/repositories/{name}/agents"): _agents,
    ("get", "/api/health"): _health,
    ("get", "/api/health/live"): _probe("/api/health/live"),
    ("get", "/api/health/ready"): _probe("/api/health/ready"),
    ("post", "/api/working-sets"): _report,
    ("get", "/api/repositories"): _repositories,
    ("post", "/api/repositories"): _register_repository,
    ("delete", "/api/repositories/{name}"): _remove_repository,
    ("get", "/api/repositories/{name}/scan"): _scan,
    ("get", "/api/advisories"): _advisory_list,
    ("get", "/api/advisories/{advisory_id}"): _advisory_detail,
    ("post", "/api/advisories/{advisory_id}/acknowledge"): _acknowledge,
    ("get", "/api/repositories/{name}/agents/{agent_id}/messages"): _messages,
    ("get", "/api/trails/{trail_id}"): _trail,
    ("delete", "/api/repositories/{name}/agents/{agent_id}/working-set"): _leave,
    ("post", "/api/tasks"): _declare,
    ("post", "/api/tasks/{task_id}/versions"): _revise,
    ("get", "/api/tasks/{task_id}"): _task_read,
    ("get", "/api/tasks/{task_id}/run"): _task_run,
    ("get", "/api/overlap-advisories"): _overlap_list,
    ("get", "/api/overlap-advisories/{advisory_id}"): _overlap_detail,
}


def _live_endpoints() -> set[tuple[str, str]]:
    from overlap_site.api import api

    schema = api.get_openapi_schema()
    found = {(m, p) for p, ops in schema["paths"].items() for m in ops}
    # Routes hidden from the schema would escape the matrix: every URL must be in the schema.
    urls = {
        "/api/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(u.pattern))
        for u in api.urls[0]
        if str(u.pattern) not in {"openapi.json", "docs", ""}
    }
    assert urls == {p for _, p in found}, urls ^ {p for _, p in found}
    return found


def test_every_endpoint_has_a_matrix_entry() -> None:
    missing = _live_endpoints() - set(MATRIX)
    assert not missing, f"add an access-matrix entry for: {sorted(missing)}"
    assert not set(MATRIX) - _live_endpoints(), "matrix entries for endpoints that are gone"


def test_no_endpoint_leaks_outside_the_viewers_scopes(world, client) -> None:
    failures = []
    for (method, path), check in sorted(MATRIX.items()):
        try:
            check(client, world)
        except AssertionError as exc:
            failures.append(f"{method.upper()} {path}: {exc}")
    assert not failures, "\n".join(failures)


# ---- board callbacks and admin views -------------------------------------------------------

ADMIN_MARKERS_B = (*SCOPE_B, "team-b")


def _staff(caller: Any) -> Any:
    """A staff login linked to the caller's principal, allowed to view every model."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user(f"u-{caller.principal.name}", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    caller.principal.user = user
    caller.principal.save(update_fields=["user"])
    return user


def _board_value(dep: dict[str, Any], ids: dict[str, Any]) -> Any:
    """An input value aimed at team-b's records, for whatever the callback takes."""
    ident = json.loads(dep["id"]) if dep["id"].startswith("{") else dep["id"]
    key = ident if isinstance(ident, str) else ident["type"]
    values = {
        ("repository", "value"): "vault",
        ("bands", "value"): ["traffic", "resolution", "conflict"],
        ("agent", "value"): None,
        ("window", "value"): "all",
        ("selected-agent", "data"): "vault-agent-1",
        ("tick", "n_intervals"): 1,
        ("ack-count", "data"): 0,
        ("airspace", "clickData"): {"points": [{"curveNumber": 1, "customdata": "vault-agent-1"}]},
        ("scene-key", "data"): None,
        ("kanban-key", "data"): None,
    }
    if key == "ack":
        return [
            {
                "id": {"type": "ack", "index": ids["advisory"]["vault"]},
                "property": dep["property"],
                "value": 1,
            }
        ]
    return {"id": dep["id"], "property": dep["property"], "value": values[(key, dep["property"])]}


def _board_callbacks() -> dict[str, dict[str, Any]]:
    from proximity.dashboard.app import create_app

    return dict(create_app().callback_map)


# Every board callback (by its output key) and what a hidden-scope call must not produce.
BOARD_MATRIX = {
    "..airspace.figure...coverage.children...coverage.className...scene-key.data..": "scene",
    "..kanban.children...kanban-key.data..": "kanban",
    "agent.options": "agent options",
    "selected-agent.data": "selection",
    "agent-panel.children": "agent panel",
    "..ack-count.data...ack-status.children..": "acknowledge",
}


def test_every_board_callback_has_a_matrix_entry(db) -> None:
    assert set(_board_callbacks()) == set(BOARD_MATRIX)


def callback(board: Any, output: str, inputs: list[Any], state: list[Any]) -> Any:
    """POST one Dash callback as the renderer does; an ALL input is a nested list and a pattern
    id is named in changedPropIds as compact sorted JSON."""
    parts = [part.split(".") for part in output.strip(".").split("...")]
    outputs = [{"id": ident, "property": prop} for ident, prop in parts]
    first = inputs[0][0] if isinstance(inputs[0], list) else inputs[0]
    ident = first["id"]
    if isinstance(ident, dict):
        ident = json.dumps(ident, sort_keys=True, separators=(",", ":"))
    body = {
        "output": output,
        "outputs": outputs if output.startswith("..") else outputs[0],
        "inputs": inputs,
        "state": state,
        "changedPropIds": [f"{ident}.{first['property']}"],
    }
    return board.post(
        "/board/_dash-update-component", data=json.dumps(body), content_type="application/json"
    )


def test_board_callbacks_leak_nothing_outside_scope(world, request) -> None:
    anonymous_site = request.getfixturevalue("site")
    log_in = request.getfixturevalue("login")
    failures = []
    specs = _board_callbacks()
    for output, spec in sorted(specs.items()):
        inputs = [_board_value(d, world["ids"]) for d in spec["inputs"]]
        state = [_board_value(d, world["ids"]) for d in spec.get("state", [])]
        denied = callback(anonymous_site, output, inputs, state)
        if denied.status_code != 403:
            failures.append(f"{output}: anonymous got {denied.status_code}")
    for who in ("partial", "outsider"):
        viewer = log_in(_staff(world[who]))
        for output, spec in sorted(specs.items()):
            inputs = [_board_value(d, world["ids"]) for d in spec["inputs"]]
            state = [_board_value(d, world["ids"]) for d in spec.get("state", [])]
            response = callback(viewer, output, inputs, state)
            # An echo of the agent id the caller sent reveals nothing; anything else would.
            body = response.get_data(as_text=True).replace("vault-agent-1", "")
            leaked = [m for m in SCOPE_B if m.lower() in body.lower()]
            if response.status_code >= 500 or leaked:
                failures.append(f"{who} {output}: {response.status_code} {leaked}")
    assert ProximityAdvisory.objects.get(pk=world["ids"]["advisory"]["vault"]).state == "open"
    assert not failures, "\n".join(failures)


def _admin_hidden(model: Any) -> Any:
    """A team-b object of this model, or None when the model holds no scoped records."""
    from django.db.models import Q

    for lookup in (
        "repository__scope",
        "scope",
        "query__scope",
        "version__scope",
        "advisory__version_a__scope",
        "version_a__scope",
    ):
        try:
            return model.objects.filter(Q(**{lookup: "team-b"})).first()
        except Exception:  # noqa: S112 - this model has no such path; try the next one
            continue
    return None


UNSCOPED_ADMIN = {"auth.user", "auth.group", "proximity.principal"}  # superuser tools, no records


def test_admin_views_leak_nothing_outside_scope(world, client) -> None:
    from django.contrib import admin

    failures = []
    users = {who: _staff(world[who]) for who in ("partial", "outsider")}
    registry = {m._meta.label_lower: m for m in admin.site._registry}
    for label, model in sorted(registry.items()):
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        client.logout()
        if client.get(url).status_code != 302:
            failures.append(f"{label}: anonymous not redirected to login")
        if label in UNSCOPED_ADMIN:
            continue
        hidden = _admin_hidden(model)
        for who, user in users.items():
            client.force_login(user)
            page = client.get(url)
            leaked = [m for m in ADMIN_MARKERS_B if m.lower() in page.content.decode().lower()]
            if page.status_code not in {200, 403} or leaked:
                failures.append(f"{who} {label} list: {page.status_code} {leaked}")
            if hidden is not None:
                shown = client.get(f"{url}{hidden.pk}/change/")
                missing = client.get(f"{url}999999999/change/")
                if shown.status_code != missing.status_code:
                    failures.append(f"{who} {label} object: {shown.status_code} vs missing")
    assert not failures, "\n".join(failures)
