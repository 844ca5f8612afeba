"""The task-overlap column: ordered by evidence across tasks, likely cards shown, the rest in a
counted "possible" group, nothing dropped (issue 27, point 7)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from proximity.dashboard.kanban import kanban_view
from proximity.engine.overlap.delivery import DELIVER
from proximity.models import OverlapAdvisory, Principal
from proximity.selectors.board import board_task_cards
from proximity.selectors.board_records import LIKELY_PROBABILITY
from tests.proximity.admin.factories import make_pair, make_version

pytestmark = pytest.mark.django_db

TERMS = [
    {"name": "similarity.dense_cosine", "value": 0.91, "status": "value", "contribution": 1.82},
    {"name": "deliverable.same", "value": 1.0, "status": "value", "contribution": 1.98},
    {"name": "time.gap", "value": 0.25, "status": "value", "contribution": -0.96},
    {"name": "nli.entailment", "value": None, "status": "unknown", "contribution": 0.0},
]


def scored_pair(
    declarer: Principal, a: str, b: str, score: float | None, *, age_min: int = 0, **kw: Any
) -> OverlapAdvisory:
    """A delivered, queued pair with a stored probability, made ``age_min`` minutes ago."""
    scope = kw.pop("scope", "team-a")
    pair = make_pair(
        make_version(a, declarer, scope=scope, **kw), make_version(b, declarer, scope=scope)
    )
    pair.run.delivery = DELIVER
    pair.run.save(update_fields=["delivery"])
    pair.evidence_score = score
    pair.queue_rank = 1
    pair.created_at = timezone.now() - timedelta(minutes=age_min)
    pair.evidence = {
        "review": {
            "version": "evidence-model/0.4.0-hadoop-dev",
            "status": "fitted on GitBugs hadoop",
            "probability": score,
            "terms": TERMS,
        }
    }
    pair.save()
    return pair


@pytest.fixture
def queue(lead) -> dict[str, OverlapAdvisory]:
    """The issue's board: many new unlikely pairs, one old pair at 88%, one paraphrase at 10%."""
    p = lead.principal
    pairs = {"same": scored_pair(p, "S-1", "S-2", 0.8763, age_min=600)}
    pairs["para"] = scored_pair(p, "P-1", "P-2", 0.10, age_min=300)
    for k in range(35):
        pairs[f"low{k}"] = scored_pair(p, f"L-{k}a", f"L-{k}b", 0.0004 + k * 1e-5, age_min=k)
    pairs["unscored"] = scored_pair(p, "U-1", "U-2", None, age_min=0)
    return pairs


def test_the_column_orders_pairs_by_probability_across_tasks_not_by_age(lead, queue):
    column = board_task_cards(lead.principal)
    pairs = [c for c in column.cards if c.kind == "pair"]
    assert [c.id for c in pairs[:2]] == [queue["same"].pk, queue["para"].pk]
    scores = [c.score for c in pairs if c.score is not None]
    assert scores == sorted(scores, reverse=True)
    assert pairs[-1].id == queue["unscored"].pk  # unknown probability: last, never dropped
    assert (column.total, column.likely) == (38, 2)
    assert [c.likely for c in pairs[:3]] == [True, True, False]


def test_the_kanban_shows_likely_cards_and_folds_the_rest_into_a_counted_group(lead, queue):
    column = board_task_cards(lead.principal, limit=30)
    [tasks] = [s for s in kanban_view({}, column) if s.id == "col-tasks"]
    likely, _notices, possible = tasks.children[1:]
    shown = [c for c in likely.children if getattr(c, "className", "") == "card task"]
    assert len(shown) == 2
    assert "S-1@1" in str(shown[0].to_plotly_json())
    assert possible.id == "tasks-possible"
    assert possible.to_plotly_json()["props"].get("open") is None  # folded until clicked
    summary = possible.children[0].children
    assert summary == "Possible overlap: 36 pair(s) below 5.0% (not negatives)"
    folded = possible.children[1].children
    cards = [c for c in folded if getattr(c, "className", "") == "card task"]
    assert len(cards) == 30  # one page of the possible group ...
    assert "showing 30 of 36: every pair is in the adjudication desk" in str(folded[-1].children)


def test_an_unscored_pair_is_possible_not_likely_and_the_threshold_is_inclusive(lead):
    at = scored_pair(lead.principal, "E-1", "E-2", LIKELY_PROBABILITY)
    below = scored_pair(lead.principal, "E-3", "E-4", LIKELY_PROBABILITY - 1e-6)
    column = board_task_cards(lead.principal)
    by_id = {c.id: c for c in column.cards}
    assert by_id[at.pk].likely
    assert not by_id[below.pk].likely
    assert column.likely == 1


def test_pairs_the_viewer_cannot_see_both_sides_of_are_neither_shown_nor_counted(lead, partial):
    scored_pair(lead.principal, "B-1", "B-2", 0.9, scope="team-b")
    scored_pair(lead.principal, "A-1", "A-2", 0.9)
    column = board_task_cards(partial.principal)
    assert (column.total, column.likely) == (1, 1)
    assert {c.task_a for c in column.cards if c.kind == "pair"} == {"A-1@1"}
