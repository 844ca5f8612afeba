"""The adjudication desk in the admin: blind queue, labelling form, disagreements, scopes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from proximity.models import Adjudication
from tests.proximity.admin.factories import make_adjudicator, make_pair, make_version

pytestmark = pytest.mark.django_db

QUEUE = "admin:proximity_overlapadvisory_desk"
DISAGREEMENTS = "admin:proximity_overlapadvisory_disagreements"


@pytest.fixture
def pair(lead):
    return make_pair(make_version("T-1", lead.principal), make_version("T-2", lead.principal))


def _label_url(pair):
    return reverse("admin:proximity_overlapadvisory_label", args=[pair.pk])


def test_queue_is_blind_and_shows_both_records(client, pair):
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    page = client.get(reverse(QUEUE)).content.decode()
    assert "T-1@1" in page
    assert "T-2@1" in page
    for secret in ("4242", "4343", "secret_score_feature", "fused"):
        assert secret not in page
    label_page = client.get(_label_url(pair)).content.decode()
    assert "make refunds round half-even" in label_page
    assert "4242" not in label_page
    assert "secret_score_feature" not in label_page


def test_change_page_hides_scores_from_reviewers(client, pair):
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    url = reverse("admin:proximity_overlapadvisory_change", args=[pair.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert "secret_score_feature" not in page.content.decode()


def test_labelling_needs_a_rationale_then_leaves_the_queue(client, pair):
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    refused = client.post(_label_url(pair), {"label": "same_task", "rationale": "  "})
    assert refused.status_code == 200
    assert "This field is required" in refused.content.decode()
    assert not Adjudication.objects.exists()
    done = client.post(_label_url(pair), {"label": "same_task", "rationale": "same output"})
    assert done.status_code == 302
    assert "T-1@1" not in client.get(reverse(QUEUE)).content.decode()


def test_stale_pair_is_marked_and_refuses_a_current_label(client, pair):
    from django.utils import timezone

    pair.version_a.superseded_at = timezone.now()
    pair.version_a.save(update_fields=["superseded_at"])
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    assert "STALE" in client.get(reverse(QUEUE)).content.decode()
    response = client.post(_label_url(pair), {"label": "same_task", "rationale": "looks the same"})
    assert "stale" in response.content.decode()
    assert not Adjudication.objects.exists()


def test_out_of_scope_reviewer_sees_no_pair_and_cannot_label(client, pair):
    client.force_login(make_adjudicator("olga", scopes=["elsewhere"]))
    assert "T-1@1" not in client.get(reverse(QUEUE)).content.decode()
    assert client.get(_label_url(pair)).status_code == 403
    changelist = client.get(reverse("admin:proximity_overlapadvisory_changelist"))
    assert "T-1@1" not in changelist.content.decode()


def test_disagreement_view_lists_both_labels(client, pair):
    for name, label in (("ann", "same_task"), ("bob", "related_distinct")):
        client.force_login(make_adjudicator(name, scopes=["team-a"]))
        client.post(_label_url(pair), {"label": label, "rationale": f"{name} thinks so"})
    page = client.get(reverse(DISAGREEMENTS)).content.decode()
    assert "ann thinks so" in page
    assert "bob thinks so" in page


def test_queue_search_filters_by_task_id(client, lead, pair):
    make_pair(make_version("Z-7", lead.principal), make_version("Z-8", lead.principal))
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    page = client.get(reverse(QUEUE), {"q": "Z-7"}).content.decode()
    assert "Z-7@1" in page
    assert "T-1@1" not in page


def test_staff_without_the_group_cannot_open_the_desk(client, pair, django_user_model):
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))
    assert client.get(reverse(QUEUE)).status_code == 403
    assert client.get(_label_url(pair)).status_code == 403


def test_inspection_lists_are_scoped_to_the_principal(client, lead, pair, django_user_model):
    admin_user = django_user_model.objects.create_superuser("root", password="x")
    client.force_login(admin_user)  # a superuser without a principal sees no records
    assert (
        "T-1@1"
        not in client.get(reverse("admin:proximity_taskversion_changelist")).content.decode()
    )
    lead.principal.user = admin_user
    lead.principal.save(update_fields=["user"])
    page = client.get(reverse("admin:proximity_overlapadvisory_change", args=[pair.pk]))
    assert "secret_score_feature" in page.content.decode()  # superusers may inspect scores
