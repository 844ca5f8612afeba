"""The principal admin takes scopes as a list a person types, not JSON (issue 27, point 2)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from proximity.models import Principal

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_logged(client) -> Any:
    client.force_login(get_user_model().objects.create_superuser("root", password="x-123456789"))
    return client


def _post(client: Any, **fields: Any) -> Any:
    form = {"name": "dana", "kind": "human", "user": "", "scopes": "", "clearances": ""}
    return client.post(reverse("admin:proximity_principal_add"), {**form, **fields})


def test_scopes_typed_as_a_comma_and_line_separated_list_are_stored_as_a_list(
    admin_client_logged,
) -> None:
    dana = get_user_model().objects.create_user("dana")
    response = _post(
        admin_client_logged,
        user=str(dana.pk),
        scopes="invkit-team, payments\nops",
        lead_scopes="invkit-team",
        is_active="on",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    principal = Principal.objects.get(name="dana")
    assert principal.scopes == ["invkit-team", "ops", "payments"]
    assert principal.lead_scopes == ["invkit-team"]
    assert principal.user == dana


def test_a_single_scope_without_json_is_accepted(admin_client_logged) -> None:
    assert _post(admin_client_logged, scopes="invkit-team", is_active="on").status_code == 302
    assert Principal.objects.get(name="dana").scopes == ["invkit-team"]


def test_the_change_form_shows_the_stored_list_as_text(admin_client_logged) -> None:
    principal = Principal.objects.create(name="dana", scopes=["a-team", "b-team"])
    page = admin_client_logged.get(reverse("admin:proximity_principal_change", args=[principal.pk]))
    assert "a-team, b-team" in page.content.decode()


def test_a_scope_with_a_blank_is_refused_naming_it_and_nothing_is_stored(
    admin_client_logged,
) -> None:
    response = _post(admin_client_logged, scopes="invkit team")
    assert response.status_code == 200
    assert "&#x27;invkit team&#x27; is not a scope" in response.content.decode()
    assert not Principal.objects.exists()
