"""The blind desk: no other reviewer's label or rationale before one's own, and honest blindness.

Driven through the admin pages with the Django test client, as reviewers use them.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from proximity.models import Adjudication, Principal
from tests.proximity.admin.factories import make_adjudicator, make_pair, make_version

pytestmark = pytest.mark.django_db

QUEUE = "admin:proximity_overlapadvisory_desk"
DISAGREEMENTS = "admin:proximity_overlapadvisory_disagreements"


def _label(client: Any, pair: Any, label: str, rationale: str) -> None:
    url = reverse("admin:proximity_overlapadvisory_label", args=[pair.pk])
    assert client.post(url, {"label": label, "rationale": rationale}).status_code == 302


@pytest.fixture
def pairs(lead):
    first = make_pair(make_version("T-1", lead.principal), make_version("T-2", lead.principal))
    second = make_pair(make_version("T-3", lead.principal), make_version("T-4", lead.principal))
    return first, second


def _pages(client: Any, pair: Any) -> str:
    """Every desk page a reviewer can open about a pair, and the advisory's own pages."""
    urls = [
        reverse(QUEUE),
        reverse(DISAGREEMENTS),
        reverse("admin:proximity_overlapadvisory_label", args=[pair.pk]),
        reverse("admin:proximity_overlapadvisory_change", args=[pair.pk]),
        reverse("admin:proximity_overlapadvisory_changelist"),
    ]
    answers = [client.get(url) for url in urls]
    assert [a.status_code for a in answers] == [200] * len(urls)
    return "".join(a.content.decode() for a in answers)


def test_others_labels_never_show_before_ones_own(client, pairs):
    first, _ = pairs
    for name, label in (("bob", "related_distinct"), ("cyd", "same_task")):
        client.force_login(make_adjudicator(name, scopes=["team-a"]))
        _label(client, first, label, f"{name.upper()}RATIONALE")
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    seen = _pages(client, first)
    for secret in ("BOBRATIONALE", "CYDRATIONALE", "related_distinct</strong>", "by bob"):
        assert secret not in seen
    # Once ann has labelled, the disagreement is hers to see, with every label.
    _label(client, first, "partial_overlap", "ANNRATIONALE")
    after = client.get(reverse(DISAGREEMENTS)).content.decode()
    assert all(r in after for r in ("BOBRATIONALE", "CYDRATIONALE", "ANNRATIONALE"))


def test_disagreements_list_only_pairs_the_viewer_labelled(client, pairs):
    first, second = pairs
    client.force_login(make_adjudicator("bob", scopes=["team-a"]))
    _label(client, first, "related_distinct", "bob on the first")
    _label(client, second, "same_task", "bob on the second")
    client.force_login(make_adjudicator("cyd", scopes=["team-a"]))
    _label(client, second, "partial_overlap", "cyd on the second")
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    _label(client, first, "same_task", "ann on the first")
    page = client.get(reverse(DISAGREEMENTS)).content.decode()
    assert f'data-advisory="{first.pk}"' in page
    assert f'data-advisory="{second.pk}"' not in page  # a disagreement ann has not joined
    assert "bob on the second" not in page
    assert "1 pair(s) with disagreement" in page


def _admin_reviewer(django_user_model: Any, lead: Any) -> Any:
    """A superuser linked to a principal of team-a: the Adjudication admin lists all labels."""
    root = django_user_model.objects.create_superuser("root", password="x")
    Principal.objects.create(name="root", user=root, scopes=["team-a"])
    return root


def test_a_label_given_after_others_could_be_read_is_not_blind(
    client, pairs, lead, django_user_model
):
    first, second = pairs
    client.force_login(make_adjudicator("bob", scopes=["team-a"]))
    _label(client, first, "related_distinct", "BOBRATIONALE")
    root = _admin_reviewer(django_user_model, lead)
    client.force_login(root)
    listing = client.get(reverse("admin:proximity_adjudication_changelist")).content.decode()
    assert "Related Distinct" in listing  # bob's label, there to be read before labelling
    _label(client, first, "same_task", "root after reading bob's")
    _label(client, second, "same_task", "root first on this pair")
    blind = dict(Adjudication.objects.values_list("rationale", "blind"))
    assert blind == {
        "BOBRATIONALE": True,
        "root after reading bob's": False,
        "root first on this pair": True,  # nobody else's label existed to be read
    }


def test_a_reviewer_who_cannot_read_others_labels_stays_blind(client, pairs):
    first, _ = pairs
    client.force_login(make_adjudicator("bob", scopes=["team-a"]))
    _label(client, first, "related_distinct", "bob's")
    ann = make_adjudicator("ann", scopes=["team-a"])
    client.force_login(ann)
    # The adjudicators group holds no view permission on labels: the list is closed to ann.
    assert client.get(reverse("admin:proximity_adjudication_changelist")).status_code == 403
    _label(client, first, "same_task", "ann's")
    assert Adjudication.objects.get(reviewer=ann).blind is True
