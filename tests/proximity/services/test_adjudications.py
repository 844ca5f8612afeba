"""Labelling overlap pairs: required rationale, stale pairs, scopes, several reviewers, roles."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError
from django.utils import timezone

from proximity.exceptions import ConflictError, InvalidInputError, NotFoundError
from proximity.models import Adjudication
from proximity.selectors.adjudications import (
    AUTHORIZED_FIELDS,
    adjudication_queue,
    disagreement_list,
)
from proximity.services.adjudications import (
    ADJUDICATORS_GROUP,
    adjudication_record,
    adjudicators_group_setup,
)
from tests.proximity.admin.factories import make_adjudicator, make_pair, make_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(lead):
    a = make_version("T-1", lead.principal)
    b = make_version("T-2", lead.principal)
    return make_pair(a, b)


def _label(pair, user, label="same_task", rationale="same deliverable and acceptance test"):
    return adjudication_record(
        advisory=pair,
        reviewer=user,
        label=label,
        rationale=rationale,
        fields_shown=AUTHORIZED_FIELDS,
    )


def test_label_is_stored_with_both_versions_and_fields_shown(pair):
    user = make_adjudicator("ann", scopes=["team-a"])
    adj = _label(pair, user)
    assert (adj.label, adj.version_a, adj.version_b, adj.blind) == ("same_task", 1, 1, True)
    assert adj.fields_shown == list(AUTHORIZED_FIELDS)


@pytest.mark.parametrize("rationale", ["", "   \n "])
def test_blank_rationale_is_refused_naming_the_field(pair, rationale):
    user = make_adjudicator("ann", scopes=["team-a"])
    with pytest.raises(InvalidInputError) as err:
        _label(pair, user, rationale=rationale)
    assert err.value.field == "rationale"
    assert not Adjudication.objects.exists()


def test_database_refuses_an_empty_rationale_too(pair):
    user = make_adjudicator("ann", scopes=["team-a"])
    with pytest.raises(IntegrityError):
        Adjudication.objects.create(
            advisory=pair,
            reviewer=user,
            label="same_task",
            rationale="",
            version_a=1,
            version_b=1,
            created_at=timezone.now(),
        )


def test_unknown_label_is_refused(pair):
    user = make_adjudicator("ann", scopes=["team-a"])
    with pytest.raises(InvalidInputError) as err:
        _label(pair, user, label="duplicate")
    assert err.value.field == "label"


def test_stale_pair_accepts_only_insufficient_evidence(pair):
    user = make_adjudicator("ann", scopes=["team-a"])
    pair.version_b.superseded_at = timezone.now()
    pair.version_b.save(update_fields=["superseded_at"])
    with pytest.raises(ConflictError) as err:
        _label(pair, user, label="same_task")
    assert err.value.field == "label"
    assert _label(pair, user, label="insufficient_evidence").label == "insufficient_evidence"
    assert adjudication_queue(user) == []


def test_reviewer_outside_either_scope_cannot_label(lead):
    hidden = make_pair(
        make_version("T-1", lead.principal), make_version("T-9", lead.principal, scope="team-b")
    )
    user = make_adjudicator("ann", scopes=["team-a"])
    with pytest.raises(NotFoundError):
        _label(hidden, user)
    assert adjudication_queue(user) == []


def test_disclosure_label_needs_clearance(lead):
    secret = make_version("T-5", lead.principal, disclosure=["internal"])
    pair = make_pair(make_version("T-1", lead.principal), secret)
    plain = make_adjudicator("ann", scopes=["team-a"])
    cleared = make_adjudicator("bob", scopes=["team-a"], clearances=["internal"])
    assert adjudication_queue(plain) == []
    assert [i.advisory_id for i in adjudication_queue(cleared)] == [pair.pk]


def test_user_without_principal_sees_an_empty_queue(pair, django_user_model):
    user = django_user_model.objects.create_user("nobody", is_staff=True)
    assert adjudication_queue(user) == []
    with pytest.raises(NotFoundError):
        _label(pair, user)


def test_one_label_per_reviewer_but_several_reviewers_keep_disagreement(pair):
    ann = make_adjudicator("ann", scopes=["team-a"])
    bob = make_adjudicator("bob", scopes=["team-a"])
    _label(pair, ann, label="same_task")
    with pytest.raises(ConflictError):
        _label(pair, ann, label="related_distinct")
    assert [i.advisory_id for i in adjudication_queue(bob)] == [pair.pk]
    assert adjudication_queue(ann) == []
    assert disagreement_list(ann) == []
    _label(pair, bob, label="related_distinct", rationale="different deliverables")
    [row] = disagreement_list(ann)
    assert sorted(x["label"] for x in row.labels) == ["related_distinct", "same_task"]


def test_queue_items_carry_no_scores(pair):
    user = make_adjudicator("ann", scopes=["team-a"])
    [item] = adjudication_queue(user)
    text = repr(item)
    assert "4242" not in text
    assert "secret_score_feature" not in text
    assert "fused" not in text
    assert item.a["task_id"] == "T-1"
    assert item.b["task_id"] == "T-2"


def test_adjudicators_group_has_exactly_the_needed_permissions():
    Group.objects.create(name=ADJUDICATORS_GROUP)
    group = adjudicators_group_setup()
    perms = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
    assert perms == {
        "proximity.view_overlapadvisory",
        "proximity.view_taskversion",
        "proximity.add_adjudication",
    }
    assert adjudicators_group_setup().permissions.count() == 3  # idempotent
