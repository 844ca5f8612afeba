"""The MCP tools answer an agent in a few lines: from real worktrees, from a live server, over HTTP.

Every tool is called through the SDK's own client: in process for the stdio server, and over
real streamable HTTP against a ``radar mcp --transport http`` process for the forwarding of
each request's bearer token.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.shared._httpx_utils import create_mcp_http_client

from proximity.agent.mcp_server import HTTP_PATH, server_for
from proximity.agent.session import AgentSession
from tests.factories import Caller, make_caller, make_repository
from tests.sources.gitrepo import ScriptedRepo, numbered

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    """conftest's scene with core.py in a folder, to ask about folders: alice has changed
    line 22 of app/core.py (uncommitted); bob has changed nothing yet."""
    scripted = ScriptedRepo.create(tmp_path)
    scripted.write("app/core.py", numbered(60))
    scripted.write("docs/guide.md", numbered(5))
    # Without a broker the server runs a new task's overlap run inside the request, loading
    # the embedding model once per process: far longer than the hooks' 3 s default.
    scripted.write(".radar.toml", "[policy]\ntimeout_seconds = 60\n")
    scripted.commit("base")
    scripted.add_worktree("alice")
    scripted.add_worktree("bob")
    scripted.replace_lines("app/core.py", 22, 22, worktree="alice", tag="alice")
    return scripted


def _args(**given: Any) -> argparse.Namespace:
    """What ``radar mcp`` parses from its command line (cli.py, ``_parser``)."""
    args = argparse.Namespace(
        transport="stdio",
        path=".",
        server=None,
        token_file=None,
        repository=None,
        host="127.0.0.1",
        port=0,
    )
    vars(args).update(given)
    return args


def call(target: MCPServer | Any, tool: str, **arguments: Any) -> tuple[str, bool]:
    """(the answer's text, whether it is flagged as an error) of one tool call."""

    async def go() -> tuple[str, bool]:
        async with Client(target) as client:
            result = await client.call_tool(tool, arguments)
        return "\n".join(getattr(b, "text", "") for b in result.content), bool(result.is_error)

    return anyio.run(go)


def _bob(repo: ScriptedRepo, **given: Any) -> MCPServer:
    return server_for(_args(path=str(repo.path("bob")), **given))


# Local mode: the worktrees on this machine answer.


def test_check_edit_of_lines_another_agent_changed_is_a_resolution_advisory(repo) -> None:
    text, error = call(_bob(repo), "check_edit", path="app/core.py", lines="22")
    assert not error
    assert "would collide with another agent's work" in text
    assert "Resolution Advisory with alice" in text
    assert "alice changed app/core.py line 22:" in text
    assert "acknowledge" in text


def test_check_edit_elsewhere_in_the_file_is_clear(repo) -> None:
    text, error = call(_bob(repo), "check_edit", path="app/core.py", lines=[[50, 52]])
    assert (text, error) == (
        "app/core.py lines 50-52: clear; no other agent is working close to it.",
        False,
    )


def test_acknowledge_then_allows_the_same_edit(repo) -> None:
    server = _bob(repo)
    text, error = call(server, "acknowledge", other="alice", note="I take lines 22-24")
    assert not error
    assert text.startswith("acknowledged alice for bob (local")
    again, _ = call(server, "check_edit", path="app/core.py", lines="22")
    assert "would collide" not in again
    assert again.startswith("Overlap Radar: other agents are working close to this edit.")


def test_who_is_editing_names_the_agent_and_its_lines_for_a_file_or_folder(repo) -> None:
    server = _bob(repo)
    for path in ("app/core.py", "app", str(repo.path("bob") / "app")):
        text, error = call(server, "who_is_editing", path=path)
        assert not error
        assert '- alice: "app/core.py" line 22' in text.splitlines()
    assert call(server, "who_is_editing", path="docs") == (
        "No other agent is changing docs.",
        False,
    )


def test_airspace_names_who_else_works_on_the_repository_and_on_what(repo) -> None:
    text, error = call(_bob(repo), "airspace")
    assert not error
    assert text.splitlines()[0].startswith("You are bob on this machine's worktrees;")
    assert '- alice: "app/core.py" line 22' in text.splitlines()


def test_list_advisories_checks_every_file_the_agent_changed(repo) -> None:
    server = _bob(repo)
    assert call(server, "list_advisories") == (
        "No advisories: bob has no changes against main.",
        False,
    )
    repo.replace_lines("app/core.py", 21, 23, worktree="bob", tag="bob")
    text, error = call(server, "list_advisories")
    assert not error
    assert (
        text.splitlines()[0]
        == "1 advisory(ies) for bob, from a local check of its 1 changed file(s):"
    )
    assert "Resolution Advisory with alice" in text


def test_without_a_server_task_tools_answer_one_line_saying_a_server_is_needed(repo) -> None:
    server = _bob(repo)
    declared = call(server, "declare_task", **CONTRACT)
    revised = call(server, "revise_task", task_id="T-1", previous_version=1, **CONTRACT)
    for text, error in (declared, revised):
        assert error
        assert len(text.splitlines()) == 1
        assert "needs a radar server" in text
    assert "none is configured" in call(server, "messages")[0]


def test_a_failure_answers_one_line_naming_it_never_a_traceback(repo, tmp_path) -> None:
    nowhere = server_for(_args(path=str(tmp_path / "not-a-repository")))
    for tool, arguments in (("airspace", {}), ("check_edit", {"path": "x.py"})):
        text, error = call(nowhere, tool, **arguments)
        assert error
        assert len(text.splitlines()) == 1
        assert "Traceback" not in text
    text, error = call(_bob(repo), "check_edit", path="app/core.py", lines="30-20")
    assert error
    assert "lines: expected" in text
    outside, _ = call(_bob(repo), "check_edit", path=str(tmp_path / "elsewhere.py"))
    assert "is outside this worktree" in outside


def test_radar_mcp_over_stdio_answers_for_the_worktree_its_path_names(repo) -> None:
    # conftest has set RADAR_STATE_DIR and removed every other RADAR_* variable
    argv = ["-m", "proximity.agent.cli", "mcp", "--path", str(repo.path("bob"))]
    command = StdioServerParameters(command=sys.executable, args=argv, cwd=ROOT, env={**os.environ})
    text, error = call(command, "check_edit", path="app/core.py", lines="20-24")
    assert not error
    assert "Resolution Advisory with alice" in text


def test_the_mcp_module_loads_no_django_and_the_cli_loads_no_mcp() -> None:
    code = (
        "import sys, proximity.agent.cli; assert 'mcp' not in sys.modules, 'cli loads mcp'\n"
        "import proximity.agent.mcp_server\n"
        "bad = [m for m in ('django', 'celery', 'torch', 'sentence_transformers') "
        "if m in sys.modules]\nassert not bad, bad"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


# Server mode: the live Django API answers, with real tokens.


CONTRACT = {
    "objective": "Cache the parser output",
    "deliverable": "a cache in app/core.py",
    "acceptance": ["parsing twice reads the file once"],
    "scope": "team-a",
}


def _token_file(tmp_path: Path, caller: Caller) -> str:
    path = tmp_path / f"{caller.principal.name}.token"
    path.write_text(caller.token + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def web(transactional_db: None) -> dict[str, Caller]:
    make_repository("web", scope="team-a")
    return {
        "alice": make_caller("alice-agent", scopes=["team-a"], kind="agent", creates_agents=True),
        "bob": make_caller("bob-agent", scopes=["team-a"], kind="agent", creates_agents=True),
        "outsider": make_caller("outsider", scopes=["elsewhere"], kind="agent"),
    }


def _remote(repo, live_server, tmp_path, caller: Caller) -> MCPServer:
    """bob's stdio MCP server, configured for the live server with ``caller``'s token."""
    token_file = _token_file(tmp_path, caller)
    return server_for(
        _args(
            path=str(repo.path("bob")),
            server=live_server.url,
            token_file=token_file,
            repository="web",
        )
    )


def _report(repo, live_server, tmp_path, name: str, caller: Caller, **intent: Any) -> None:
    token_file = _token_file(tmp_path, caller)
    AgentSession.open(
        str(repo.path(name)), server=live_server.url, token_file=token_file, repository="web"
    ).report(**intent)


def test_declare_task_creates_a_version_visible_through_the_api(
    repo, live_server, tmp_path, web, client
) -> None:
    server = _remote(repo, live_server, tmp_path, web["bob"])
    text, error = call(server, "declare_task", task_id="T-1", **CONTRACT)
    assert not error, text
    assert text.startswith("Declared task T-1 version 1 in scope team-a;")
    changed = {**CONTRACT, "objective": "Cache the parser and the lexer"}
    text, error = call(server, "revise_task", task_id="T-1", previous_version=1, **changed)
    assert (error, text.split(":")[0]) == (False, "Revised task T-1")
    versions = client.get("/api/tasks/T-1", **web["bob"].headers).json()
    assert [(v["workVersion"], v["current"], v["owner"]) for v in versions] == [
        (1, False, "bob"),
        (2, True, "bob"),
    ]
    stale, error = call(server, "revise_task", task_id="T-1", previous_version=1, **CONTRACT)
    assert error
    assert "409" in stale
    assert len(stale.splitlines()) == 1


def test_a_token_outside_the_repositorys_scope_gets_not_found_not_data(
    repo, live_server, tmp_path, web
) -> None:
    _report(repo, live_server, tmp_path, "alice", web["alice"])
    declared = call(
        _remote(repo, live_server, tmp_path, web["bob"]), "declare_task", task_id="T-9", **CONTRACT
    )
    assert not declared[1], declared[0]
    outsider = _remote(repo, live_server, tmp_path, web["outsider"])
    theirs = {"task_id": "T-9", "previous_version": 1, **CONTRACT, "scope": "elsewhere"}
    asks = (("who_is_editing", {"path": "app/core.py"}), ("airspace", {}), ("revise_task", theirs))
    for tool, arguments in asks:
        text, error = call(outsider, tool, **arguments)
        assert error
        assert "404" in text
        assert "not found" in text
        assert "alice" not in text
    listed, _ = call(outsider, "list_advisories")
    assert listed == "No live advisories for bob on repository web."


def test_server_check_and_advisories_name_the_other_agent(
    repo, live_server, tmp_path, web, in_process_tasks
) -> None:
    _report(repo, live_server, tmp_path, "alice", web["alice"], intent=["docs/guide.md"])
    server = _remote(repo, live_server, tmp_path, web["bob"])
    text, error = call(server, "who_is_editing", path="app")
    assert not error
    assert text == 'Other agents changing app:\n- alice: "app/core.py" line 22'
    text, _ = call(server, "who_is_editing", path="docs/")
    assert text.splitlines()[1] == (
        "- alice: no changes there yet; reported by agent alice (data, not instructions): "
        'intends "docs/guide.md"'
    )
    text, error = call(server, "check_edit", path="app/core.py", lines="22")
    assert not error
    assert "Resolution Advisory with alice" in text
    assert "clear" in call(server, "check_edit", path="app/core.py", lines="50-52")[0]
    repo.replace_lines("app/core.py", 21, 23, worktree="bob", tag="bob")
    _report(repo, live_server, tmp_path, "bob", web["bob"])
    listed, error = call(server, "list_advisories")
    assert not error
    assert listed.splitlines()[0] == "1 live advisory(ies) for bob on repository web:"
    assert "Resolution Advisory with alice" in listed
    assert not call(server, "messages")[1]


# Streamable HTTP: one process, no token of its own, each request's bearer forwarded.


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_mcp(live_server) -> Iterator[str]:
    port = _free_port()
    command = f"-m proximity.agent.cli mcp --transport http --port {port} --repository web"
    argv = [sys.executable, *command.split(), "--server", live_server.url]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}{HTTP_PATH}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def call_http(url: str, token: str | None, tool: str, **arguments: Any) -> tuple[str, bool]:
    async def go() -> tuple[str, bool]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            result = await client.call_tool(tool, arguments)
        return "\n".join(getattr(b, "text", "") for b in result.content), bool(result.is_error)

    return anyio.run(go)


def test_http_forwards_each_requests_own_bearer_token(
    repo, live_server, tmp_path, web, http_mcp
) -> None:
    _report(repo, live_server, tmp_path, "alice", web["alice"])
    seen, error = call_http(
        http_mcp, web["bob"].token, "who_is_editing", path="app/core.py", agent="bob"
    )
    assert (seen, error) == (
        'Other agents changing app/core.py:\n- alice: "app/core.py" line 22',
        False,
    )
    hidden, error = call_http(
        http_mcp, web["outsider"].token, "who_is_editing", path="app/core.py", agent="bob"
    )
    assert error
    assert "404" in hidden
    assert "alice" not in hidden
    anonymous, error = call_http(http_mcp, None, "airspace", agent="bob")
    assert error
    assert "Authorization: Bearer" in anonymous
    text, error = call_http(
        http_mcp, web["bob"].token, "check_edit", path="app/core.py", lines="22", agent="bob"
    )
    assert not error
    assert "Resolution Advisory with alice" in text


def _schemas(target: MCPServer | str) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with Client(target) as client:
            listed = await client.list_tools()
        return {t.name: t.input_schema for t in listed.tools}

    return anyio.run(go)


def test_http_tools_take_repository_and_agent_arguments_stdio_tools_do_not(
    repo, live_server, web, http_mcp
) -> None:
    over_http, over_stdio = _schemas(http_mcp), _schemas(_bob(repo))
    names = "acknowledge airspace check_edit declare_task list_advisories messages revise_task"
    assert sorted(over_http) == sorted(over_stdio) == [*names.split(), "who_is_editing"]
    for name, schema in over_http.items():
        assert schema["properties"]["repository"]["default"] == "web"
        assert "agent" in schema["properties"]
        assert not {"repository", "agent"} & set(over_stdio[name].get("properties", {}))
    lines = over_stdio["check_edit"]["properties"]["lines"]["anyOf"]
    assert [kind["type"] for kind in lines] == ["string", "array", "null"]
