"""Join an airspace from any machine: read this worktree, post its working set, print messages.

``python -m proximity.sources.report --server URL (--token-file FILE | --token TOKEN)
--repository NAME [--repo PATH] [--base main] [--agent ID] [--intent PATH ...]
[--every SECONDS] [--count N]``; without either token flag the token is read from RADAR_TOKEN.

Exit status: 0 when every report was accepted and its inbox read, 1 when the server or git
refused one, 2 for bad arguments. Each problem is one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests

from proximity.sources.diff_excerpts import with_report_excerpts
from proximity.sources.git import GitError, explicit_worktrees, read_working_set
from proximity.sources.radar_files import repository_ignore_globs

__all__ = ["build_report", "main", "report_once"]


def build_report(args: argparse.Namespace) -> dict[str, Any]:
    """The API body for this worktree; raises GitError with one line when it cannot be read."""
    worktree = explicit_worktrees([(args.repo, args.base)])[0]
    ignore = repository_ignore_globs(args.repo, base=args.base)
    working = read_working_set(worktree, base=args.base, ignore=ignore)
    if working.errors:
        raise GitError(args.repo, working.errors[0])
    agent = working.to_agent_json()
    untracked = [f.path for f in working.files if f.untracked]
    files = with_report_excerpts(
        agent["files"], working.path, working.merge_base, untracked=untracked
    )
    body: dict[str, Any] = {
        "repository": args.repository,
        "agentId": args.agent or agent["agentId"],
        "label": agent.get("label", ""),
        "files": files,
        "intent": [{"path": p} for p in args.intent],
    }
    if "startedAt" in agent:
        body["startedAt"] = agent["startedAt"]
    return body


def report_once(args: argparse.Namespace, session: requests.Session) -> int:
    try:
        body = build_report(args)
    except GitError as exc:
        print(f"error: {exc.problem}", file=sys.stderr)
        return 1
    base = args.server.rstrip("/")
    sent = session.post(f"{base}/api/working-sets", json=body, timeout=args.timeout)
    if sent.status_code != 201:
        detail = _detail(sent)
        print(f"error: server refused the report ({sent.status_code}): {detail}", file=sys.stderr)
        return 1
    version = sent.json()["version"]
    print(f"reported {len(body['files'])} file(s) as {body['agentId']} (version {version})")
    return _print_inbox(args, session, body["agentId"])


def _print_inbox(args: argparse.Namespace, session: requests.Session, agent_id: str) -> int:
    # Quoted whole: an agent id is often a branch name such as feature/login.
    repository, agent = quote(args.repository, safe=""), quote(agent_id, safe="")
    inbox = f"{args.server.rstrip('/')}/api/repositories/{repository}/agents/{agent}/messages"
    got = session.get(inbox, timeout=args.timeout)
    if got.status_code != 200:
        # Not "no messages": an agent that cannot read its inbox would miss every warning.
        problem = f"server refused the inbox ({got.status_code}): {_detail(got)}"
        print(f"error: {problem}", file=sys.stderr)
        return 1
    for message in got.json():
        print(f"[{message['kind']}] from {message['fromAgent']}: {message['content']}")
    return 0


def _detail(response: requests.Response) -> str:
    try:
        payload = response.json()
    except ValueError:  # not our JSON (a proxy's page): one line of it
        return " ".join(response.text[:200].split())
    if not isinstance(payload, dict):
        return str(payload)[:200]
    field = f" (field {payload['field']})" if payload.get("field") else ""
    return f"{payload.get('detail', '')}{field}"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m proximity.sources.report")
    parser.add_argument("--server", required=True, help="e.g. http://radar.internal:8000")
    parser.add_argument("--token", help="the token itself (visible to ps; prefer --token-file)")
    parser.add_argument("--token-file", help="a file holding the token (default: RADAR_TOKEN)")
    parser.add_argument("--repository", required=True, help="repository name on the server")
    parser.add_argument("--repo", default=".", help="path of this worktree (default: .)")
    parser.add_argument("--base", default="main")
    parser.add_argument("--agent", default=None, help="agent id (default: the branch name)")
    parser.add_argument("--intent", action="append", default=[], help="a path about to be touched")
    parser.add_argument("--every", type=float, default=0.0, help="repeat every SECONDS")
    parser.add_argument("--count", type=int, default=0, help="stop after N reports (0: forever)")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    if args.every < 0 or args.count < 0:
        parser.error("--every and --count must not be negative")
    args.token = _token(parser, args)
    return args


def _token(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """--token, else the first line of --token-file, else RADAR_TOKEN."""
    if args.token:
        return str(args.token)
    if args.token_file:
        try:
            text = Path(args.token_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            parser.error(f"--token-file: cannot read {args.token_file} ({type(exc).__name__})")
        if not text:
            parser.error(f"--token-file: {args.token_file} is empty")
        return text.splitlines()[0].strip()
    token = os.environ.get("RADAR_TOKEN", "").strip()
    if not token:
        parser.error("a token is needed: --token-file FILE, RADAR_TOKEN or --token")
    return token


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {args.token}"
    status, done = 0, 0
    while True:
        try:
            status = max(status, report_once(args, session))
        except requests.RequestException as exc:
            print(f"error: cannot reach {args.server}: {type(exc).__name__}", file=sys.stderr)
            status = 1
        done += 1
        if args.every <= 0 or (args.count and done >= args.count):
            return status
        time.sleep(args.every)


if __name__ == "__main__":
    raise SystemExit(main())
