"""Every page's implicit ``/favicon.ico`` request is answered, not a 404 (issue 27, point 8)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_is_served_as_an_image_anyone_may_fetch(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")
    assert "max-age" in response["Cache-Control"]
