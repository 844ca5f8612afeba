"""The board under /board/: Django login required, scoped reads, acknowledge through the service."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from plotly.offline import get_plotlyjs_version

from proximity.dashboard.app import ASSET_MAX_AGE_S
from proximity.models import ProximityAdvisory
from proximity.services.scans import scan_run
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository
from tests.proximity.dashboard.conftest import callback

pytestmark = pytest.mark.django_db

FILTERS = ("repository", "bands", "agent", "window")


def _seed(owner) -> dict[str, int]:
    """web (team-a) and vault (team-b, 'internal'), each with one Resolution advisory."""
    now = timezone.now()
    for name, scope, disclosure in (("web", "team-a", []), ("vault", "team-b", ["internal"])):
        repo = make_repository(name, scope=scope, disclosure=disclosure)
        for agent, lines, excerpt in (("a1", [[1, 40]], "+ x = 1"), ("a2", [[5, 9]], "- y = 2")):
            files = [file_entry("src/core.py", lines, excerpt=f"{name}:{excerpt}")]
            working_set_report(
                principal=owner, report=WorkingSetReport(name, agent, files, []), now=now
            )
        scan_run(repository_id=repo.pk, now=now)
    return {a.repository.name: a.pk for a in ProximityAdvisory.objects.select_related("repository")}


@pytest.fixture
def seeded(lead):
    return _seed(lead.principal)


@pytest.fixture
def user_of(django_user_model):
    def make(caller):
        user = django_user_model.objects.create_user(caller.principal.name, is_staff=True)
        caller.principal.user = user
        caller.principal.save(update_fields=["user"])
        return user

    return make


def _inputs(repo, bands=("traffic", "resolution", "conflict"), agent=None, window="all"):
    values = (repo, list(bands), agent, window)
    return [
        {"id": k, "property": "value", "value": v} for k, v in zip(FILTERS, values, strict=True)
    ]


def _kanban(site, repo):
    extra = [
        {"id": "tick", "property": "n_intervals", "value": 1},
        {"id": "ack-count", "property": "data", "value": 0},
    ]
    state = [{"id": "kanban-key", "property": "data", "value": None}]
    output = "..kanban.children...kanban-key.data.."
    response = callback(site, output, [*_inputs(repo), *extra], state)
    return response.status_code, response.get_data(as_text=True)


def _scene(site, repo, previous=None):
    extra = [
        {"id": "selected-agent", "property": "data", "value": None},
        {"id": "tick", "property": "n_intervals", "value": 1},
    ]
    state = [{"id": "scene-key", "property": "data", "value": previous}]
    output = "..airspace.figure...coverage.children...coverage.className...scene-key.data.."
    response = callback(site, output, [*_inputs(repo), *extra], state)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_json()["response"]


def test_bare_prefix_redirects_to_the_board(site):
    response = site.get("/board")
    assert response.status_code == 301
    assert response.headers["Location"].endswith("/board/")


def test_anonymous_page_redirects_to_django_login(site):
    response = site.get("/board/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/admin/login/?next=/board/"


def test_anonymous_callback_and_layout_are_refused(site, seeded):
    status, body = _kanban(site, "web")
    assert status == 403
    assert "src/core.py" not in body
    assert site.get("/board/_dash-layout").status_code == 403


def test_lead_sees_both_repositories_partial_only_web(login, seeded, lead, partial, user_of):
    site = login(user_of(lead))
    assert site.get("/board/").status_code == 200
    layout = site.get("/board/_dash-layout").get_data(as_text=True)
    assert '"options":["vault","web"]' in layout
    site = login(user_of(partial))
    layout = site.get("/board/_dash-layout").get_data(as_text=True)
    assert '"options":["web"]' in layout


def test_resolution_card_shows_both_sides_excerpts(login, seeded, lead, user_of):
    status, body = _kanban(login(user_of(lead)), "web")
    assert status == 200
    assert "Resolution Advisory: a1 and a2" in body
    assert "web:+ x = 1" in body
    assert "web:- y = 2" in body
    assert "lines 1-40" in body


def test_partial_gets_nothing_from_a_hidden_repository(login, seeded, partial, user_of):
    site = login(user_of(partial))
    status, body = _kanban(site, "vault")
    assert status == 200
    assert "vault:" not in body
    figure = _scene(site, "vault")["airspace"]["figure"]
    assert figure["data"] == []


def test_scene_has_files_agents_and_a_resolution_link(login, seeded, lead, user_of):
    out = _scene(login(user_of(lead)), "web")
    names = [t["name"] for t in out["airspace"]["figure"]["data"]]
    assert names[:2] == ["files (colour = folder)", "agents"]
    assert any(n.startswith("Resolution Advisory") for n in names)
    assert out["coverage"] == {"children": "Coverage: ok.", "className": "ok"}


def test_scene_behind_the_newest_report_is_degraded_and_says_so(login, seeded, lead, user_of):
    # a report after the last scan: the board may not say "ok" (its colour is the warning's)
    files = [file_entry("src/core.py", [[1, 50]], excerpt="web:+ later")]
    later = timezone.now() + timezone.timedelta(minutes=30)
    working_set_report(
        principal=lead.principal, report=WorkingSetReport("web", "a1", files, []), now=later
    )
    out = _scene(login(user_of(lead)), "web")
    assert out["coverage"]["className"] == "degraded"
    assert out["coverage"]["children"].startswith("Coverage degraded:")


def test_a_layout_request_reads_the_session_once(login, seeded, lead, user_of):
    # The guard, the layout and both first renders all ask who is looking: one lookup serves them.
    site = login(user_of(lead))
    with CaptureQueriesContext(connection) as queries:
        response = site.get("/board/_dash-layout")
    assert response.status_code == 200
    assert "card band-resolution" in response.get_data(as_text=True)  # the first kanban is in it
    sessions = [q for q in queries.captured_queries if "django_session" in q["sql"]]
    assert len(sessions) == 1


def test_the_layout_carries_the_agent_list_and_panel_no_callback_on_load(
    login, seeded, lead, user_of
):
    site = login(user_of(lead))
    layout = site.get("/board/_dash-layout").get_data(as_text=True)
    assert '"options":["a1","a2"],"value":null,"placeholder":"all agents"' in layout
    assert "Click an agent to highlight its files" in layout
    dependencies = site.get("/board/_dash-dependencies").get_json()
    on_load = [d["output"] for d in dependencies if not d.get("prevent_initial_call")]
    assert on_load == []  # every first state is in the layout: no round trip before the scene


def test_refresh_without_a_new_scan_sends_no_figure(login, seeded, lead, user_of):
    site = login(user_of(lead))
    first = _scene(site, "web")
    again = _scene(site, "web", previous=first["scene-key"]["data"])
    assert again == {}  # no_update everywhere: nothing re-sent, the camera stays put


def test_scene_without_a_scan_says_unknown(login, lead, user_of):
    make_repository("empty", scope="team-a")
    out = _scene(login(user_of(lead)), "empty")
    assert "unknown" in out["coverage"]["children"]
    assert out["coverage"]["className"] == "unknown"


def _ack(site, advisory_id):
    inputs = [{"id": {"type": "ack", "index": advisory_id}, "property": "n_clicks", "value": 1}]
    body = {
        "output": "..ack-count.data...ack-status.children..",
        "outputs": [
            {"id": "ack-count", "property": "data"},
            {"id": "ack-status", "property": "children"},
        ],
        "inputs": [inputs],
        "state": [{"id": "ack-count", "property": "data", "value": 0}],
        "changedPropIds": [
            json.dumps({"index": advisory_id, "type": "ack"}, separators=(",", ":")) + ".n_clicks"
        ],
    }
    return site.post(
        "/board/_dash-update-component", data=json.dumps(body), content_type="application/json"
    )


def test_acknowledge_on_the_board_calls_the_service(login, seeded, lead, user_of):
    response = _ack(login(user_of(lead)), seeded["web"])
    assert response.status_code == 200, response.get_data(as_text=True)[:400]
    advisory = ProximityAdvisory.objects.get(pk=seeded["web"])
    assert advisory.state == "acknowledged"
    assert advisory.acknowledged_by[0]["by"] == "lead"


def test_acknowledge_outside_scope_changes_nothing(login, seeded, partial, user_of):
    response = _ack(login(user_of(partial)), seeded["vault"])
    assert "not visible" in response.get_data(as_text=True)
    assert ProximityAdvisory.objects.get(pk=seeded["vault"]).state == "open"


def test_login_without_principal_sees_nothing(login, seeded, django_user_model):
    site = login(django_user_model.objects.create_user("stranger", is_staff=True))
    layout = site.get("/board/_dash-layout").get_data(as_text=True)
    assert "not linked to a principal" in layout
    assert "manage.py users link stranger --role lead --scope SCOPE" in layout
    status, body = _kanban(site, "web")
    assert status == 200
    assert "src/core.py" not in body


def test_cross_origin_callback_is_refused(login, seeded, lead, user_of):
    site = login(user_of(lead))
    response = site.post(
        "/board/_dash-update-component",
        data="{}",
        content_type="application/json",
        headers={"Origin": "http://evil.example"},
    )
    assert response.status_code == 403


def _scripts(site) -> list[str]:
    return re.findall(r'<script src="([^"]+)"', site.get("/board/").get_data(as_text=True))


def test_the_page_loads_plotly_gl3d_and_the_graph_chunk_as_kept_scripts(login, lead, user_of):
    site = login(user_of(lead))
    scripts = _scripts(site)
    assert any("/assets/vendor/plotly-gl3d.min.js?m=" in s for s in scripts)
    assert not any("plotly.min.js" in s for s in scripts)  # no second, full Plotly
    chunks = [s for s in scripts if "/dcc/async-" in s]
    assert len(chunks) == 2
    assert all(re.search(r"async-(graph|dropdown)\.v[0-9_]+m[0-9]+\.js$", s) for s in chunks)
    for src in [*chunks, next(s for s in scripts if "/assets/" in s)]:
        response = site.get(src)
        assert response.status_code == 200
        assert response.cache_control.max_age == ASSET_MAX_AGE_S, src  # no revalidation per load


def test_the_vendored_plotly_is_the_version_plotly_py_ships():
    bundle = settings.BASE_DIR / "frontend_assets" / "board" / "vendor" / "plotly-gl3d.min.js"
    with bundle.open(encoding="utf-8") as head:
        banner = head.read(200)
    assert f"plotly.js (gl3d - minified) v{get_plotlyjs_version()}\n" in banner
