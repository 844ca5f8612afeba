"""The review queue on the demo: a budget per task version ordered by evidence, held-back
candidates stored and reachable, never negatives, and requirement 70's delivery rule
(issue 15, items 1, 3 and 6)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import transaction
from django.db.models import Count, Q
from django.test import override_settings
from django.utils import timezone

from proximity.dashboard.kanban import probability_text, task_card_view
from proximity.engine.overlap.similarity import SIMILARITY_FEATURES
from proximity.models import OverlapAdvisory, OverlapRun, Principal, TaskVersion
from proximity.selectors.adjudications import adjudication_queue
from proximity.selectors.board import board_task_cards
from proximity.services.overlap_index import indexed_engine_call
from proximity.services.overlap_store import run_store
from tests.factories import make_caller
from tests.proximity.admin.factories import make_adjudicator

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = 4  # the shipped default (OVERLAP_REVIEW_BUDGET), chosen on GitBugs hadoop


@pytest.fixture
def demo(tmp_path, in_process_tasks):
    with override_settings(VAR_DIR=tmp_path, DEBUG=True):  # the demo runs locally
        call_command("demo", "--no-server", "--step-seconds", "0", stdout=io.StringIO())
    return Principal.objects.get(name="demo-lead")


def _top(task_id: str) -> OverlapAdvisory:
    return OverlapAdvisory.objects.select_related("version_b__record").get(
        version_a__record__task_id=task_id, version_a__superseded_at__isnull=True, queue_rank=1
    )


def test_no_task_version_has_more_cards_than_its_budget_and_nothing_is_dropped(demo):
    runs = OverlapRun.objects.filter(status="done").annotate(
        cards=Count("advisories", filter=Q(advisories__queued=True)),
        held=Count("advisories", filter=Q(advisories__queued=False)),
        total=Count("advisories"),
    )
    assert runs.count() >= 10
    assert {r.delivery for r in runs} == {"deliver"}  # the shipped review policy is frozen
    for run in runs:
        assert run.review_budget == BUDGET
        assert run.cards == min(BUDGET, run.total)
        assert run.held_back == run.held == run.total - run.cards  # counted in the run
        ranks = sorted(run.advisories.values_list("queue_rank", flat=True))
        assert ranks == list(range(1, run.total + 1))
    assert sum(r.held for r in runs) > 0
    statuses = set(OverlapAdvisory.objects.values_list("status", flat=True))
    assert statuses == {"needs-independent-adjudication"}  # held back is not a negative


@pytest.mark.parametrize(("query", "expected"), [("FX-1B", "FX-1A"), ("FX-6B", "FX-6A")])
def test_the_same_deliverable_and_the_paraphrase_are_the_top_card_of_their_task(
    demo, query, expected
):
    top = _top(query)
    assert top.version_b.record.task_id == expected
    review = top.evidence["review"]
    assert review["queued"] is True
    assert review["digest"].startswith("evidence:")
    assert review["status"].startswith("fitted on GitBugs hadoop")
    assert {t["name"] for t in review["terms"]} >= {"deliverable.jaccard", "rank.dense"}


def test_the_board_column_shows_the_queue_with_the_held_back_count(demo):
    total, cards, _ = board_task_cards(demo, limit=200)
    pairs = [c for c in cards if c.kind == "pair" and not c.unknown_reason]
    assert total == len(pairs) == OverlapAdvisory.objects.filter(queued=True).count()
    per_task: dict[str, int] = {}
    for card in pairs:
        per_task[card.task_a] = per_task.get(card.task_a, 0) + 1
    assert max(per_task.values()) <= BUDGET
    [held] = [c for c in cards if c.kind == "held-back"]
    assert held.held_back == OverlapAdvisory.objects.filter(queued=False).count() > 0
    assert not [c for c in cards if c.kind == "shadow"]
    top = next(c for c in pairs if c.task_a == "FX-6B@1" and c.queue_rank == 1)
    assert top.evidence  # features and their contributions on the card
    assert top.more_url.endswith(f"run={_top('FX-6B').run_id}&held=yes")
    text = str(task_card_view(top).to_plotly_json())
    # The card links into the blind desk, so it never shows the probability (issue 31).
    assert top.open_url
    assert "Queue #1 · model " in text
    assert probability_text(top.score) not in text
    assert "probability" not in text
    assert ", fitted on GitBugs hadoop" in text
    assert "locally selected, not validated" in text  # requirement 72, on every card
    assert "more candidate(s) for this task" in text


def test_held_back_candidates_are_reachable_in_the_desk_and_the_api(demo, client):
    run = _top("FX-6B").run
    held = set(run.advisories.filter(queued=False).values_list("pk", flat=True))
    assert held
    reviewer = make_adjudicator("rev", scopes=["payments", "demo"], clearances=["internal"])
    more = adjudication_queue(reviewer, run=run.pk, held=True)
    assert {i.advisory_id for i in more} == held
    queue = {i.advisory_id for i in adjudication_queue(reviewer, run=run.pk)}
    assert len(queue) == BUDGET
    assert not queue & held
    caller = make_caller("api-lead", scopes=["payments", "demo"], clearances=["internal"])
    url = "/api/overlap-advisories?task=FX-6B"

    def mine(response):  # the list names FX-6B on either side: keep its own run's candidates
        return [a for a in response.json() if a["taskA"] == "FX-6B"]

    every = mine(client.get(url, **caller.headers))  # default unchanged: every candidate
    held_api = mine(client.get(url + "&include=held", **caller.headers))
    queued_api = mine(client.get(url + "&include=queued", **caller.headers))
    assert {a["id"] for a in held_api} == held
    assert len(queued_api) == BUDGET
    assert len(every) == len(held_api) + len(queued_api)
    assert {a["queued"] for a in held_api} == {False}
    assert {a["status"] for a in held_api} == {"needs-independent-adjudication"}
    bad = client.get(url + "&include=negatives", **caller.headers)
    assert bad.status_code == 422
    assert "include" in bad.content.decode()
    latest = client.get("/api/tasks/FX-6B/run?scope=payments", **caller.headers).json()
    assert (latest["queued"], latest["heldBack"]) == (BUDGET, len(held))
    assert latest["delivery"] == "deliver"


def test_a_run_under_a_policy_not_frozen_is_stored_shadow_only_and_not_delivered(demo):
    """Requirement 70 in the production path: the store decides delivery from the run's policy."""
    query = TaskVersion.objects.get(record__task_id="FX-6B")
    run = OverlapRun.objects.create(
        query=query,
        policy_digest="policy:not-frozen",
        requested_at=timezone.now(),
        status=OverlapRun.Status.RUNNING,
    )
    prepared = indexed_engine_call(query, query.declared_by)
    with transaction.atomic():
        run_store(
            run=run,
            result=prepared.call(),
            pool_size=prepared.pool_size,
            version_ids=prepared.version_ids,
            now=timezone.now(),
        )
    run.refresh_from_db()
    assert run.delivery == "shadow-only"
    assert run.advisories.count() > 0  # stored for shadow evaluation
    _, cards, _ = board_task_cards(demo, limit=500)
    shown = {c.id for c in cards if c.kind == "pair"}
    assert not shown & set(run.advisories.values_list("pk", flat=True))
    [shadow] = [c for c in cards if c.kind == "shadow"]
    assert str(run.advisories.count()) in shadow.unknown_reason


def test_cards_show_the_pair_similarities_the_queue_was_ordered_by(demo):
    """The three similarity features of issue 15's better queue are measured on real stored
    runs (the bundled model), and each reaches the card's evidence terms with its weight."""
    top = _top("FX-6B")
    features = {f["name"]: f for f in top.features}
    terms = {t["name"]: t for t in top.evidence["review"]["terms"]}
    for name in SIMILARITY_FEATURES:
        assert features[name]["status"] == "value", features[name]
        assert 0.0 <= features[name]["value"] <= 1.0 + 1e-6
        assert terms[name]["value"] == pytest.approx(features[name]["value"])
        assert terms[name]["contribution"] == pytest.approx(
            terms[name]["weight"] * terms[name]["value"]
        )
    assert terms["similarity.objective_cosine"]["weight"] > 0  # fitted, not a prior


def test_a_version_stored_before_objective_vectors_gets_one_when_a_run_needs_it(demo):
    """Versions from before migration 0015 have no objective vector: the next run that compares
    them embeds and stores it once, and measures the same cosine as a fresh version would."""
    query = TaskVersion.objects.get(record__task_id="FX-6B", superseded_at__isnull=True)
    expected = {f["name"]: f["value"] for f in _top("FX-6B").features}
    TaskVersion.objects.update(objective_embedding=None)
    prepared = indexed_engine_call(query, query.declared_by)
    result = prepared.call()
    top = _top("FX-6B").version_b
    again = next(a for a in result.advisories if a.candidate.work_version == top.work_version
                 and a.candidate.task_id.endswith(f"#{top.record.task_id}"))  # fmt: skip
    got = {f.name: f.value for f in again.features}
    assert got["similarity.objective_cosine"] == pytest.approx(
        expected["similarity.objective_cosine"], abs=1e-5
    )
    filled = TaskVersion.objects.filter(objective_embedding__isnull=False)
    assert filled.count() == len(result.advisories) + 1  # the query and its candidates, no more
