"""``radar mcp``: the radar's answers as MCP tools, over stdio or streamable HTTP.

stdio serves one agent, named by its worktree (``--path``), with the token the hooks use
(``--token-file``, ``RADAR_TOKEN``, ``RADAR_TOKEN_FILE``); without a server the worktrees on
this machine answer. Streamable HTTP serves many agents from a process that holds no token of
its own: each request's ``Authorization`` header is forwarded to the radar server, so a tool
never shows what that token's principal may not see, and tools take ``repository`` and
``agent`` arguments in place of a worktree. It runs as its own process because Django's ASGI
handler refuses the lifespan scope the MCP session manager needs.

Every answer is a few lines of text; a failure is one line naming what failed. The tools'
docstrings are the descriptions the model reads.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from proximity.agent.client import ApiClient, ServerError
from proximity.agent.config import ConfigError
from proximity.agent.mcp_tools import TOOLS, AnswerError, Seat
from proximity.agent.session import AgentSession
from proximity.sources.git import GitError

__all__ = ["HTTP_PATH", "build_server", "serve", "server_for"]

HTTP_PATH = "/mcp"
_READ_ONLY = frozenset({"airspace", "check_edit", "who_is_editing", "list_advisories"})
_INSTRUCTIONS = (
    "Overlap Radar sees the other coding agents working on this repository. Call airspace when "
    "a task starts, check_edit before changing lines another agent may be changing, and "
    "acknowledge after coordinating with an agent a denial names."
)


SeatFor = Callable[[Context, dict[str, str]], Seat]


def _stdio_seats(args: argparse.Namespace) -> SeatFor:
    anchor = str(Path(args.path).absolute())
    overrides = {name: getattr(args, name) for name in ("server", "token_file", "repository")}

    def seat(ctx: Context, who: dict[str, str]) -> Seat:
        # Opened on every call: a branch switch or an edited .radar.toml counts at once.
        s = AgentSession.open(anchor, **overrides)
        return Seat(s.agent_id, s.config.repository, s.client, s, s.config.policy)

    return seat


def _bearer(ctx: Context) -> str | None:
    request = ctx.request_context.request
    header = request.headers.get("authorization", "") if request is not None else ""
    scheme, _, token = str(header).partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def _http_seats(server: str) -> SeatFor:
    def seat(ctx: Context, who: dict[str, str]) -> Seat:
        token = _bearer(ctx)
        if token is None:
            raise AnswerError(
                "this request has no 'Authorization: Bearer <agent token>' header "
                "to forward to the radar server"
            )
        for name in ("repository", "agent"):
            if not who.get(name, "").strip():
                raise AnswerError(f"the {name} argument is required over HTTP")
        # A client per request: the caller's token is never kept past its own question.
        return Seat(who["agent"].strip(), who["repository"].strip(), ApiClient(server, token))

    return seat


def _identity(repository: str | None) -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    repo = Annotated[str, Field(description="the repository's name on the radar server")]
    agent = Annotated[str, Field(description="your agent id: your worktree's branch name")]
    return [
        inspect.Parameter("repository", kw, default=repository or "", annotation=repo),
        inspect.Parameter("agent", kw, default="", annotation=agent),
    ]


_FAILURES = (AnswerError, ServerError, GitError, ConfigError, OSError)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:500] or type(exc).__name__


def _register(
    server: MCPServer, op: Callable[..., str], seats: SeatFor, identity: list[inspect.Parameter]
) -> None:
    """Register ``op`` with the seat replaced by the caller's context (and, over HTTP, the
    identity arguments), so each tool's body is written once for both transports."""
    own = list(inspect.signature(op, eval_str=True).parameters.values())[1:]  # after the seat
    ctx = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    signature = inspect.Signature([*own, *identity, ctx], return_annotation=str)

    def tool(ctx: Context, **arguments: Any) -> str:
        who = {p.name: arguments.pop(p.name) for p in identity}
        try:
            return op(seats(ctx, who), **arguments)
        except _FAILURES as exc:
            raise ToolError(_one_line(exc)) from None
        except Exception as exc:  # a tool answers one line, never a traceback
            raise ToolError(f"internal error {type(exc).__name__}: {_one_line(exc)}") from None

    tool.__signature__ = signature  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    tool.__annotations__["return"] = str
    hints = ToolAnnotations(read_only_hint=op.__name__ in _READ_ONLY)
    server.add_tool(
        tool,
        name=op.__name__,
        description=inspect.getdoc(op),
        annotations=hints,
        structured_output=False,
    )


def build_server(seats: SeatFor, identity: list[inspect.Parameter] | None = None) -> MCPServer:
    server: MCPServer = MCPServer("overlap-radar", instructions=_INSTRUCTIONS, log_level="WARNING")
    for op in TOOLS:
        _register(server, op, seats, identity or [])
    return server


def server_for(args: argparse.Namespace) -> MCPServer:
    """The MCP server ``radar mcp`` would run with these arguments."""
    if args.transport != "http":
        return build_server(_stdio_seats(args))
    url = args.server or os.environ.get("RADAR_SERVER")
    if not url:
        raise ConfigError("radar mcp --transport http needs --server (or RADAR_SERVER)")
    repository = args.repository or os.environ.get("RADAR_REPOSITORY")
    return build_server(_http_seats(url), _identity(repository))


def serve(args: argparse.Namespace) -> int:
    server = server_for(args)
    if args.transport != "http":
        from proximity.agent.session import remember_working_sets

        remember_working_sets()  # a session's whole life: re-read only worktrees that changed
        server.run("stdio")
        return 0
    if args.token_file:
        print(
            "radar mcp: --token-file is ignored over HTTP; each request's own bearer token "
            "is forwarded",
            file=sys.stderr,
        )
    where = f"http://{args.host}:{args.port}{HTTP_PATH}"
    print(f"radar mcp: streamable HTTP on {where}", file=sys.stderr)
    # Stateless: no MCP session outlives its request, so no token or answer is kept either.
    server.run(
        "streamable-http",
        host=args.host,
        port=args.port,
        streamable_http_path=HTTP_PATH,
        stateless_http=True,
        json_response=True,
    )
    return 0
