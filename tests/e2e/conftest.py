"""Browser tier: the dispatching WSGI app on a loopback port, and Debian's headless Chromium.

pytest-django's ``live_server`` serves ``StaticFilesHandler(WSGIHandler())`` only, which cannot
reach the Dash app under /board/, so this serves the same dispatcher as gunicorn and runserver.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.handlers.wsgi import WSGIHandler
from django.db import connections
from werkzeug.serving import make_server

from proximity.dashboard.mount import mount_board
from tests.conftest import IN_CI

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def chromium_executable() -> str:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if found is None:
        message = "browser test needs Debian's chromium: apt-get install -y chromium"
        if IN_CI:
            pytest.fail(message)  # CI installs it (.ci/run): a missing browser is a failure there
        pytest.skip(message)
    return found


def _closing_connections(app: Any) -> Any:
    # Server threads must not keep connections open: the test database is flushed and dropped.
    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        result = app(environ, start_response)
        try:
            return list(result)
        finally:
            if hasattr(result, "close"):
                result.close()  # Django's request_finished fires here
            connections.close_all()

    return wrapped


@pytest.fixture
def board_server(transactional_db: None) -> Iterator[str]:
    app = _closing_connections(mount_board(StaticFilesHandler(WSGIHandler())))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    server.daemon_threads = False  # server_close() then waits for requests still running
    thread = threading.Thread(target=server.serve_forever, name="board-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def browser_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    executable = chromium_executable()
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop on this thread; the test's own ORM calls are
    # sequential with it, which is what Django's async-safety check cannot see.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1680, "height": 1050},
        )
        try:
            yield context
        finally:
            context.close()
            # ORM calls made while Playwright's loop ran may hold their own connections.
            connections.close_all()


@pytest.fixture
def page(browser_context: Any) -> Any:
    page = browser_context.pages[0] if browser_context.pages else browser_context.new_page()
    page.set_default_timeout(20_000)
    return page


def log_in(page: Any, server: str, username: str, password: str, next_url: str = "/board/") -> None:
    page.goto(f"{server}/admin/login/?next={next_url}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(f"{server}{next_url}")
