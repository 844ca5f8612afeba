"""The admin as a lead and a reviewer first see it: the desk reachable from the index, model
names spelled as people spell them, the product's own name on every page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.proximity.admin.factories import make_adjudicator

pytestmark = pytest.mark.django_db


def test_the_admin_index_links_the_desk_and_spells_plurals(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    page = client.get(reverse("admin:index")).content.decode()
    assert f'href="{reverse("admin:proximity_overlapadvisory_desk")}">Adjudication desk' in page
    assert "Overlap advisories" in page
    assert "Proximity advisories" in page
    assert "advisorys" not in page.lower()
    assert "Overlap Radar administration" in page
    assert "Django administration" not in page


def test_a_reviewer_finds_the_desk_from_the_index(client):
    client.force_login(make_adjudicator("ann", scopes=["team-a"]))
    page = client.get(reverse("admin:index")).content.decode()
    assert reverse("admin:proximity_overlapadvisory_desk") in page


def test_staff_without_review_rights_get_no_desk_link(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))
    page = client.get(reverse("admin:index")).content.decode()
    assert reverse("admin:proximity_overlapadvisory_desk") not in page
