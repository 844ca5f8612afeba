"""The server's API from an agent's machine, on the standard library alone (fast to start).

Every call returns the decoded JSON of a 2xx answer or raises :class:`ServerError` with one
line: the status and the server's ``detail`` (a non-200 is never read as "nothing to say").
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from typing import Any

from proximity.agent.errors import ServerError

__all__ = ["ApiClient", "ServerError"]


def quote(segment: str) -> str:
    """A path segment with every reserved character escaped ("/" in agent ids included)."""
    return urllib.parse.quote(segment, safe="")


class ApiClient:
    def __init__(self, server: str, token: str, *, timeout: float = 5.0) -> None:
        self.base = server.rstrip("/")
        self.token = token
        self.timeout = timeout
        self._url = urllib.parse.urlsplit(self.base)

    def _connection(self) -> http.client.HTTPConnection:
        parts = self._url
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ServerError(f"server {self.base!r}: expected http(s)://host[:port]")
        if parts.scheme == "https":
            return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=self.timeout)
        return http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)

    def request(self, method: str, path: str, body: object | None = None) -> Any:
        # http.client, not urllib.request: the hook pays every import on every edit, and
        # urllib.request adds proxy discovery, cookies and the mail parser it never needs.
        data = None if body is None else json.dumps(body).encode("utf-8")
        prefix = self._url.path.rstrip("/")
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        connection = self._connection()
        try:
            connection.request(method, prefix + path, body=data, headers=headers)
            response = connection.getresponse()
            status, raw = response.status, response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise ServerError(f"cannot reach {self.base}: {exc}") from None
        finally:
            connection.close()
        if not 200 <= status < 300:
            raise ServerError(f"{method} {path}: {status} {_detail(raw)}", status)
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

    def leave(self, repository: str, agent: str) -> Any:
        return self.request(
            "DELETE",
            f"/api/repositories/{quote(repository)}/agents/{quote(agent)}/working-set",
        )

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


def _detail(raw: bytes) -> str:
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:
        return " ".join(raw[:200].decode("utf-8", "replace").split())
    if not isinstance(payload, dict):
        return ""
    field = f" (field {payload['field']})" if payload.get("field") else ""
    return f"{payload.get('detail', '')}{field}"
