"""The server's API from an agent's machine, on the standard library alone (fast to start).

Every call returns the decoded JSON of a 2xx answer or raises :class:`ServerError` with one
line: the status and the server's ``detail`` (a non-200 is never read as "nothing to say").
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

__all__ = ["ApiClient", "ServerError"]


class ServerError(RuntimeError):
    """The server could not be reached or refused the request; ``status`` 0 when unreachable."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


def quote(segment: str) -> str:
    """A path segment with every reserved character escaped ("/" in agent ids included)."""
    return urllib.parse.quote(segment, safe="")


class ApiClient:
    def __init__(self, server: str, token: str, *, timeout: float = 5.0) -> None:
        self.base = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: object | None = None) -> Any:
        import urllib.error  # imported here: a hook answered locally never loads http.client
        import urllib.request

        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(  # noqa: S310 -- the URL is the configured server
            self.base + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:  # noqa: S310
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise ServerError(f"{method} {path}: {exc.code} {_detail(exc)}", exc.code) from None
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ServerError(f"cannot reach {self.base}: {reason}") from None
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise ServerError(f"{method} {path}: the answer is not JSON") from None

    def check(self, body: dict[str, Any]) -> Any:
        return self.request("POST", "/api/check", body)

    def acknowledge(self, body: dict[str, Any]) -> Any:
        return self.request("POST", "/api/acknowledgements", body)

    def report(self, body: dict[str, Any]) -> Any:
        return self.request("POST", "/api/working-sets", body)

    def agents(self, repository: str) -> Any:
        return self.request("GET", f"/api/repositories/{quote(repository)}/agents")

    def messages(self, repository: str, agent: str) -> Any:
        return self.request(
            "GET", f"/api/repositories/{quote(repository)}/agents/{quote(agent)}/messages"
        )

    def advisories(self, repository: str, agent: str) -> Any:
        query = urllib.parse.urlencode({"repository": repository, "agent": agent, "limit": 50})
        return self.request("GET", f"/api/advisories?{query}")

    def repositories(self) -> Any:
        return self.request("GET", "/api/repositories")

    def declare_task(self, body: dict[str, Any]) -> Any:
        return self.request("POST", "/api/tasks", body)

    def revise_task(self, task_id: str, body: dict[str, Any]) -> Any:
        return self.request("POST", f"/api/tasks/{quote(task_id)}/versions", body)


def _detail(exc: Any) -> str:
    try:
        payload = json.loads(exc.read() or b"{}")
    except ValueError:
        return exc.reason or ""
    if not isinstance(payload, dict):
        return ""
    field = f" (field {payload['field']})" if payload.get("field") else ""
    return f"{payload.get('detail', '')}{field}"
