"""The shell serves real pages: health, API docs, admin."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_health_page_lists_every_check(client: Client) -> None:
    response = client.get("/health/")
    body = response.content.decode()
    critical = 'status-critical">critical</span>' in body
    assert response.status_code == (503 if critical else 200)
    for name in ("database", "migrations", "broker", "workers", "embedding-model", "git"):
        assert f"<td>{name}</td>" in body


def test_health_api_returns_checks_as_json(client: Client) -> None:
    payload = client.get("/api/health").json()
    assert {c["name"] for c in payload["checks"]} >= {"database", "git"}
    assert payload["status"] in {"ok", "warn", "critical"}


def test_openapi_docs_are_served(client: Client) -> None:
    assert client.get("/api/docs").status_code == 200
    schema = client.get("/api/openapi.json").json()
    assert schema["info"]["title"] == "Overlap Radar API"
    assert "/api/health" in schema["paths"]


def test_admin_login_page_is_served(client: Client) -> None:
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert b'name="username"' in response.content
    assert b'name="password"' in response.content
