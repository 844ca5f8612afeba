"""Throttles that hold (issue 31, item 7): one budget per token whatever the header's spelling,
and the failed-token limit still counts while Redis is down (in the process, not failing open).

The Redis-down cases use a real Redis client aimed at a port nobody listens on.
"""

from __future__ import annotations

import secrets
import socket

import pytest

from tests.factories import file_entry, make_repository, working_set

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # released on close: nothing listens there


@pytest.fixture
def redis_down(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
            "KEY_PREFIX": f"down-{secrets.token_hex(4)}",
        }
    }


def _post(client, body, authorization: str):
    import json

    return client.post(
        "/api/working-sets",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=authorization,
    )


def test_the_case_of_bearer_does_not_buy_another_budget(lead, client, settings) -> None:
    settings.OVERLAP_REPORT_RATE = "4/min"
    make_repository("web", scope="team-a")
    spellings = ["Bearer", "bearer", "BEARER", "bEaReR", "BeArEr", "beareR", "BEarer", "bearER"]
    codes = []
    for n, scheme in enumerate(spellings):
        body = working_set("web", "a1", [file_entry(f"f{n}.py")])
        codes.append(_post(client, body, f"{scheme} {lead.token}").status_code)
    assert codes == [201] * 4 + [429] * 4


def test_failed_token_checks_are_still_limited_while_redis_is_down(
    client, settings, redis_down
) -> None:
    settings.OVERLAP_AUTH_FAILURE_RATE = "3/min"
    address = f"10.31.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    codes = [
        client.get(
            "/api/repositories",
            HTTP_AUTHORIZATION=f"Bearer orad_guess{n}",
            REMOTE_ADDR=address,
        ).status_code
        for n in range(5)
    ]
    assert codes == [401] * 3 + [429] * 2


def test_reports_are_still_stored_and_limited_while_redis_is_down(
    lead, client, settings, redis_down
) -> None:
    settings.OVERLAP_REPORT_RATE = "3/min"
    make_repository("web", scope="team-a")
    codes = [
        _post(client, working_set("web", "a1", [file_entry(f"f{n}.py")]), f"Bearer {lead.token}")
        for n in range(4)
    ]
    assert [r.status_code for r in codes] == [201] * 3 + [429]
