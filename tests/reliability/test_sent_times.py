"""Times an agent sends are ISO-8601 strings inside a window (issue 31, item 1).

The probe: ``"startedAt": "0001-01-01T00:00:00+14:00"`` was stored by PostgreSQL (as 1 BC) and
could not be read back, so every read of the repository answered 422 (a 500 on SQLite); ``-1``
was read as 1969 and claimed right of way forever. Run on whichever database the suite uses:
PostgreSQL under ``tests.servers``, SQLite without it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from proximity.models import Agent, WorkingSetSnapshot
from proximity.services.working_sets import WorkingSetReport, working_set_report
from tests.factories import file_entry, make_repository, working_set

pytestmark = pytest.mark.django_db

YEAR_ONE = "0001-01-01T00:00:00+14:00"


@pytest.fixture
def repo():
    return make_repository("web", scope="team-a")


def _future(minutes: int) -> str:
    return (timezone.now() + timedelta(minutes=minutes)).isoformat()


@pytest.mark.parametrize(
    ("extra", "file_extra", "field"),
    [
        ({"startedAt": YEAR_ONE}, {}, "startedAt"),
        ({"startedAt": "1999-12-31T23:59:59Z"}, {}, "startedAt"),
        ({"startedAt": "2000-01-01T00:00:00+14:00"}, {}, "startedAt"),  # 1999 in UTC
        ({"startedAt": -1}, {}, "startedAt"),
        ({"startedAt": 1_700_000_000}, {}, "startedAt"),
        ({"startedAt": "1700000000"}, {}, "startedAt"),
        ({"startedAt": "2026-01-01T10:00:00"}, {}, "startedAt"),  # no offset
        ({"startedAt": "9999-12-31T23:59:59-14:00"}, {}, "startedAt"),
        ({"startedAt": "later"}, {}, "startedAt"),
        ({}, {"touchedAt": YEAR_ONE}, "files[0].touchedAt"),
        ({}, {"touchedAt": 0}, "files[0].touchedAt"),
        ({"intent": [{"path": "a.py", "expiresAt": YEAR_ONE}]}, {}, "intent[0].expiresAt"),
        ({"intent": [{"path": "a.py", "expiresAt": 99}]}, {}, "intent[0].expiresAt"),
    ],
)
def test_a_time_outside_the_window_is_422_naming_it_and_stores_nothing(
    repo, lead, post_json, extra, file_extra, field
) -> None:
    body = working_set("web", "a1", [file_entry("a.py", [[1, 5]], **file_extra)], **extra)
    response = post_json("/api/working-sets", body, lead)
    assert response.status_code == 422, response.content
    assert response.json()["field"] == field
    assert not Agent.objects.exists()
    assert not WorkingSetSnapshot.objects.exists()


def test_a_start_in_the_future_beyond_the_skew_is_refused_within_it_accepted(
    repo, lead, post_json, settings
) -> None:
    settings.OVERLAP_CLOCK_SKEW_SECONDS = 300
    late = working_set("web", "a1", [file_entry("a.py")], startedAt=_future(10))
    assert post_json("/api/working-sets", late, lead).status_code == 422
    near = working_set("web", "a1", [file_entry("a.py")], startedAt=_future(2))
    assert post_json("/api/working-sets", near, lead).status_code == 201


def test_the_year_one_probe_leaves_every_read_of_the_repository_working(
    repo, lead, post_json, client
) -> None:
    good = working_set("web", "a1", [file_entry("a.py", [[1, 5]])], startedAt="2026-01-01T00:00Z")
    assert post_json("/api/working-sets", good, lead).status_code == 201
    probe = working_set("web", "a2", [file_entry("a.py", [[1, 5]])], startedAt=YEAR_ONE)
    assert post_json("/api/working-sets", probe, lead).status_code == 422
    check = {"repository": "web", "agentId": "a2", "files": [{"path": "a.py", "lines": [[2, 3]]}]}
    assert post_json("/api/check", check, lead).status_code == 200
    assert client.get("/api/repositories/web/agents", **lead.headers).status_code == 200
    assert client.get("/api/advisories?repository=web", **lead.headers).status_code == 200
    [agent] = client.get("/api/repositories/web/agents", **lead.headers).json()
    # a reported start is never stored as such (issue 28: the first report dates an agent the
    # server cannot date by git), so the agent reads back as dated by its report
    assert datetime.fromisoformat(agent["startedAt"]).year == timezone.now().year


def test_an_edge_of_the_window_is_accepted_and_no_claim_moves_the_start(
    repo, lead, post_json
) -> None:
    before = timezone.now()
    first = working_set("web", "a1", [file_entry("a.py")], startedAt="2000-01-01T00:00:00Z")
    assert post_json("/api/working-sets", first, lead).status_code == 201
    started = Agent.objects.get().started_at
    assert started >= before  # dated by the report, not by the claim
    lower = working_set("web", "a1", [file_entry("b.py")], startedAt="1999-06-01T00:00:00Z")
    assert post_json("/api/working-sets", lower, lead).status_code == 422
    assert Agent.objects.get().started_at == started


def test_a_reader_start_outside_the_window_is_ignored_not_stored(repo) -> None:
    # The watcher passes starts from git (principal None); a commit dated 1970 must not stick.
    now = timezone.now()
    report = WorkingSetReport(
        repository="web",
        agent_id="w1",
        files=[file_entry("a.py")],
        intent=[],
        started_at=datetime(1970, 1, 1, tzinfo=UTC),
    )
    working_set_report(principal=None, report=report, now=now)
    assert Agent.objects.get().started_at == now


def test_the_database_refuses_a_start_before_2000(repo) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Agent.objects.create(
            repository=repo, agent_id="x", started_at=datetime(1, 1, 1, 12, tzinfo=UTC)
        )
