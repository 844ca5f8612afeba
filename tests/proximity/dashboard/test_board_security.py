"""The board answers with the Django site's security headers and HTTPS redirect."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.handlers.wsgi import WSGIHandler
from werkzeug.test import Client

from proximity.dashboard.mount import BOARD_MIDDLEWARE, mount_board

pytestmark = pytest.mark.django_db

SECURITY_HEADERS = (
    "Strict-Transport-Security",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "X-Frame-Options",
)
DJANGO_PAGE = "/admin/login/"


def _security(response: Any) -> dict[str, str | None]:
    return {name: response.headers.get(name) for name in SECURITY_HEADERS}


@pytest.fixture
def secure_site(site: Client, settings: Any) -> Client:
    """HSTS on; the dispatcher is built after the change, as gunicorn builds it at start-up."""
    settings.SECURE_HSTS_SECONDS = 3600
    return Client(mount_board(WSGIHandler()))


def test_the_header_middleware_is_the_sites_own() -> None:
    assert set(django_settings.MIDDLEWARE) >= BOARD_MIDDLEWARE


@pytest.mark.parametrize("path", ["/board", "/board/", "/board/_dash-layout"])
def test_anonymous_board_responses_carry_the_django_security_headers(
    secure_site: Client, path: str
) -> None:
    expected = _security(secure_site.get(DJANGO_PAGE, base_url="https://testserver"))
    assert all(expected.values()), expected
    response = secure_site.get(path, base_url="https://testserver")
    assert response.status_code in {301, 302, 403}
    assert _security(response) == expected


def test_the_signed_in_board_page_carries_the_django_security_headers(
    secure_site: Client, client: Any, django_user_model: Any
) -> None:
    client.force_login(django_user_model.objects.create_user("viewer", is_staff=True))
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    secure_site.set_cookie(django_settings.SESSION_COOKIE_NAME, cookie, domain="testserver")
    expected = _security(secure_site.get(DJANGO_PAGE, base_url="https://testserver"))
    response = secure_site.get("/board/", base_url="https://testserver")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    assert _security(response) == expected


def test_plain_http_gets_no_hsts_on_the_board_as_on_django(secure_site: Client) -> None:
    assert "Strict-Transport-Security" not in secure_site.get(DJANGO_PAGE).headers
    assert "Strict-Transport-Security" not in secure_site.get("/board/").headers


def test_ssl_redirect_sends_an_http_board_request_to_https(site: Client, settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    secured = Client(mount_board(WSGIHandler()))
    for path in ("/board/_dash-layout?x=1", "/board", DJANGO_PAGE):
        response = secured.get(path, base_url="http://testserver")
        assert response.status_code == 301, path
        assert response.headers["Location"] == f"https://testserver{path}"


def test_ssl_redirect_trusts_the_proxy_header_on_the_board(site: Client, settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    secured = Client(mount_board(WSGIHandler()))
    response = secured.get("/board/", headers={"X-Forwarded-Proto": "https"})
    assert response.status_code == 302  # the login guard, not the HTTPS redirect
    assert response.headers["Location"].startswith(django_settings.LOGIN_URL)


def test_the_wsgi_entry_point_serves_the_board_with_the_security_headers(site: Client) -> None:
    from overlap_site.wsgi import application

    entry = Client(application)
    expected = _security(entry.get(DJANGO_PAGE))
    assert expected["X-Frame-Options"] == "DENY"
    assert _security(entry.get("/board/")) == expected
