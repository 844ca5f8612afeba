"""The dispatching WSGI app driven in-process: Django login cookie in, Dash responses out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from werkzeug.test import Client

from proximity.dashboard.mount import mount_board


@pytest.fixture
def site(db: None) -> Iterator[Client]:
    # As Django's test client does: keep the test transaction's connection across requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield Client(mount_board(WSGIHandler()))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def login(client: Any, site: Client) -> Any:
    def as_user(user: Any) -> Client:
        client.force_login(user)
        site.set_cookie(
            settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value
        )
        return site

    return as_user


def callback(
    site: Client, output: str, inputs: list[dict[str, Any]], state: list | None = None
) -> Any:
    """POST one Dash callback the way the browser's renderer does."""
    outputs = [
        {"id": part.split(".")[0], "property": part.split(".")[1]}
        for part in output.strip(".").split("...")
    ]
    body = {
        "output": output,
        "outputs": outputs if output.startswith("..") else outputs[0],
        "inputs": inputs,
        "state": state or [],
        "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"] if inputs else [],
    }
    return site.post(
        "/board/_dash-update-component", data=json.dumps(body), content_type="application/json"
    )
