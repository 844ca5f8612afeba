"""Tokens are stored hashed and revocable; reports and token checks are rate limited; the
production settings pass ``manage.py check --deploy``."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from proximity.models import ApiToken
from tests.factories import make_repository, working_set

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def _issue(*args: str) -> str:
    out = StringIO()
    call_command("tokens", "issue", *args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def test_issued_token_is_stored_only_as_its_digest(client) -> None:
    raw = _issue("ci-bot", "--scope", "team-a", "--label", "ci")
    assert raw.startswith("orad_")
    assert client.get("/api/repositories", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    stored = ApiToken.objects.get()
    columns = [str(v) for v in ApiToken.objects.values().get().values()]
    assert raw not in columns
    assert not any(raw[12:] in c for c in columns)  # no part beyond the shown prefix
    assert len(stored.digest) == 64
    assert stored.prefix == raw[:12]


def test_revoked_token_gets_401_and_others_still_work(client) -> None:
    first = _issue("ci-bot", "--scope", "team-a")
    second = _issue("ci-bot")
    out = StringIO()
    call_command("tokens", "revoke", first[:12], stdout=out)
    assert "revoked" in out.getvalue()
    refused = client.get("/api/repositories", HTTP_AUTHORIZATION=f"Bearer {first}")
    assert refused.status_code == 401
    assert refused.json() == {
        "detail": "missing, unknown or revoked token",
        "field": "Authorization",
    }
    assert client.get("/api/repositories", HTTP_AUTHORIZATION=f"Bearer {second}").status_code == 200
    listing = StringIO()
    call_command("tokens", "list", "ci-bot", stdout=listing)
    assert listing.getvalue().count("revoked") == 1
    assert first not in listing.getvalue()


def test_reports_over_the_per_token_rate_get_429_with_the_error_shape(
    lead, partial, post_json, settings
) -> None:
    settings.OVERLAP_REPORT_RATE = "5/min"
    make_repository("web", scope="team-a")
    codes = [
        post_json("/api/working-sets", working_set("web", "a1", [{"path": f"f{n}.py"}]), lead)
        for n in range(7)
    ]
    assert [r.status_code for r in codes] == [201] * 5 + [429] * 2
    assert codes[-1].json() == {"detail": "too many requests, slow down", "field": None}
    assert int(codes[-1]["Retry-After"]) >= 1
    # Another token is counted on its own.
    body = working_set("web", "p1", [{"path": "g.py"}])
    assert post_json("/api/working-sets", body, partial).status_code == 201


def test_guessing_tokens_is_rate_limited_per_address(client, lead, settings) -> None:
    settings.OVERLAP_AUTH_FAILURE_RATE = "3/min"
    address = f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    codes = [
        client.get(
            "/api/repositories", HTTP_AUTHORIZATION=f"Bearer guess{n}", REMOTE_ADDR=address
        ).status_code
        for n in range(5)
    ]
    assert codes == [401, 401, 401, 429, 429]
    # A valid token from the same address is not locked out.
    ok = client.get("/api/repositories", REMOTE_ADDR=address, **lead.headers)
    assert ok.status_code == 200


def test_session_and_csrf_cookies_are_safe_by_default(settings) -> None:
    assert settings.SESSION_COOKIE_HTTPONLY is True
    assert "django.middleware.csrf.CsrfViewMiddleware" in settings.MIDDLEWARE
    assert settings.CSRF_COOKIE_SAMESITE in {"Lax", "Strict"}
    assert settings.SESSION_COOKIE_SAMESITE in {"Lax", "Strict"}
    assert settings.X_FRAME_OPTIONS in {"DENY", "SAMEORIGIN"}


def test_the_admin_login_form_refuses_a_post_without_csrf_token() -> None:
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/admin/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403


def _production_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="overlap_site.settings.production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
        DJANGO_ALLOWED_HOSTS="radar.example.org",
    )
    env.update(extra)
    return env


def test_check_deploy_is_clean_with_production_settings() -> None:
    result = subprocess.run(  # fixed argument list, no shell
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=_production_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_a_short_secret_key() -> None:
    result = subprocess.run(  # fixed argument list, no shell
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=_production_env(DJANGO_SECRET_KEY="short"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_production_cookies_are_secure_and_http_only() -> None:
    code = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY, "
        "s.SECURE_HSTS_SECONDS > 0, s.DEBUG)"
    )
    result = subprocess.run(  # fixed argument list, no shell
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=_production_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.split() == ["True", "True", "True", "True", "False"]


def test_a_forged_forwarded_for_header_does_not_escape_the_failure_limit(client, settings) -> None:
    settings.OVERLAP_AUTH_FAILURE_RATE = "3/min"
    address = f"10.8.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    codes = [
        client.get(
            "/api/repositories",
            HTTP_AUTHORIZATION=f"Bearer guess{n}",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",
            REMOTE_ADDR=address,
        ).status_code
        for n in range(6)
    ]
    assert codes == [401, 401, 401, 429, 429, 429]


def test_task_declarations_are_rate_limited_per_token(lead, post_json, settings) -> None:
    settings.OVERLAP_REPORT_RATE = "2/min"
    body = {
        "scope": "team-a",
        "objective": "Add CSV export to the report page",
        "deliverable": "an export button and its endpoint",
        "acceptance": ["a test passes"],
    }
    codes = [post_json("/api/tasks", body, lead).status_code for _ in range(3)]
    assert codes == [201, 201, 429]
