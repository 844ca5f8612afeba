"""Blind adjudications as evidence-model training rows (`fit_evidence_model --labels`)."""

from __future__ import annotations

import pytest

from proximity.engine.overlap.evidence import EVIDENCE_FEATURES
from proximity.models import Adjudication
from proximity.services.adjudications import AUTHORIZED_FIELDS, adjudication_record
from proximity.services.evidence_training import adjudicated_rows
from tests.proximity.admin.factories import make_adjudicator, make_pair, make_version

pytestmark = pytest.mark.django_db

TERMS = [
    {"name": "rank.fused", "status": "value", "value": 0.5},
    {"name": "objective.jaccard", "status": "value", "value": 0.25},
    {"name": "acceptance.jaccard", "status": "unknown", "value": 0.0},
]


def _pair(lead, n: int, *, evidence: bool = True):
    a = make_version(f"T-{n}a", lead.principal)
    b = make_version(f"T-{n}b", lead.principal)
    pair = make_pair(a, b)
    if evidence:
        pair.evidence = {"review": {"terms": TERMS}}  # the shape overlap_store writes
        pair.save(update_fields=["evidence"])
    return pair


def _label(pair, user, label):
    return adjudication_record(
        advisory=pair, reviewer=user, label=label, rationale="read both records",
        fields_shown=AUTHORIZED_FIELDS,
    )  # fmt: skip


def test_rows_read_the_terms_a_stored_run_writes(lead, in_process_tasks):
    """The real path: a declared pair's run stores its review terms; a label on it trains."""
    from proximity.models import OverlapAdvisory
    from proximity.services.tasks import TaskDeclaration, task_declare

    for task_id in ("R-1", "R-2"):
        decl = TaskDeclaration(
            scope="team-a", objective="Round refunds half-even", deliverable="rounding patch",
            acceptance=["test_refund_rounding passes"], purpose="implementation",
        )  # fmt: skip
        task_declare(principal=lead.principal, decl=decl, task_id=task_id)
    advisory = OverlapAdvisory.objects.get(version_a__record__task_id="R-2")
    _label(advisory, make_adjudicator("bo", scopes=["team-a"]), "same_task")
    (row,) = adjudicated_rows()
    stored = {t["name"]: t for t in advisory.evidence["review"]["terms"]}
    values = dict(zip(EVIDENCE_FEATURES, row.values, strict=True))
    assert values["rank.fused"] == stored["rank.fused"]["value"] == 1.0
    assert values["objective.jaccard"] == 1.0
    assert row.label is True


def test_blind_decisive_labels_become_rows_with_the_stored_feature_values(lead):
    ann = make_adjudicator("ann", scopes=["team-a"])
    same, distinct, unsure, late, bare = (_pair(lead, n, evidence=n != 4) for n in range(5))
    _label(same, ann, "same_task")
    _label(distinct, ann, "related_distinct")
    _label(unsure, ann, "insufficient_evidence")  # no label at all
    _label(late, ann, "partial_overlap")
    Adjudication.objects.filter(advisory=late).update(blind=False)  # seen others first
    _label(bare, ann, "same_task")  # scored before the evidence model: nothing to learn
    rows = adjudicated_rows()
    assert [(r.candidate_id, r.label) for r in rows] == [
        (str(same.pk), True),
        (str(distinct.pk), False),
    ]
    row = rows[0]
    values = dict(zip(EVIDENCE_FEATURES, row.values, strict=True))
    known = dict(zip(EVIDENCE_FEATURES, row.known, strict=True))
    assert values["objective.jaccard"] == 0.25
    assert known["objective.jaccard"]
    assert not known["acceptance.jaccard"]  # unknown stays unknown (value 0, never negative)
    assert not known["time.gap"]  # not stored: unknown
    assert row.fused_position == 2  # rank.fused = 1/2
    assert rows[0].group != rows[1].group  # one group per pair
