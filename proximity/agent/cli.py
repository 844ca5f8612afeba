"""``radar``: the agent-side command (hooks, check, ack, report, MCP server, hook installer).

Exit codes: 0 done (for ``check``: clear), 1 a refusal or an unreachable server, 2 bad
arguments or, for ``check``, an advisory on the checked lines. ``radar hook`` always exits 0.
Each problem is one line on stderr.
"""

from __future__ import annotations

import os
import sys
import time

from proximity.agent import HARNESSES

# Not typing.TYPE_CHECKING: importing typing (or collections, functools) costs a forwarded hook
# milliseconds, and mypy reads any constant of this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["answer_here", "hook_answer", "main"]

EXIT_ADVISORY = 2
DISTRIBUTION = "overlap-radar"


def _server_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        help="radar server URL (default: RADAR_SERVER, else ~/.config/radar/config.toml; a "
        ".radar.toml server only if that config lists its host in allowed_servers)",
    )
    parser.add_argument("--token-file", help="file holding the agent's token (or RADAR_TOKEN)")
    parser.add_argument("--repository", help="repository name on the server")


def _version_action() -> type[argparse.Action]:
    """``--version``: read from the installed distribution only when asked (hooks never are)."""
    import argparse

    class Version(argparse.Action):
        def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
            super().__init__(option_strings, dest, nargs=0, help="print radar's version and exit")

        def __call__(
            self, parser: argparse.ArgumentParser, *args: object, **kwargs: object
        ) -> None:
            from importlib.metadata import PackageNotFoundError, version

            try:
                found = version(DISTRIBUTION)
            except PackageNotFoundError:
                found = "unknown (not installed as a distribution)"
            print(f"radar {found} (Python {sys.version.split()[0]})")
            parser.exit()

    return Version


def _parser() -> argparse.ArgumentParser:
    import argparse  # not on a forwarded hook's path

    parser = argparse.ArgumentParser(prog="radar", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_version_action())
    sub = parser.add_subparsers(dest="command", required=True)
    hook = sub.add_parser("hook", help="run as a harness hook (reads its JSON on stdin)")
    hook.add_argument("harness", choices=HARNESSES)
    _server_flags(hook)
    check = sub.add_parser("check", help="may I edit PATH (lines)?")
    check.add_argument("path")
    check.add_argument("--lines", help="e.g. 20-24,30 (default: the whole file)")
    _server_flags(check)
    ack = sub.add_parser("ack", help="acknowledge the encounter with another agent")
    ack.add_argument(
        "others", nargs="+", metavar="OTHER", help="agent ids, as the denial names them"
    )
    ack.add_argument("--note", default="")
    ack.add_argument("--path", default=".", help="a path inside your worktree (default .)")
    _server_flags(ack)
    report = sub.add_parser("report", help="send this worktree's working set to the server")
    report.add_argument("--path", default=".")
    report.add_argument("--intent", action="append", default=[], help="a path about to be touched")
    report.add_argument("--every", type=float, default=0.0, help="repeat every SECONDS")
    report.add_argument("--count", type=int, default=0, help="stop after N reports (0: forever)")
    report.add_argument(
        "--leave",
        action="store_true",
        help="this worktree's work is over (merged or dropped): its lines hold nothing from now",
    )
    _server_flags(report)
    mcp = sub.add_parser("mcp", help="run the MCP server (stdio, or streamable HTTP)")
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8765)
    mcp.add_argument("--path", default=".", help="the agent's worktree (stdio)")
    _server_flags(mcp)
    daemon = sub.add_parser("daemon", help="the warm process that answers hooks faster")
    daemon.add_argument("action", choices=("run", "status", "stop"))
    daemon.add_argument("--socket", help=argparse.SUPPRESS)
    hooks = sub.add_parser("hooks", help="install, remove or inspect the harness hooks")
    hooks.add_argument("action", choices=("install", "uninstall", "doctor"))
    hooks.add_argument("--harness", choices=HARNESSES, required=True)
    hooks.add_argument("--scope", choices=("project", "local", "user"), default="project")
    hooks.add_argument("--path", default=".", help="the worktree (project scope)")
    hooks.add_argument(
        "--http",
        action="store_true",
        help="Claude Code: PreToolUse as an HTTP call to the daemon (--scope local or user)",
    )
    hooks.add_argument("--http-port", type=int, help="the daemon's HTTP port (default 47291)")
    _server_flags(hooks)
    return parser


_PARSER: list[argparse.ArgumentParser] = []


def _hook_parser() -> argparse.ArgumentParser:
    """Built once per process: the daemon parses every call's words with it (building the
    parser, with its translated help texts, costs more than the rest of a cached answer)."""
    if not _PARSER:
        _PARSER.append(_parser())
    return _PARSER[0]


def _ranges(text: str | None) -> tuple[tuple[int, int], ...] | None:
    if not text:
        return None
    out = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        a, b = int(first), int(last or first)
        if a < 1 or b < a:
            raise ValueError(part)
        out.append((a, b))
    return tuple(out)


def _overrides(args: argparse.Namespace) -> dict[str, str | None]:
    return {"server": args.server, "token_file": args.token_file, "repository": args.repository}


def _check(args: argparse.Namespace) -> int:
    from proximity.agent.edits import PlannedEdit
    from proximity.agent.elsewhere import edits_elsewhere, elsewhere_decision
    from proximity.agent.hook import check_text
    from proximity.agent.session import AgentSession

    try:
        lines = _ranges(args.lines)
    except ValueError:
        expected = "START-END[,...] with 1 <= START <= END"
        print(f"radar: --lines: expected {expected}, got {args.lines!r}", file=sys.stderr)
        return 2
    from pathlib import Path  # not on a forwarded hook's path

    path = str(Path(args.path).absolute())
    # asked as the agent of the current worktree, wherever PATH lies
    session = AgentSession.open_home(str(Path.cwd()), path, **_overrides(args))
    edit = PlannedEdit(path, lines)
    elsewhere = elsewhere_decision(
        edits_elsewhere(session.worktree, [edit]), session.worktree, session.config.policy
    )
    if elsewhere is not None:
        print(elsewhere.text)
        return EXIT_ADVISORY
    result = session.check([edit])
    print(check_text(result, session.config.policy))
    acknowledged = [f.acknowledged for f in result.findings] + [
        d.acknowledged for d in result.drift
    ]
    return EXIT_ADVISORY if not all(acknowledged) else 0


def _ack(args: argparse.Namespace) -> int:
    from pathlib import Path

    from proximity.agent.session import AgentSession

    session = AgentSession.open(str(Path(args.path).absolute()), **_overrides(args))
    for other in args.others:
        print(session.acknowledge(other, note=args.note))
    return 0


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from proximity.agent.errors import ServerError
    from proximity.agent.session import AgentSession
    from proximity.sources.git._run import GitError

    if args.leave and (args.every or args.count or args.intent):
        print("radar: report --leave takes no --every, --count or --intent", file=sys.stderr)
        return 2
    session = AgentSession.open(str(Path(args.path).absolute()), **_overrides(args))
    if session.client is None:
        print(
            "radar: report needs a server: --server, --token-file and --repository "
            "(or RADAR_* variables, or ~/.config/radar/config.toml)",
            file=sys.stderr,
        )
        return 2
    if args.leave:
        print(session.leave())
        return 0
    done = 0
    while True:
        try:
            print(session.report(intent=args.intent))
        except (GitError, ServerError):
            if not session.gone:
                raise
        if session.gone:  # removed (before or while reporting): its lines free now, not at TTL
            print(session.leave())
            return 0
        from proximity.agent.quoting import message_line

        for m in session.messages():
            print(message_line(m))
        done += 1
        if args.every <= 0 or (args.count and done >= args.count):
            return 0
        time.sleep(args.every)


def hook_answer(
    argv: Sequence[str],
    stdin: str,
    *,
    budget: float | None = None,
    environ: dict[str, str] | None = None,
    cwd: str | None = None,
) -> str:
    """What ``radar hook ...`` prints for ``stdin`` (here, or in the daemon for a caller:
    ``environ`` and ``cwd`` are then the caller's), within ``budget`` seconds."""
    from proximity.agent.hook import run_hook

    args = _hook_parser().parse_args(list(argv))
    if environ is None or cwd is None:
        return run_hook(args.harness, stdin, budget=budget, **_overrides(args)).stdout
    from proximity.agent.config import as_caller

    with as_caller(environ, cwd):
        return run_hook(args.harness, stdin, budget=budget, **_overrides(args)).stdout


def _hook(argv: Sequence[str]) -> int:
    """Forwarded to the warm daemon when one runs, else answered here; always 0."""
    from proximity.agent import warm

    started = time.monotonic()
    stdin = warm.read_stdin()
    out = warm.ask(list(argv), stdin)
    return answer_here(argv, stdin, started) if out is None else warm.write(out)


def answer_here(argv: Sequence[str], stdin: str, started: float) -> int:
    """The hook answered in this process, within what is left of its budget; always 0."""
    from proximity.agent import warm

    left = warm.hook_budget() - (time.monotonic() - started)
    out = hook_answer(argv, stdin, budget=max(left, 0.5))
    if out:
        sys.stdout.write(out + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    threading = sys.modules.get("threading")  # never imported: no thread to wait for
    if threading is not None and threading.active_count() > 1:
        # A reader cut off by the deadline may still be unwinding: the answer is out, and
        # interpreter exit would wait for it, so leave now, with its git calls killed.
        from proximity.sources.git._run import kill_running

        kill_running()
        os._exit(0)
    return 0


def _daemon(args: argparse.Namespace) -> int:
    from proximity.agent.daemon import daemon_command

    return daemon_command(args.action, answer=hook_answer, socket_override=args.socket)


def _mcp(args: argparse.Namespace) -> int:
    try:
        from proximity.agent.mcp_server import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        print(
            "radar: `radar mcp` needs the mcp extra, which is not installed: "
            "pip install '<the overlap-radar checkout or wheel>[mcp]' (README, Agents in the loop)",
            file=sys.stderr,
        )
        return 1
    return serve(args)


def _hooks(args: argparse.Namespace) -> int:
    from proximity.agent.install import hooks_command

    return hooks_command(args)


_COMMANDS = {
    "check": _check,
    "ack": _ack,
    "report": _report,
    "mcp": _mcp,
    "hooks": _hooks,
    "daemon": _daemon,
}


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["hook"] and len(words) > 1 and words[1] in HARNESSES:
        return _hook(words)  # never anything but 0, whatever happens inside
    args = _parser().parse_args(words)
    from proximity.agent.config import ConfigError
    from proximity.agent.errors import ServerError
    from proximity.agent.ownership import StateDirError
    from proximity.sources.git import GitError

    try:
        return _COMMANDS[args.command](args)
    except (ConfigError, GitError, ServerError, StateDirError) as exc:
        print(f"radar: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
